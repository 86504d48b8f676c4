"""The checks: `analyze()`, the context rules read, the registry, suppression, and the rules
themselves under `rules/<family>/<rule_id>.py`."""
