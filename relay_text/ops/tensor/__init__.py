"""Tensor operators: elementwise math and logic, reductions, creation, shapes,
indexing, layout and the other data movements (TVM's src/relay/op/tensor/)."""
