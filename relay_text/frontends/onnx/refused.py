"""ONNX operators refused on purpose, with the reason the diagnostic gives
(any other operator without a converter gets the general note that only
the operators TVM's importer converted are converted)."""

from __future__ import annotations

from .table import refuse

STRINGS = "it computes on strings, which have no Relay dtype"
for _op in ("StringNormalizer", "StringConcat", "StringSplit", "RegexFullMatch", "TfIdfVectorizer"):
    refuse(_op, STRINGS)
for _op in (
    "LabelEncoder",
    "TreeEnsemble",
    "TreeEnsembleClassifier",
    "TreeEnsembleRegressor",
    "ArrayFeatureExtractor",
    "Binarizer",
):
    refuse(
        _op,
        "a classical machine-learning operator (ai.onnx.ml) that TVM's importer did not convert",
        domain="ai.onnx.ml",
    )
refuse(
    "Gradient",
    "a transformation of the graph for training, not a computation on tensors",
    domain="ai.onnx.preview.training",
)
refuse("ImageDecoder", "it decodes image files (bytes), which have no Relay type")
