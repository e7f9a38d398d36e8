"""A program that uses our engine the way a host does, then ends: ``mcp_host.py PERSONA MODE``.

It builds the persona's engine (ovos-persona's way: the handler's class with its section), prints
one JSON line (the tools it got), then, by MODE:
  ``shutdown``: calls ``engine.shutdown()`` and exits; exit code 5 if the engine has none;
  ``exit``:     just exits, as a host that never closes anything does.
The test then looks for any process the engine's toolboxes started that outlived this program.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ovos_agentic_loop.personas import Persona, build_engine

NO_SHUTDOWN = 5


def main(persona_path: str, mode: str) -> int:
    data = json.loads(Path(persona_path).read_text())
    engine = build_engine(Persona(persona_path, data))
    tools = sorted(name for toolbox in engine.toolboxes for name in toolbox.tools)
    print(json.dumps({"tools": tools}), flush=True)
    if mode == "shutdown":
        shutdown = getattr(engine, "shutdown", None)
        if shutdown is None:
            print("the engine has no shutdown()", file=sys.stderr, flush=True)
            return NO_SHUTDOWN
        shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
