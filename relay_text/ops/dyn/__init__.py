"""Dynamic forms, `dyn.*`, of the tensor operators: shapes, axes and bounds
given as tensors, read when the program runs (TVM's src/relay/op/dyn/)."""
