"""Annotations and device placement (relay_text/ops/annotation/annotation.py):
TVM's relations (src/relay/op/annotation/annotation.cc) and their meaning on
one CPU: the argument itself.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.ops.family import Family, T

ANNOTATIONS = [
    "on_device",
    "device_copy",
    "annotation.stop_fusion",
    "annotation.checkpoint",
    "annotation.bitpack_start",
    "annotation.bitpack_end",
    "annotation.cast_hint",
    "annotation.compiler_begin",
    "annotation.compiler_end",
    "annotation.with_funcid",
    "debug",
]
FAMILY = Family(*ANNOTATIONS)
ATTRS = {
    "on_device": ", virtual_device=meta[VirtualDevice][0], constrain_result=True",
    "device_copy": ", src_virtual_device=meta[VirtualDevice][0], dst_virtual_device=meta[VirtualDevice][1]",
    "annotation.cast_hint": ', dtype="int8"',
    "annotation.compiler_begin": ', compiler="ccompiler"',
    "annotation.compiler_end": ', compiler="ccompiler"',
    "annotation.with_funcid": ", funcid=3",
}


@pytest.mark.parametrize("name", ANNOTATIONS)
def test_annotations_have_the_type_of_any_argument(name: str) -> None:
    """IdentityRel (src/relay/op/type_relations.cc) assigns the argument's type, whatever it is."""
    attrs = ATTRS.get(name, "")
    tup = "(Tensor[(2), float32], fn (int32) -> int32)"
    assert (
        FAMILY.result_type(f"{name}(%a{attrs})", [tup])
        == "(Tensor[(2), float32], fn(Tensor[(), int32]) -> Tensor[(), int32])"
    )
    assert FAMILY.result_type(f"{name}(%a{attrs})", [T("(2, 3)", "int8")]) == "Tensor[(2, 3), int8]"
    value = (np.arange(3, dtype=np.float32), np.int32(4))
    assert FAMILY.run(name, value, **_kw(attrs)) is value


def _kw(attrs: str) -> dict:
    out: dict = {}
    for part in filter(None, attrs.split(", ")):
        key, value = part.split("=")
        out[key] = (
            value.strip('"')
            if value.startswith('"')
            else int(value)
            if value.isdigit()
            else True
            if value == "True"
            else value
        )
    return out


def test_annotation_arity() -> None:
    diag = FAMILY.only_error("on_device(%a, %a)", [T("(2)")])
    assert (diag.code, diag.message) == ("arity-mismatch", "`on_device` takes 1 argument, but 2 were given")


def test_every_operator_of_the_family_was_tested() -> None:
    FAMILY.assert_complete()
