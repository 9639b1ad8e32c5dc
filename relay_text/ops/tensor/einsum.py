"""`einsum((x_0, ..., x_{n-1}), equation)`: Einstein summation over a tuple
of tensors of one dtype, as TVM's TOPI reads the equation.

The equation names the axes of each operand with letters, operands
separated by commas, and optionally `->` followed by the result's letters;
`...` (once per subscript) stands for any number of axes, and spaces are
ignored. Without `->` (implicit mode) the result has the `...` axes first,
then every letter that occurs exactly once, sorted (upper case before
lower case). The result's element at a position is the sum, over every
letter not in the result, of the product of the operands' elements; a
repeated letter within one operand walks its diagonal.

Sizes broadcast: the axes one letter names must have one size, or size 1
(that operand is repeated along the others' size), and the `...` parts of
the operands broadcast like numpy shapes, aligned from the right. Sums
keep the dtype (integers wrap around; for bool, products are `and` and
sums `or`).
"""

from __future__ import annotations

import string
from typing import Any

from ...diagnostics import codes
from ...ir.ty import AnyDim, TensorType, TupleType
from .._np import np
from ..registry import Attr, KernelError, register
from ..relations import Relation, is_unknown, known_rank, relation, shape_text
from ..types import Args, Attrs, Dims, Value

ELLIPSIS = "\0"  # the label of `...`; sorts before every letter, as in TVM


class EquationError(ValueError):
    pass


def parse_equation(equation: str) -> tuple[list[list[str]], list[str], bool]:
    """The operands' subscripts, the result's, and whether `->` was written."""
    inputs: list[list[str]] = []
    current: list[str] = []
    arrow = ellipsis = False
    i, n = 0, len(equation)
    while i < n:
        c = equation[i]
        if c == " ":
            pass
        elif c == "-":
            if arrow:
                raise EquationError("`->` may appear only once")
            if i + 1 >= n or equation[i + 1] != ">":
                raise EquationError("`-` must be followed by `>`")
            i += 1
            arrow = True
            inputs.append(current)
            current, ellipsis = [], False
        elif c == ",":
            if arrow:
                raise EquationError("the result, after `->`, is one subscript: it has no `,`")
            inputs.append(current)
            current, ellipsis = [], False
        elif c == ".":
            if ellipsis:
                raise EquationError("`...` may appear only once in a subscript")
            if equation[i : i + 3] != "...":
                raise EquationError("a `.` must be part of `...`")
            current.append(ELLIPSIS)
            ellipsis = True
            i += 2
        elif c.isascii() and c.isalpha():
            current.append(c)
        else:
            raise EquationError(f"`{c}` is not a letter")
        i += 1
    if arrow:
        output = current
        seen = set()
        for label in output:
            if label in seen:
                raise EquationError(f"the result names `{_text(label)}` twice")
            seen.add(label)
            if not any(label in sub for sub in inputs):
                raise EquationError(f"the result names `{_text(label)}`, which no operand has")
    else:
        inputs.append(current)
        counts: dict[str, int] = {}
        for sub in inputs:
            for label in sub:
                counts[label] = counts.get(label, 0) + 1
        output = sorted(label for label, k in counts.items() if label == ELLIPSIS or k == 1)
    return inputs, output, arrow


def _text(label: str) -> str:
    return "..." if label == ELLIPSIS else label


def _subscript_text(sub: list[str]) -> str:
    return "".join(_text(label) for label in sub)


def _broadcast(a: Any, b: Any) -> Any:
    """TVM's broadcast of two extents; None when two sizes conflict."""
    if type(a) is int and type(b) is int:
        if a == b or b == 1:
            return a
        return b if a == 1 else None
    if type(a) is int:
        return b
    if type(b) is int:
        return a
    return a if a is b else AnyDim()


def einsum_shapes(shapes: list[Dims], inputs: list[list[str]], output: list[str]) -> tuple[dict[str, Any], Dims, Dims]:
    """The size of each letter, the broadcast `...` shape and the result shape;
    EquationError when the operands do not fit the equation."""
    if len(inputs) != len(shapes):
        raise EquationError(f"it has {len(inputs)} operand subscripts for {len(shapes)} tensors")
    sizes: dict[str, Any] = {}
    owner: dict[str, int] = {}
    ellipses: list[Dims] = []
    for k, (sub, shape) in enumerate(zip(inputs, shapes, strict=False)):
        named = len(sub) - (ELLIPSIS in sub)
        if len(shape) < named or (ELLIPSIS not in sub and len(shape) != named):
            raise EquationError(
                f"operand {k} has rank {len(shape)}, but its subscript `{_subscript_text(sub)}` names {named} axes"
            )
        pos = 0
        for label in sub:
            if label == ELLIPSIS:
                width = len(shape) - named
                ellipses.append(tuple(shape[pos : pos + width]))
                pos += width
                continue
            d = shape[pos]
            pos += 1
            if label not in sizes:
                sizes[label], owner[label] = d, k
                continue
            both = _broadcast(sizes[label], d)
            if both is None:
                raise EquationError(
                    f"`{label}` has size {sizes[label]} in operand {owner[label]} and {d} in operand {k}; they must "
                    "be equal or one of them 1"
                )
            sizes[label] = both
    common: list[Any] = []
    for shape in ellipses:
        width = max(len(common), len(shape))
        a = [1] * (width - len(common)) + common
        b = [1] * (width - len(shape)) + list(shape)
        merged = [_broadcast(x, y) for x, y in zip(a, b, strict=False)]
        if any(m is None for m in merged):
            raise EquationError(
                f"the `...` parts of the operands do not broadcast: {shape_text(tuple(common))} and {shape_text(shape)}"
            )
        common = merged
    result: list[Any] = []
    for label in output:
        result.extend(common if label == ELLIPSIS else [sizes[label]])
    return sizes, tuple(common), tuple(result)


@relation("Einsum", inputs=1)
def einsum_rel(r: Relation) -> bool:
    equation = r.attrs["equation"]
    try:
        inputs, output, _ = parse_equation(equation)
    except EquationError as exc:
        r.fail(codes.TYPE_MISMATCH, f'`einsum`: the equation "{equation}" is not valid: {exc}')
    t = r.arg(0)
    if is_unknown(t):
        return False
    if not isinstance(t, TupleType):
        r.fail(
            codes.TYPE_MISMATCH,
            '`einsum` takes a tuple of tensors, e.g. `einsum((%a, %b), equation="ij,jk->ik")`',
            arg=0,
            label="not a tuple",
        )
    if not t.fields:
        r.fail(codes.TYPE_MISMATCH, "`einsum` needs at least one tensor", arg=0)
    fields = [r.tensor_of(f, 0, f"field {i} of its tuple") for i, f in enumerate(t.fields)]
    for i in range(1, len(fields)):
        r.unify(
            fields[0].dtype,
            fields[i].dtype,
            arg=0,
            message=f"`einsum` needs tensors of one dtype: field 0 is `{{expected}}`, field {i} is `{{found}}`",
        )
    fields = [r.tensor_of(f, 0) for f in t.fields]
    shapes = [f.shape for f in fields if known_rank(f.shape)]
    if len(shapes) < len(fields) or any(is_unknown(d) for s in shapes for d in s):
        return False
    try:
        _, _, shape = einsum_shapes(shapes, inputs, output)
    except EquationError as exc:
        r.fail(
            codes.SHAPE_MISMATCH,
            f'`einsum` "{equation}": {exc}',
            arg=0,
            notes=["the operands are " + ", ".join(shape_text(f.shape) for f in fields)],
        )
    r.set_result(TensorType(shape, fields[0].dtype))
    return True


@register(
    "einsum",
    inputs=1,
    relation=einsum_rel,
    attrs=(Attr("equation", "str"),),
    doc='Einstein summation over a tuple of tensors, e.g. equation="ij,jk->ik".',
)
def einsum(args: Args, attrs: Attrs) -> Value:
    operands = args[0]
    inputs, output, _ = parse_equation(attrs["equation"])
    sizes, common, _ = einsum_shapes([x.shape for x in operands], inputs, output)
    spare = [c for c in string.ascii_letters if c not in sizes]
    if len(spare) < len(common):
        raise KernelError(codes.RUNTIME_ERROR, "einsum: too many axes under `...` to name")
    names = spare[: len(common)]

    def spelled(sub: list[str], width: int) -> tuple[str, list[Any]]:
        letters = ""
        target: list[Any] = []
        for label in sub:
            if label == ELLIPSIS:
                letters += "".join(names[len(names) - width :])
                target.extend(common[len(common) - width :])
            else:
                letters += label
                target.append(sizes[label])
        return letters, target

    subs, views = [], []
    for sub, x in zip(inputs, operands, strict=False):
        letters, target = spelled(sub, x.ndim - (len(sub) - (ELLIPSIS in sub)))
        subs.append(letters)
        views.append(np.broadcast_to(x, tuple(target)))
    result, _ = spelled(output, len(common))
    out = np.einsum(f"{','.join(subs)}->{result}", *views)
    return np.asarray(out, dtype=operands[0].dtype)
