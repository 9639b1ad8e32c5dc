"""Memory and virtual-machine operators: allocation, `memory.kill`, the VM's
`vm.*` instructions, `call_lowered` (TVM's src/relay/op/memory/, vm/, call/)."""
