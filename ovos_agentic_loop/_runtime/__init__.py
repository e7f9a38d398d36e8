"""What the engine runs on: the daemon pool, cancellation, loading the brain and the toolboxes,
closing them, OVOS log lines, the session key and the loops' entry-point names."""
