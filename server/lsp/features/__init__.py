"""One module per editor feature. Every module here is imported by `create_server()` and must
define `register(ls: RelaviumLanguageServer) -> None`; see `server/__init__.py`."""
