"""Quantized operators, `qnn.*`: integer arithmetic with scales and zero points
(TVM's src/relay/qnn/op/)."""
