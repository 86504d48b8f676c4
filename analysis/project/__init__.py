"""The project around the documents: which files are workflows or agents (`kinds`), folder walks
and ignore patterns, and the project configuration."""
