"""`python -m relay_text`: the `relay` command."""

from .cli import main

if __name__ == "__main__":
    main(prog_name="relay")
