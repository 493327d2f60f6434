"""Game engines: pure, synchronous, deterministic `(state, event) -> (state, outputs)`."""
