"""Relay IR to text, in the documented dialect or in TVM's 0.0.5 format.

The stages of printing, one module each:

- `sharing`: which nodes are bound to `%n` temporaries, and in which scope;
- `comments` and `trivia`: which element each comment of the source goes with;
- `state`, `forms`, `signatures`, `blocks`, `expressions`, `definitions`:
  the printer, building a document (one layer each: comments around
  elements, atoms and the author's form, binders and types, scopes, one
  rule per IR class, whole files);
- `types`: written types as documents;
- `dialects`: what each dialect can write;
- `layout`: the document algebra and its layout to a line width;
- `naming`: names settled in text order while the document is laid out;
- `render`: the entry points (`render_module`, `print_module`, `print_expr`).
"""
