"""Editor logic as plain data: completion, hover text, navigation and rename, outline, highlighting
and the node under the cursor. The server only translates it to LSP."""
