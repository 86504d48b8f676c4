"""Dry runs: the samples, the engine's scope for one node, the run loop, and what a run shows."""
