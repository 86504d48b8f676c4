"""Relavium workflow analysis: YAML model with positions, dependency graph, checks (pure)."""
