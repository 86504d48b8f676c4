"""Pure workflow analysis (no pygls, no lsprotocol): what a document is, its schema, the checks,
the editor logic, dry runs and the project's files. docs/architecture.md maps the rooms."""
