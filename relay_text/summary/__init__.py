"""`relay summary`: the operators, shapes, weights and multiply-accumulates of a model."""
