"""`python -m relay_text`: the `relay` command."""

from .launch import main

if __name__ == "__main__":
    main(prog_name="relay")
