"""The `relavium-lsp` program: the command line (`cli/`) and the language server (`lsp/`)."""
