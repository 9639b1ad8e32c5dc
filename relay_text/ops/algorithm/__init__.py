"""Sorting and searching: sort, argsort, topk, searchsorted (TVM's
src/relay/op/algorithm/)."""
