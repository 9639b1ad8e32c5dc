"""The builder's layers (see `relay_text.syntax.builder`)."""
