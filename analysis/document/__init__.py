"""What a workflow document is: its text and positions, the YAML tree, the typed model, the
dependency graph, templates and the embedded JavaScript expressions."""
