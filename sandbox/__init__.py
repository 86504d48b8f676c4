"""The capped QuickJS expression sandbox (the engine's expression contract)."""
