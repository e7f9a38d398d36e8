"""The shipped personas (data only): installed as ``ovos_agentic_loop.shipped_personas`` and read with
``importlib.resources`` by :mod:`ovos_agentic_loop.personas`, so ``ovos-agentic-loop chat NAME`` finds
them from any folder, in a wheel install as in a checkout."""
