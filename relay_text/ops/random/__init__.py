"""Random numbers, `random.*`: the Threefry generator and the distributions
drawn from its keys (TVM's src/relay/op/random/)."""
