"""Text to IR (the parser) and IR to text (the printer)."""
