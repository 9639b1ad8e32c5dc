"""Neural-network operators, `nn.*`: convolutions, dense and matrix products,
pooling, normalisation, activations, padding, losses, sparse and bit-serial
layers (TVM's src/relay/op/nn/)."""
