"""Editor support: the `relay lsp` language server.

    server      the pygls server: document sync, debounced checking, requests
    document    one version of a document, checked, with its tokens and names
    tokens      a tolerant tokenizer (never fails on text being typed)
    names       every name of a document and what it refers to
    positions   character offsets <-> LSP positions (UTF-16 by default)
    diagnostics relay-text diagnostics as LSP diagnostics
    hover, definitions, symbols, completion, semantic_tokens, formatting
                one module per feature

Only `server` (and the feature modules) need pygls/lsprotocol
(`pip install 'relay-text[lsp]'`); `tokens`, `names`, `positions` and
`document` are plain Python.
"""
