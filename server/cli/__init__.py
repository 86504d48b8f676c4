"""The command line: one module per subcommand (listed in `main.SUBCOMMANDS`), and the output
formats of `check`. Imports nothing of the language server."""
