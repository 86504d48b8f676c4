"""The project around the documents: which files are workflows, folder walks and ignore patterns,
and the project configuration."""
