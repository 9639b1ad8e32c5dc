"""`python -m relay_text.ops`: rewrite the generated index of operators
(`_index.py`, operator name -> the family module registering it) from the
registry. Run it after adding, renaming or moving an operator;
tests/ops/test_index.py fails, naming this command, while it is stale."""

from __future__ import annotations

from pathlib import Path

from relay_text.ops import registry


def main() -> None:
    path = Path(registry.__file__).with_name("_index.py")
    text = registry.index_text()
    if path.read_text(encoding="utf-8") == text:
        print(f"{path} is current")
        return
    path.write_text(text, encoding="utf-8")
    print(f"{path} rewritten: {len(registry.names())} operators")


if __name__ == "__main__":
    main()
