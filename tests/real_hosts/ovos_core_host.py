"""A real voice assistant for the tests: ovos-messagebus, the ovos-core skills service with the
ovos-persona pipeline plugin, and the ovos-audio service, on 127.0.0.1, with a private home, stopped
by their PID.

The audio service (``audio_service.py``: ovos-audio's own service, speaking every session, not only
the device's ``default`` one) speaks with ovos-tts-plugin-espeakng (Debian's espeak-ng writes a WAV file, no
network) and plays nothing: its play command is ``true``, which exits at once, so no sound card, ALSA
or PulseAudio is needed. Everything else is as on a device: it synthesises each ``speak``, and emits
the start and end of audio output (``ovos.audio.output.ended``) in that speak's context.

The persona lives where a user puts one (``$XDG_CONFIG_HOME/ovos_persona/``); its handler is
``ovos-react-loop`` and its brain ``ovos-openai-brain``, aimed at a scripted model that runs in the
test process. The test talks to the assistant as a voice client does: it sends
``recognizer_loop:utterance`` with a session, and reads what leaves on the bus.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import shutil
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from host_processes import LOCALHOST, HostHome, HostProcess, free_port, make_home, wait_for, wait_for_port
from optional_packages import NEED_ALL, need_all
from ovos_bus_client import Message, MessageBusClient

#: The distributions this host needs, as scripts/bootstrap installs them.
NEEDED = {
    "ovos_core": "ovos-core==3.7.5a1",
    "ovos_persona": "ovos-persona==0.9.0a35",
    "ovos_messagebus": "ovos-messagebus==0.2.1a6",
    "ovos_yes_no": "ovos-yes-no-plugin>=0.3.0",  # the loop reads a spoken yes or no with it
    "ovos_audio": "ovos-audio==2.2.9a1",
    "ovos_tts_plugin_espeakng": "ovos-tts-plugin-espeakng==0.1.0a5",
}
INSTALL = (
    "pip install --pre ovos-core==3.7.5a1 ovos-persona==0.9.0a35 ovos-messagebus==0.2.1a6 "
    "'ovos-yes-no-plugin>=0.3.0' ovos-audio==2.2.9a1 ovos-tts-plugin-espeakng==0.1.0a5, then "
    "pip install --pre 'ovos-plugin-manager>=3.1.0a1', and espeak-ng (Debian: apt-get install "
    "espeak-ng) (scripts/bootstrap does all three)"
)
#: ovos-audio's service, speaking every session (see the file).
AUDIO_SERVICE = Path(__file__).resolve().parent / "audio_service.py"
#: The TTS plugin's program: it writes each sentence to a WAV file.
ESPEAK = "espeak-ng"
PERSONA = "Tessa"
#: A second persona (the same loop, another section): a yes to one persona's question may land on the other.
OTHER_PERSONA = "Nova"
#: A third one that runs a slow program (ovos-shell-tools, ``sleep`` only) without asking, one call at
#: a time, and says a progress line after 1 s of silence: "ask sol about ..." reaches it.
SLOW_PERSONA = "Sol"
#: Its progress line (the persona's own ``progress_lines``), in every language.
SLOW_LINE = "Still working on it."
#: What the skills service may take to load its pipelines and our engine on a slow, busy machine.
READY_TIMEOUT = 120.0
#: One spoken turn: host, loop and a scripted model; generous for 2 busy cores.
TURN_TIMEOUT = 45.0
SPEAK = "ovos.utterance.speak"  # the canonical topic; the legacy ``speak`` twin is not counted twice
HANDLED = "ovos.utterance.handled"  # OVOS-PIPELINE-1's end marker of one utterance's lifecycle

#: The persona stages between ovos-core's own: stop first, so "stop" never reaches a persona.
PIPELINE = [
    "ovos-stop-pipeline-plugin-high",
    "ovos-converse-pipeline-plugin",
    "ovos-persona-pipeline-plugin-high",
    "ovos-fallback-pipeline-plugin-high",
    "ovos-stop-pipeline-plugin-medium",
    "ovos-persona-pipeline-plugin-medium",
    "ovos-fallback-pipeline-plugin-medium",
    "ovos-persona-pipeline-plugin-low",
    "ovos-fallback-pipeline-plugin-low",
]


def require_voice_assistant() -> None:
    """Skips the calling test module when a host package is missing; fails it under ``NEED_ALL``
    (``scripts/check`` installs them all, so its run can never pass by skipping)."""
    __tracebackhide__ = True
    missing = [dist for module, dist in NEEDED.items() if importlib.util.find_spec(module) is None]
    if shutil.which(ESPEAK) is None:
        missing.append(ESPEAK)
    if not missing:
        return
    reason = f"needs the voice assistant's hosts, missing: {', '.join(missing)}; install: {INSTALL}"
    if need_all():
        pytest.fail(f"{reason}; {NEED_ALL}=1 asks for every optional package", pytrace=False)
    pytest.skip(reason, allow_module_level=True)


def mycroft_conf(port: int, closed_port: int) -> dict[str, Any]:
    """The user's mycroft.conf: the bus on 127.0.0.1, the persona stages, and no public host probed.

    ``network_tests`` is what ovos-utils' connectivity checks reach (an IP lookup, two DNS servers,
    two web pages, a captive-portal page): every one points at a closed port here.
    """
    nowhere = f"http://{LOCALHOST}:{closed_port}/"
    return {
        "websocket": {"host": LOCALHOST, "port": port, "route": "/core", "ssl": False},
        "lang": "en-US",
        # ovos-core keeps a session's lang only when it is an enabled language.
        "secondary_langs": ["pt-PT"],
        "network_tests": {
            "ip_url": nowhere,
            "dns_primary": LOCALHOST,
            "dns_secondary": LOCALHOST,
            "web_url": nowhere,
            "web_url_secondary": nowhere,
            "captive_portal_url": nowhere,
            "captive_portal_text": "never served",
        },
        "intents": {
            "pipeline": PIPELINE,
            # Read by ovos-plugin-manager's pipeline factory as intents[<plugin id>].
            "ovos-persona-pipeline-plugin": {
                "handle_fallback": True,
                "default_persona": PERSONA,
                # Installed plugins ship personas too (ovos-openai-plugin's "Remote Llama"): only ours here.
                "ignore_plugin_personas": True,
            },
        },
        "skills": {"installer": {"allow_pip": False, "allow_alphas": False}},
        # The audio service: espeak-ng writes each sentence to a WAV file; playing it is ``true FILE``
        # (ovos-utils' play_audio runs this command line), which needs no sound device. No fallback TTS.
        "tts": {
            "module": "ovos-tts-plugin-espeakng",
            "fallback_module": "",
            "ovos-tts-plugin-espeakng": {},
        },
        "play_wav_cmdline": "true %1",
        "play_mp3_cmdline": "true %1",
        "play_ogg_cmdline": "true %1",
        "Audio": {"backends": {}},
    }


def persona(model_url: str, files: Path, name: str = PERSONA) -> dict[str, Any]:
    """The persona a user would write: our loop, its brain on the scripted model, two toolboxes
    (``SLOW_PERSONA``: three, with the shell's ``sleep``; no confirmations; progress after 1 s)."""
    if name == SLOW_PERSONA:
        return {
            "name": name,
            "handlers": ["ovos-react-loop"],
            "ovos-react-loop": {
                "brain": "ovos-openai-brain",
                "ovos-openai-brain": {"api_url": model_url, "max_retries": 0, "timeout": 30},
                "toolboxes": ["ovos-math-tools", "ovos-filesystem-tools", "ovos-shell-tools"],
                "ovos-filesystem-tools": {"root_path": str(files), "allow_write": True},
                "ovos-shell-tools": {
                    "root_path": str(files),
                    "allow_shell": True,
                    "allowed_commands": ["sleep"],
                },
                "confirm_side_effects": False,
                "max_parallel_tools": 1,  # a model's calls run one after another
                "progress_delay": 1,
                "progress_lines": {"run_command": SLOW_LINE},
                "system_prompt": f"You are {name}, a voice assistant. Answer in one or two short sentences.",
            },
        }
    return {
        "name": name,
        "handlers": ["ovos-react-loop"],
        "ovos-react-loop": {
            "brain": "ovos-openai-brain",
            "ovos-openai-brain": {"api_url": model_url, "max_retries": 0, "timeout": 30},
            "toolboxes": ["ovos-math-tools", "ovos-filesystem-tools"],
            "ovos-filesystem-tools": {"root_path": str(files), "allow_write": True},
            "confirm_side_effects": True,
            "system_prompt": f"You are {name}, a voice assistant. Answer in one or two short sentences.",
        },
    }


@dataclass(frozen=True)
class Heard:
    """One message that went over the bus, as the test's client saw it."""

    type: str
    data: dict[str, Any]
    context: dict[str, Any]
    at: float  # time.monotonic() on arrival

    @property
    def session_id(self) -> str | None:
        session = self.context.get("session") or {}
        return session.get("session_id") if isinstance(session, dict) else None

    @property
    def utterance_id(self) -> str | None:
        """The lifecycle ovos-core stamped this message with (OVOS-PIPELINE-1 §9.1.1)."""
        value = self.context.get("utterance_id")
        return value if isinstance(value, str) else None

    def quotes(self, utterance: str) -> bool:
        return self.utterance_id is not None and (
            self.data.get("utterance") == utterance or self.data.get("utterances") == [utterance]
        )


class BusRecorder:
    """Every message on the bus, from the raw firehose (one frame per logical emit, no twins)."""

    def __init__(self, client: MessageBusClient) -> None:
        self._lock = threading.Lock()
        self._heard: list[Heard] = []
        client.on("message", self._on_message)

    def _on_message(self, raw: str) -> None:
        try:
            frame = json.loads(raw)
        except ValueError:
            return
        heard = Heard(
            frame.get("type", ""), frame.get("data") or {}, frame.get("context") or {}, time.monotonic()
        )
        with self._lock:
            self._heard.append(heard)

    def mark(self) -> int:
        with self._lock:
            return len(self._heard)

    def since(self, mark: int) -> list[Heard]:
        with self._lock:
            return list(self._heard[mark:])

    def wait(self, what: str, mark: int, found: Callable[[list[Heard]], bool], timeout: float) -> list[Heard]:
        """The messages since ``mark`` once ``found`` holds for them; fails after ``timeout``."""
        return wait_for(
            what, lambda: (lambda heard: heard if found(heard) else None)(self.since(mark)), timeout
        )


@dataclass(frozen=True)
class Sent:
    """An utterance on its way: where the recording stood when it was sent, and when."""

    utterance: str
    session_id: str
    mark: int
    at: float


@dataclass
class Turn:
    """What left the bus for one utterance, up to its end marker."""

    utterance: str
    messages: list[Heard]
    sent_at: float

    @property
    def speaks(self) -> list[Heard]:
        return [m for m in self.messages if m.type == SPEAK]

    @property
    def spoken(self) -> list[str]:
        return [str(m.data.get("utterance", "")) for m in self.speaks]

    def types(self) -> list[str]:
        return [m.type for m in self.messages]


@dataclass
class VoiceAssistant:
    home: HostHome
    files: Path
    bus: HostProcess
    core: HostProcess
    audio: HostProcess
    client: MessageBusClient
    recorder: BusRecorder
    #: The session each voice client holds, as the assistant last sent it back (persona_id and all).
    sessions: dict[str, dict[str, Any]] = field(default_factory=dict)

    def send(self, utterance: str, session_id: str, lang: str = "en-US") -> Sent:
        """Sends one utterance as a voice client does (its session, as last sent back, and ``lang``)."""
        session = dict(self.sessions.get(session_id) or {"session_id": session_id})
        session["lang"] = lang
        sent = Sent(utterance, session_id, self.recorder.mark(), time.monotonic())
        self.client.emit(
            Message(
                "recognizer_loop:utterance",
                {"utterances": [utterance], "lang": lang},
                {"session": session, "source": "test-client", "destination": ["skills"]},
            )
        )
        return sent

    def finish(self, sent: Sent, timeout: float = TURN_TIMEOUT) -> Turn:
        """Waits for the end marker of ``sent`` and returns what its lifecycle put on the bus.

        ovos-core stamps each utterance's lifecycle with a fresh ``utterance_id`` (any id a client
        sends is replaced), so the lifecycle is found by its first message that quotes the utterance;
        an utterance said while another one is still answered does not mix with it.
        """

        def lifecycle(heard: list[Heard]) -> list[Heard] | None:
            ids = [
                m.utterance_id for m in heard if m.session_id == sent.session_id and m.quotes(sent.utterance)
            ]
            if not ids or ids[0] is None:
                return None
            own = [m for m in heard if m.utterance_id == ids[0]]
            return own if any(m.type == HANDLED for m in own) else None

        messages = wait_for(
            f"the end of {sent.utterance!r}", lambda: lifecycle(self.recorder.since(sent.mark)), timeout
        )
        # A voice client keeps the session the assistant sends back (a summon sets its persona_id).
        for message in messages:
            session = message.context.get("session")
            if isinstance(session, dict) and session.get("session_id") == sent.session_id:
                self.sessions[sent.session_id] = session
        self.core.require_running()
        return Turn(sent.utterance, messages, sent.at)

    def say(
        self, utterance: str, session_id: str, lang: str = "en-US", timeout: float = TURN_TIMEOUT
    ) -> Turn:
        """One whole turn: the utterance sent, and everything its lifecycle put on the bus."""
        return self.finish(self.send(utterance, session_id, lang), timeout)

    def ask(self, msg_type: str, data: dict[str, Any] | None = None, timeout: float = 10) -> Message | None:
        return self.client.wait_for_response(Message(msg_type, data or {}), timeout=timeout)


def _ready(assistant: VoiceAssistant) -> bool | None:
    """The skills service is ready (its intent service has loaded every pipeline), and the persona
    pipeline has our persona. (Stopped before it is ready, the skills service did not exit on SIGTERM.)

    Once the pipelines are loaded the persona list is final: a persona missing from it failed to
    load (ovos-persona logs why and goes on), so that fails at once, with ovos-persona's reason.
    """
    for service in ("mycroft.intents.is_ready", "mycroft.skills.is_ready"):
        status = assistant.ask(service, timeout=3)
        if status is None or not status.data.get("status"):
            return None
    reply = assistant.ask("ovos.persona.list", timeout=3)
    if reply is None:
        return None
    names = [p.get("persona_id") for p in reply.data.get("personas", [])]
    if all(name in names for name in (PERSONA, OTHER_PERSONA, SLOW_PERSONA)):
        return True
    log = assistant.core.log_path.read_text(errors="replace").splitlines()
    why = [line for line in log if "Failed to load" in line] or log[-20:]
    raise AssertionError(
        f"ovos-persona did not load {PERSONA}, {OTHER_PERSONA} and {SLOW_PERSONA} (it has {names}):\n"
        + "\n".join(why)
    )


def _audio_ready(assistant: VoiceAssistant) -> bool | None:
    """The audio service has loaded its TTS (it says not ready, and logs why, when none loads)."""
    status = assistant.ask("mycroft.audio.is_ready", timeout=3)
    return True if status is not None and status.data.get("status") else None


@contextlib.contextmanager
def running_assistant(base: Path, model_url: str) -> Iterator[VoiceAssistant]:
    """ovos-messagebus, then the audio service (``ovos_audio``) and the skills service (``ovos_core``:
    no installer, no file watcher), all from ``/`` with the private home; ready once the audio
    service says so and the persona pipeline lists our personas."""
    home = make_home(base)
    files = base / "files"
    files.mkdir()
    port = free_port()
    home.write_mycroft_conf(mycroft_conf(port, free_port()))
    persona_dir = home.home / ".config" / "ovos_persona"
    persona_dir.mkdir(parents=True)
    for name in (PERSONA, OTHER_PERSONA, SLOW_PERSONA):
        (persona_dir / f"{name.lower()}.json").write_text(
            json.dumps(persona(model_url, files, name), indent=2)
        )
    env = dict(
        home.env, XDG_DATA_HOME=str(home.home / ".local" / "share"), XDG_CACHE_HOME=str(home.home / ".cache")
    )
    env["XDG_STATE_HOME"] = str(home.home / ".local" / "state")
    started: list[HostProcess] = []
    client: MessageBusClient | None = None
    try:
        bus = HostProcess("ovos-messagebus", [sys.executable, "-m", "ovos_messagebus"], env, base)
        started.append(bus)
        wait_for_port(port, bus)
        audio = HostProcess("ovos-audio", [sys.executable, str(AUDIO_SERVICE)], env, base)
        started.append(audio)
        core = HostProcess(
            "ovos-core",
            [sys.executable, "-m", "ovos_core", "--disable-installer", "--disable-file-watcher"],
            env,
            base,
        )
        started.append(core)
        client = MessageBusClient(host=LOCALHOST, port=port, route="/core")
        client.run_in_thread()
        assert client.connected_event.wait(15), "the test's bus client did not connect"
        assistant = VoiceAssistant(home, files, bus, core, audio, client, BusRecorder(client))
        wait_for("the audio service ready", lambda: _audio_ready(assistant), READY_TIMEOUT, audio)
        wait_for(f"the intent service ready with {PERSONA}", lambda: _ready(assistant), READY_TIMEOUT, core)
        yield assistant
    finally:
        if client is not None:
            client.close()
        for host in reversed(started):
            host.stop()
