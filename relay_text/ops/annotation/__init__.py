"""Annotations and device placement: `annotation.*`, `on_device`,
`device_copy`, `debug` (TVM's src/relay/op/annotation/, memory/, debug.cc)."""
