"""A PHAL service for the tests: loads ovos-PHAL-plugin-tools the way the ovos-PHAL service loads its
plugins (``opm.phal`` entry point, its section of mycroft.conf's ``PHAL`` block, the service's bus
client), then runs until SIGTERM. Run it with ``/`` as the working folder, as a service is.

The messagebus host and port come from mycroft.conf (``websocket``), like every OVOS service.
"""

from __future__ import annotations

import sys

from ovos_bus_client import MessageBusClient
from ovos_config.config import Configuration
from ovos_plugin_manager.phal import find_phal_plugins
from ovos_utils import wait_for_exit_signal

PLUGIN = "ovos-phal-plugin-tools"


def main() -> int:
    bus = MessageBusClient()  # websocket host/port from mycroft.conf
    bus.run_in_thread()
    if not bus.connected_event.wait(30):
        print("phal-service: no messagebus within 30 s", file=sys.stderr, flush=True)
        return 2
    plugins = find_phal_plugins()
    if PLUGIN not in plugins:
        print(
            f"phal-service: {PLUGIN} is not installed (found {sorted(plugins)})", file=sys.stderr, flush=True
        )
        return 3
    config = Configuration().get("PHAL", {}).get(PLUGIN, {})
    plugins[PLUGIN](bus=bus, config=config)
    print("phal-service: ready", flush=True)
    wait_for_exit_signal()
    bus.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
