"""Models in: ONNX (`frontends.onnx`) and PyTorch `torch.export` programs
(`frontends.torch`) converted to Relay, and `relay import`.

Both frontends build IR through `builder.Builder` (every call typed by its
operator's relation as it is made, constant subgraphs folded) and hand it
to `emit.Imported`, which makes the module, its text and its weights.
"""
