"""pygls language server and the relavium-lsp command line (protocol glue only)."""
