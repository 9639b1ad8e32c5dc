"""The registry of diagnostic codes: one `Code` object per kind of diagnostic.

A code is part of the interface: tests, editors, `--output-format json`
consumers and `// relay: ignore[...]` comments key on its name. A `Code` is
a `str` (its kebab-case name), so it compares equal to the name, and it
carries what `relay explain NAME` prints: a one-line summary, an
explanation and an example, and its severity: a `Diagnostic` takes its
severity from its code, so this registry is the one place that says whether
a kind of diagnostic is an error or a warning. Stages refer to codes by these objects
(`codes.TYPE_MISMATCH`), never by bare strings; `Diagnostic` rejects a code
that is not registered here.
"""

from __future__ import annotations

ERROR = "error"
WARNING = "warning"


class Code(str):
    """A diagnostic code: its name (the string itself) and its documentation."""

    summary: str
    explanation: str
    example: str
    severity: str
    warning_when: str

    def __new__(
        cls,
        name: str,
        summary: str,
        explanation: str,
        example: str = "",
        severity: str = ERROR,
        warning_when: str = "",
    ) -> Code:
        """`warning_when`, for an error code only: the one documented case in
        which a diagnostic of this code is a warning instead (its call site
        then says `severity=WARNING`; any other stated severity is refused)."""
        if severity not in (ERROR, WARNING) or (warning_when and severity != ERROR):
            raise ValueError(f"diagnostic code {name!r}: severity {severity!r} with warning_when={warning_when!r}")
        code = super().__new__(cls, name)
        code.summary = summary
        code.explanation = explanation
        code.example = example
        code.severity = severity
        code.warning_when = warning_when
        REGISTRY[name] = code
        return code

    def allows(self, severity: str) -> bool:
        """Whether a diagnostic of this code may have `severity`."""
        return severity == self.severity or (severity == WARNING and bool(self.warning_when))

    def __reduce__(self) -> tuple[object, tuple[str]]:
        # A code is pickled by name (for worker processes): the registry's object comes back.
        return (_registered, (str(self),))


def _registered(name: str) -> Code:
    return REGISTRY[name]


REGISTRY: dict[str, Code] = {}

# ---------------------------------------------------------------- syntax and names

SYNTAX_ERROR = Code(
    "syntax-error",
    "the text does not follow the Relay grammar",
    "The parser met a token it did not expect. The message names what could "
    "have come there instead; an unclosed bracket is shown where it opened.",
    "def @f(%x: int32 { %x }   // `)` missing before `{`",
)
INVALID_LITERAL = Code(
    "invalid-literal",
    "a number or string literal cannot be represented",
    "A number is malformed or does not fit its dtype: integers take i/i8..i64/"
    "u8..u64 suffixes and must fit their range, floats f/f16/f32/f64 and must "
    "not exceed the largest finite value of their dtype.",
    "128i8   65505f16",
    warning_when="a file in TVM's format writes a float without `f` (`1.5`), which TVM itself reads as malformed",
)
UNSUPPORTED_VERSION = Code(
    "unsupported-version",
    "the version header names a format this toolchain does not read",
    'Files in TVM\'s format start with `#[version = "0.0.5"]` (or `v0.0.4`); other versions are not read.',
    '#[version = "0.0.9"]',
)
BAD_METADATA = Code(
    "bad-metadata",
    "the #[metadata] section or a meta[...] reference is malformed",
    "The JSON table after `#[metadata]` is not TVM's object graph, a tensor "
    "blob is corrupt, or a `meta[kind][i]` refers to an entry the table does "
    "not have.",
    "add(meta[relay.Constant][7], 1f)   // the section has 2 constants",
    warning_when="attributes are referred to in a metadata section the file does not have (their defaults are used)",
)
UNBOUND_VARIABLE = Code(
    "unbound-variable",
    "a local variable is used where no binding of it is in scope",
    "`%x` is not a parameter, `let`, pattern variable or graph binding in "
    "scope. A graph binding `%1 = e` is visible only after it, in its own "
    "block (in TVM's format, anywhere later in the file).",
    "def @f() { %y }",
)
FREE_VARIABLE_IN_GLOBAL = Code(
    "free-variable-in-global",
    "a global function uses a variable declared with `free_var`",
    "`free_var %x: T;` declares an input of the file's main expression. A "
    "`def` must not depend on it (TVM refuses to add such a function to a "
    "module): pass the value as a parameter instead.",
    "free_var %x: float32;  def @f() { %x }",
)
UNKNOWN_GLOBAL = Code(
    "unknown-global",
    "a global function is used but never defined",
    "`@f` is defined neither in the file nor in the Prelude.",
    "def @main() { @undefined(1) }",
)
NEAR_MISS_GLOBAL = Code(
    "near-miss-global",
    "a call resolves to the Prelude while the file defines a similar name it never uses",
    "The file calls a Prelude function whose name is one typo away from a "
    "function the file defines but never calls: probably a misspelling.",
    "def @map_accmul(...) { ... }  ... @map_accuml(...)",
    WARNING,
)
UNKNOWN_CONSTRUCTOR = Code(
    "unknown-constructor",
    "an ADT constructor is used but never defined",
    "A capitalised name that is neither a constructor of a `data`/`type` definition nor of the Prelude.",
    "Conss(1, Nil())",
)
UNKNOWN_TYPE = Code(
    "unknown-type",
    "a type name is neither a dtype, a type parameter in scope nor an ADT",
    "Types are dtypes (`float32`, `int`), `Tensor[...]`, tuples, `fn(...) -> T`, "
    "data types and type parameters in scope.",
    "def @f(%x: Tensr[(2), float32]) { %x }",
)
UNKNOWN_OPERATOR = Code(
    "unknown-operator",
    "a name without sigil is neither an operator nor a constructor",
    "A call of a name without `@` or `%` must be a registered operator. "
    "Reported once per name, at its first use, with the number of uses.",
    "frobnicate(%x)",
)
DUPLICATE_DEFINITION = Code(
    "duplicate-definition",
    "the same name is defined twice in one scope",
    "Two globals, parameters, attributes or constructors share a name.",
    "def @f() { 1 }  def @f() { 2 }",
)
UNUSED_BINDING = Code(
    "unused-binding",
    "a graph binding is never used (it is kept as a statement)",
    "A graph binding `%n = e` that nothing refers to is evaluated for its effects only, as `e;` would be.",
    "%0 = add(%x, 1f);  %x",
    WARNING,
)
RENAMED_OPERATOR = Code(
    "renamed-operator",
    "an operator is called by the name (or in the form) an earlier TVM release gave it",
    "The call is read with its old attributes as the current operator (an "
    "`nn.pad` whose pad value is an attribute, as before TVM 0.8, pads with "
    "that value); TVM "
    "0.8 and later know only the new name.",
    'image.resize(%x, size=[8, 8], method="bilinear")   // now image.resize2d',
    WARNING,
)

INVALID_IGNORE = Code(
    "invalid-ignore",
    "a `relay: ignore[...]` comment names a code that does not exist",
    "A comment `// relay: ignore[code, ...]` (or `#`, or `/* */`) silences "
    "the warnings with those codes on its line, or on the next line when the "
    "comment stands alone on its line; `relay: ignore` without a list "
    "silences every warning there. Errors are never silenced. A name that is "
    "not a diagnostic code silences nothing and gets this warning.",
    "let %x = 1;  // relay: ignore[unused-bindng]",
    WARNING,
)

BIDI_CONTROL_CHARACTER = Code(
    "bidi-control-character",
    "a comment or string holds an invisible character that reorders the text around it",
    "Bidirectional-text controls (U+202A to U+202E, U+2066 to U+2069) make "
    "an editor show the characters around them in another order than they "
    "are read, so a comment or string holding one can hide code, or show "
    "code that is not there. Diagnostics show such a character as U+FFFD "
    "and name it. Remove it unless the text really needs it.",
    "// check access<U+202E> } if (%admin) {    (<U+202E> standing for the raw character)",
    WARNING,
)

# ---------------------------------------------------------------- types

TYPE_MISMATCH = Code(
    "type-mismatch",
    "two types that must be equal differ",
    "A value has another type than where it is used requires (an argument, a "
    "branch of `if`, a return type, an operator's input). The note says which "
    "part differs and where the expectation came from.",
    "def @f(%x: float32) -> int32 { %x }",
)
SHAPE_MISMATCH = Code(
    "shape-mismatch",
    "tensor shapes are incompatible",
    "An operator's type relation cannot hold for the shapes given: the message names the axis and the sizes.",
    "add(%a, %b)   // Tensor[(2, 3), f32] and Tensor[(4), f32]",
)
ARITY_MISMATCH = Code(
    "arity-mismatch",
    "a call passes the wrong number of arguments",
    "A function, constructor or operator is called with more or fewer arguments (or type arguments) than it takes.",
    "nn.relu(%x, %x)",
)
CONSTRUCTOR_ARITY = Code(
    "constructor-arity",
    "a constructor pattern has the wrong number of fields",
    "A pattern `C(p1, ...)` lists another number of fields than `C` has.",
    "match (%l) { case Cons(%h) { %h } ... }",
)
OCCURS_CHECK = Code(
    "occurs-check",
    "a type would have to contain itself",
    "Inference would need a type equal to a type that contains it, such as "
    "`a = List[a]`: usually a function applied to itself or a list put in itself.",
    "fn (%f) { %f(%f) }",
)
KIND_ERROR = Code(
    "kind-error",
    "a type parameter is used where its kind does not allow",
    "Type parameters have kinds: `Type`, `BaseType` (a dtype), `Shape`, "
    "`ShapeVar` (one dimension); each may stand only where its kind fits.",
    "fn<s : Shape>(%x : s) { %x }",
)
UNRESOLVED_TYPE = Code(
    "unresolved-type",
    "inference could not determine a type",
    "Nothing in the program fixes this type (often a constant without "
    "metadata, or a value never used). Annotate it or use it.",
    "let %x = meta[relay.Constant][0]; ()",
    warning_when="only constants are unknown, for want of the metadata section the file does not have",
)
NON_EXHAUSTIVE_MATCH = Code(
    "non-exhaustive-match",
    "a match does not cover every value of its type",
    "The message names a value no clause accepts. Add a clause, or write "
    "`match?` for a match allowed to be incomplete.",
    "match (%l) { case Cons(%h, _) { %h } }",
)
UNREACHABLE_CLAUSE = Code(
    "unreachable-clause",
    "a match clause can never be chosen",
    "Earlier clauses accept every value this clause would.",
    "match (%x) { case _ { 1 } case Nil() { 2 } }",
    WARNING,
)
UNKNOWN_ATTRIBUTE = Code(
    "unknown-attribute",
    "an operator call passes an attribute the operator does not have",
    "The attribute key is not in the operator's schema (TVM's names); the help suggests close names.",
    "nn.conv2d(%x, %w, stride=[2, 2])   // strides",
)
MISSING_ATTRIBUTE = Code(
    "missing-attribute",
    "an operator call omits an attribute that has no default",
    "The operator needs this attribute to be given.",
    "reshape(%x)   // newshape=[...]",
)
UNKNOWN_RELATION = Code(
    "unknown-relation",
    "a where clause names a relation that does not exist",
    "The relations a `where` clause can name are the operators' relations "
    "that take no attributes (`Broadcast`, `Identity`, ...).",
    "fn (%x, %y) where Brodcast { ... }",
)

# ---------------------------------------------------------------- evaluation

RECURSION_LIMIT = Code(
    "recursion-limit",
    "evaluation recursed deeper than the configured limit",
    "More nested calls than `--max-depth` allows (default 2,000,000).",
    "def @loop(%n: int32) -> int32 { @loop(%n) }",
)
MATCH_FAILURE = Code(
    "match-failure",
    "no clause of a match accepted the value",
    "Possible only under `match?`: the value is shown with the constructor no clause accepts.",
    "@hd(Nil())",
)
DIVISION_BY_ZERO = Code(
    "division-by-zero",
    "integer division or modulo by zero",
    "Integer `/`, `%`, `floor_divide`, ... by zero (float division gives inf or nan).",
    "divide(1, 0)",
)
BAD_ARGUMENT = Code(
    "bad-argument",
    "an argument given on the command line does not fit the entry point",
    "An `--arg`, `--args` or Python value is missing, unknown or of another type than the parameter.",
    "relay run --arg x=1.5 f.rly   // %x : int32",
)
RUNTIME_ERROR = Code(
    "runtime-error",
    "an operator failed while running",
    "A value-dependent failure: an index out of range, a value whose shape "
    "does not match its declared type, a dtype this evaluator cannot hold.",
    'take(%x, 7, mode="fast")   // %x has 3 elements',
)

RESOURCE_LIMIT = Code(
    "resource-limit",
    "the program asks for more than a documented limit allows",
    "A tensor with more elements or dimensions than the limits allow, a number "
    "literal with too many digits, an allocation larger than `relay run "
    "--max-memory`, or a run longer than `--timeout`. The documentation's "
    "Limits page (docs/limits.md) lists each limit, its default and how to "
    "change it.",
    "Constant(0, (65536, 65536, 65536), float32)",
)

# ---------------------------------------------------------------- export

EXPORT_UNSUPPORTED = Code(
    "export-unsupported",
    "the program uses something ONNX cannot express",
    "`relay export` (and `relay run --engine onnxruntime`) turn the dataflow of "
    "a program into an ONNX graph. Data types and pattern matching, references, "
    "recursion that is not a loop, closures that escape (returned, stored in a "
    "tuple, passed to an operator), dtypes ONNX lacks and operators that have no "
    "ONNX equivalent (docs/commands/export.md) cannot be exported; the "
    "diagnostic points at the construct. A recursive function whose body is "
    "`if (cond) { ...; f(next) } else { result }` is exported as an ONNX `Loop`.",
    "def @main(%x: Tensor[(2), float32]) { ref(%x) }   // references",
)

# ---------------------------------------------------------------- models in (`relay import`)

IMPORT_UNSUPPORTED = Code(
    "import-unsupported",
    "a model uses an operator, attribute or value that cannot be imported",
    "`relay import` converts each node of a model into calls of Relay's "
    "operators. A node whose operator has no converter at the model's opset, "
    "an attribute value the converter cannot express, or an input that must be "
    "known when the model is imported but is computed at run time, stops the "
    "import. The diagnostic names the node, its operator and the opset, and "
    "points at the node in the model's listing (`relay import --list-nodes "
    "MODEL.onnx`).",
    "relay import model.onnx   // node `stft_0` uses STFT, which has no converter",
)
IMPORT_INVALID = Code(
    "import-invalid",
    "a model file cannot be read, or is not a valid model",
    "The file is not an ONNX model (or a `torch.export` program), is damaged, or refers to values no node computes.",
    "relay import notes.txt",
)

# ---------------------------------------------------------------- formatter and the toolchain

UNFORMATTABLE = Code(
    "unformattable",
    "the formatter cannot express the program in the requested dialect",
    "TVM's format cannot write some forms of the documented syntax (`where` "
    "clauses, kinds, explicit type arguments, `Constant(...)`).",
    "relay fmt --dialect tvm f.rly   // f.rly uses `where Broadcast`",
)
PASS_FAILED = Code(
    "pass-failed",
    "a pass of `relay opt` cannot transform the program",
    "A transformation needs something the program does not give it: "
    "`gradient` an operator it has no derivative for, or a function whose "
    "parameters are not all tensors; a pass that needs types a program "
    "that does not type-check. The message names the pass and where.",
    "relay opt --passes gradient f.rly   // @main calls argmax",
)
PASS_WARNING = Code(
    "pass-warning",
    "a pass of `relay opt` made a choice worth knowing about",
    "The program was transformed, but the pass had to decide something its "
    "rules do not cover: `ToMixedPrecision` meeting an operator in none of "
    "its lists runs it where its arguments are (as TVM's FOLLOW).",
    "relay opt --passes ToMixedPrecision f.rly   // f.rly calls nn.lrn",
    severity=WARNING,
)
INTERNAL_ERROR = Code(
    "internal-error",
    "the toolchain failed; please report it",
    "A bug in relay-text. With `--debug` (or RELAY_DEBUG=1) the traceback is shown.",
)

# The name -> description table of earlier releases.
CODES: dict[str, str] = {name: code.summary for name, code in REGISTRY.items()}


def describe(code: str) -> str:
    return REGISTRY[code].summary


def lookup(name: str) -> Code | None:
    """The code called `name`, or None."""
    return REGISTRY.get(name)
