"""The ovos-audio service for the tests: ``ovos_audio.__main__.main`` as it is, but with
``validate_source=False``, then runs until SIGTERM. Run it with ``/`` as the working folder, as a
service is.

Left at its default, ovos-audio speaks only the device's own session (``default``) and drops every
other ``speak`` ("not from a native audio source"); the tests give each test a session of its own, so
the service here speaks every session, as a host that serves remote voice clients does. Everything
else is ovos-audio's own: the TTS plugin and the play command from mycroft.conf, the playback
thread, and the start and end of output it emits in each speak's context.
"""

from __future__ import annotations

from ovos_audio.service import PlaybackService, on_error, on_ready, on_stopping
from ovos_utils import wait_for_exit_signal
from ovos_utils.log import init_service_logger
from ovos_utils.process_utils import reset_sigint_handler


def main() -> None:
    reset_sigint_handler()
    init_service_logger("audio")
    service = PlaybackService(
        ready_hook=on_ready, error_hook=on_error, stopping_hook=on_stopping, validate_source=False
    )
    service.daemon = True
    service.start()
    wait_for_exit_signal()
    service.shutdown()


if __name__ == "__main__":
    main()
