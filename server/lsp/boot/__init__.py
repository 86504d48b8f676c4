"""What `relavium-lsp serve` runs before the server is loaded: reading the client's frames
(`transport`) and answering its `initialize` (`early_initialize`). Stdlib only: nothing here may
import pygls, lsprotocol, the analysis or the rest of the server, which take a second to load."""
