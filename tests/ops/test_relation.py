"""The relation interface (`relay_text.ops.relation`): what a relation is
given, and the `@relation` decorator that names it."""

from __future__ import annotations

import inspect

from relay_text.check.solver import Rel
from relay_text.ops import all_ops, get
from relay_text.ops.legacy.renamed import _Translated
from relay_text.ops.relation import CanFail, FixedArityRelation, NamedRelation, Relation, relation, relation_name
from relay_text.ops.relations import NAMED, broadcast, same_types

from tests.check.helpers import diagnostics, global_types

PROPERTIES = ("op", "attrs", "arity")


def _methods() -> list[str]:
    names = {
        n for proto in (Relation, CanFail) for n, v in vars(proto).items() if not n.startswith("_") and callable(v)
    }
    return sorted(names)


def _shape(fn: object) -> list[tuple[str, object, object]]:
    """A signature without its annotations: names, kinds, defaults."""
    return [(p.name, p.kind, p.default) for p in inspect.signature(fn).parameters.values()]


def test_the_interface_lists_what_relations_use() -> None:
    assert _methods() == [
        "adt",
        "arg",
        "fail",
        "fresh_dim",
        "fresh_dtype",
        "fresh_shape",
        "from_metadata",
        "refine",
        "result",
        "set_result",
        "tensor",
        "tensor_of",
        "unify",
        "unify_dtypes",
    ]
    assert all(isinstance(vars(Relation)[name], property) for name in PROPERTIES)


def test_the_checker_and_the_renamed_operators_give_every_member() -> None:
    for cls in (Rel, _Translated):
        for name in PROPERTIES:
            assert name in cls.__slots__ or isinstance(getattr(cls, name, None), property), (cls, name)
        for name in _methods():
            assert _shape(getattr(cls, name)) == _shape(getattr(Relation, name)), (cls, name)


def test_a_named_relation_is_called_like_its_function() -> None:
    seen = []

    def fn(r: Relation) -> bool:
        seen.append(r)
        return False

    def guess(r: Relation) -> bool:
        return True

    rel = relation("Pair", inputs=2, default=guess)(fn)
    assert type(rel) is FixedArityRelation
    assert (rel.fn, rel.relation_name, rel.inputs, rel.default) == (fn, "Pair", 2, guess)
    call = object()
    assert rel(call) is False and seen == [call]
    assert relation_name(rel) == "Pair" and relation_name(fn) == ""


def test_without_inputs_a_relation_has_no_arity() -> None:
    """The checker reads `getattr(rel, "inputs", n)`: a relation without
    one takes whatever number of inputs a `where` clause gives it."""
    rel = relation("Any")(lambda r: True)
    assert type(rel) is NamedRelation and rel.default is None
    assert getattr(rel, "inputs", 3) == 3
    assert getattr(same_types, "inputs", 5) == 5 and NAMED["Identity"] is same_types
    assert getattr(broadcast, "inputs", 5) == 2


def test_the_registry_takes_the_name_from_the_relation() -> None:
    assert get("add").relation_name == "Broadcast"
    assert get("qnn.abs").relation_name == "QnnElementwiseUnary"
    assert get("cast").relation_name == "cast"  # a relation without a name: the operator's
    assert get("image.resize").relation_name == "image.resize (now image.resize2d)"
    assert get("scatter_add").relation_name == "scatter_add (now scatter_elements)"


def test_no_relation_carries_attributes_of_its_own() -> None:
    for op in all_ops():
        rel = op.relation
        assert isinstance(rel, NamedRelation) or not vars(rel), op.name


def test_where_clauses_still_read_the_arity() -> None:
    """`Identity` relates any number of types; `Broadcast` two."""
    assert diagnostics("def @f<t>(%x : t, %y : t, %z : t) -> t where Identity { %x }\n") == []
    (diag,) = diagnostics("def @g<a>(%x : a) -> a where Broadcast { %x }\n")
    assert (diag.code, diag.span.text, diag.span.start) == ("arity-mismatch", "Broadcast", 29)
    assert diag.message == "`Broadcast` relates 2 inputs to a result, but this function has 1 parameter"
    assert global_types("def @h<t>(%x : t) -> t where Identity { %x }\n") == {"@h": "fn<t>(t) -> t where Identity"}
