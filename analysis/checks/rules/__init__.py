"""One module per rule, in one folder per family (the sections of docs/rules.md); the registry
lists them."""
