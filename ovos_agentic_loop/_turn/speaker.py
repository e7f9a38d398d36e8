"""What a turn says, in one object the turn owns: the stream gate of its latest spoken model call,
the decision to hold a reply back or let it out, and what has been said.

The other jobs of a turn speak through its verbs: a model call starts a reply (:meth:`Speaker.reply`)
and hears its deltas, then ends it; a job that replaces a held reply drops it
(:meth:`Speaker.drop_held`); the endings read what was spoken (:meth:`Speaker.spoken`) and the engine
the rest to say once the turn is over (:meth:`Speaker.rest`). No other module reads or writes the
gate (``tests/test_speaker_owns_gate.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from ovos_agentic_loop._text.protocol import CALL_NAME_SPAN, call_being_written, names_tool
from ovos_agentic_loop._text.stream_gate import MAX_STREAMED_CHARS, FinalAnswerGate, Speech
from ovos_agentic_loop.messages import CallNamed

__all__ = ["Calling", "Gate", "Pass", "Say", "Speaker", "Utterance"]


class Gate(Protocol):
    """What of a reply's streamed text a caller of a model call lets through, before the turn's gate."""

    def feed(self, delta: str) -> str: ...


#: What a turn is told of a call its model is still writing: the tool's name, and how to read the
#: reply written so far.
Calling = Callable[[str, Callable[[], str]], None]


class Pass:
    """The gate of a reply whose every part may be an answer: the turn's own gate alone decides."""

    def feed(self, delta: str) -> str:
        return delta


@dataclass(frozen=True)
class Say:
    """How one model call's reply is spoken. ``gate`` decides what of the streamed text may be
    said, before the turn's own gate (protocol is never spoken). ``hold``: the reply is the turn's
    to speak, but only once the turn is over (:meth:`Speaker.rest`), or once ``release`` says so of
    the reply written so far (its deltas then go through the gates as if never held). ``calling``
    is told, once, when the reply names one of ``tools`` in a call it is still writing: the tool's
    name, and how to read the reply written so far (for the call's arguments, as far as written)."""

    gate: Gate
    hold: bool = False
    release: Callable[[str], bool] | None = None
    tools: Sequence[str] = ()
    calling: Calling | None = None


class Utterance:
    """One model call's reply as it is spoken: feed it the deltas, then end it."""

    def __init__(self, voice: FinalAnswerGate, say: Say | None) -> None:
        self._voice = voice
        self._say = say
        self._hold = say is not None and say.hold
        self._written = ""  # the reply so far, while it is held and may be released
        self._calling = say.calling if say is not None and say.tools else None
        self._watched = ""  # the reply so far, while the turn wants to hear of a call in it
        self._told = False  # the turn was told of a call being written

    @property
    def spoken_chars(self) -> int:
        """How many characters of this reply went out, separators included."""
        return self._voice.passed_chars

    def hear(self, delta: str | CallNamed) -> str:
        """What of ``delta`` may be said now ("" while the reply is held, and for a native call's
        name: never said, but the turn is told of the call as of one written in the text)."""
        say = self._say
        if say is None:
            return ""
        if isinstance(delta, CallNamed):
            if self._calling is not None and delta.name in say.tools:
                self._tell(self._calling, delta.name)
            return ""
        if self._calling is not None and len(self._watched) < MAX_STREAMED_CHARS:
            self._watch(self._calling, say.tools, delta)
        if not self._hold:
            return self._voice.feed(say.gate.feed(delta))
        if say.release is None or len(self._written) >= MAX_STREAMED_CHARS:
            return ""
        self._written += delta
        if not say.release(self._written):
            return ""
        self._hold = False  # the rules that held it can no longer apply: say it so far
        return self._voice.feed(say.gate.feed(self._written))

    def _watch(self, calling: Calling, tools: Sequence[str], delta: str) -> None:
        """Keep the reply written so far; tell ``calling`` once a call in it names one of ``tools``.
        Each search starts just before the new text, so the work stays linear in the reply."""
        start = max(0, len(self._watched) - CALL_NAME_SPAN)
        self._watched += delta
        if self._told:
            return  # the text is still kept: the call's arguments are read from it
        name = call_being_written(self._watched, tools, start)
        if name is not None:
            self._tell(calling, name)

    def _tell(self, calling: Calling, name: str) -> None:
        """Tell the turn, once per reply, of the call to ``name`` being written."""
        if not self._told:
            self._told = True
            calling(name, lambda: self._watched)

    def end(self, makes_calls: Callable[[], bool]) -> list[str]:
        """The reply is over: what is said now. A held reply that calls tools (``makes_calls``) has
        its talk said, as if never held, unless the talk names a tool; one that does not is kept
        for :meth:`Speaker.rest` (said if it stands as the answer, dropped if it is sent back)."""
        say, said = self._say, list[str]()
        if say is None:
            return said
        if self._hold and self._written:
            if makes_calls():
                self._hold = False
                if not _names_a_tool(self._written, say.tools):
                    said.append(self._voice.feed(say.gate.feed(self._written)))
            else:
                self._voice.held = self._written
        if not self._hold:  # say what only waited for more text
            said.append(self._voice.close())
        return [s for s in said if s]


def _names_a_tool(written: str, tools: Sequence[str]) -> bool:
    """The talk of a reply that calls tools names one of ``tools`` (``_text.protocol.names_tool``):
    it tells the model's plan, not the user's answer ("you can use the search_in_files function
    with the pattern dentist"), so it is not said, and the turn's progress line speaks for the call
    instead. Read on the talk a gate lets through, never on the call itself (in the text protocol
    the reply goes on "Action: `add`")."""
    gate = FinalAnswerGate(Speech())
    talk = gate.feed(written) + gate.close()
    return any(names_tool(talk, name) for name in tools)


class Speaker:
    """What one turn says across its model calls (per-turn state: it lives in the turn)."""

    def __init__(self) -> None:
        self._speech = Speech()
        self._gate: FinalAnswerGate | None = None  # the gate of the latest spoken model call

    def reply(self, say: Say | None) -> Utterance:
        """A model call's reply begins; ``say`` None: it says nothing and the latest spoken reply
        stays the one the endings read."""
        voice = FinalAnswerGate(self._speech)
        if say is not None:
            self._gate = voice
        return Utterance(voice, say)

    def drop_held(self) -> None:
        """The held reply is dropped unheard: something else is said instead."""
        if self._gate is not None:
            self._gate.held = ""

    def spoken(self) -> str:
        """The answer as far as it was spoken: the text let through of the latest reply's answer part."""
        return self._gate.part if self._gate is not None else ""

    def reply_begun(self) -> bool:
        """Whether any of the latest spoken reply went out (talk before a call included)."""
        return self._gate is not None and self._gate.passed_chars > 0

    def rest(self, answer: str) -> str:
        """What is still to say once the turn is over and ``answer`` is its final answer: a held
        reply, then the rest of ``answer``."""
        gate = self._gate if self._gate is not None else FinalAnswerGate(self._speech)
        return gate.finish(answer)
