"""The engine's memory of its conversations: which conversation a turn belongs to, what of it is
put back into the turn's messages, and what the turn leaves for the next one.

**Which conversation.** The key joins the loop's name, the persona (its name where the host gives
the whole persona, else a digest of the loop's section) and the session key the model servers get
(``_runtime.session_key``: the host's session id, else the conversation's first user message).
No key is shared by two personas or two sessions.

**Tied to the host's history.** The host keeps the conversation's text; the memory only adds the
calls to it. A turn whose history does not end with the last remembered answer (compared without
whitespace: a host may join streamed sentences its own way) starts afresh: the user went back,
another device took over the session, or a different conversation opened with the same words.
Earlier remembered turns are put back as long as their answers are the history's answers before it.

**Bounded.** At most ``memory_turns`` turns, none older than ``memory_max_age`` seconds. A store
that cannot be reached is a warning (once, until it answers again); the turn runs without memory.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole, ToolCall
from ovos_utils.log import LOG

from ovos_agentic_loop._confirmation import Confirmation, last_user_text
from ovos_agentic_loop._memory.followups import (
    FollowUp,
    follow_up_call,
    follow_up_in,
    restated,
)
from ovos_agentic_loop._memory.records import RememberedTurn, dumps, loads, ran_calls
from ovos_agentic_loop._memory.stores import MemoryStore, StoreDown, open_store
from ovos_agentic_loop._runtime.session_key import session_key
from ovos_agentic_loop._tools.observations import ToolOutcome
from ovos_agentic_loop._tools.toolset import ToolSet
from ovos_agentic_loop.config import LoopConfig
from ovos_agentic_loop.errors import ConfigError

__all__ = [
    "KEY_PREFIX",
    "RETRY_AFTER_S",
    "ConversationMemory",
    "Recall",
    "owner_of",
    "redo_call",
    "restated_note",
    "same_text",
]

#: Every key the memory writes starts so (a Redis shared with other programs shows whose they are).
KEY_PREFIX = "ovos-agentic-loop:memory:"
#: The ids of remembered calls start so: the turn tells them from its own calls by these ids.
CALL_ID_PREFIX = "remembered_"
#: Seconds a store that failed is left alone: a Redis host that does not answer costs a turn its
#: connect timeout, and a voice should not wait for it at every turn.
RETRY_AFTER_S = 30.0


def same_text(a: str, b: str) -> bool:
    """Equal but for whitespace."""
    return "".join(a.split()) == "".join(b.split())


def owner_of(engine_name: str, config: Mapping[str, Any] | None, persona: Mapping[str, Any] | None) -> str:
    """The loop and persona a memory belongs to: the persona's name where known, else its section's
    digest (ovos-persona hands the engine its section only; two personas differ there)."""
    name = persona.get("name") if persona is not None else None
    if isinstance(name, str) and name:
        who = f"name:{name}"
    else:
        section = json.dumps(config or {}, sort_keys=True, default=str)
        who = "section:" + hashlib.sha256(section.encode("utf-8", "surrogatepass")).hexdigest()[:24]
    return hashlib.sha256(f"{engine_name}\n{who}".encode("utf-8", "surrogatepass")).hexdigest()[:24]


@dataclass(frozen=True)
class Recall:
    """What the memory gives one turn, and where the turn's own record goes afterwards."""

    #: The store's key of this conversation; None when nothing is remembered (memory off, store down).
    key: str | None
    #: The host's messages with the remembered calls and results before their answers.
    messages: list[AgentMessage]
    #: The remembered turns the history still holds, oldest first.
    earlier: tuple[RememberedTurn, ...] = ()
    #: The ids of the calls put back: they were made in earlier turns, not in this one.
    call_ids: frozenset[str] = frozenset()
    #: The user's words of this turn, and what they ask of the last turn (``followups``), if anything.
    question: str = ""
    follow_up: FollowUp | None = None

    @property
    def last(self) -> RememberedTurn | None:
        return self.earlier[-1] if self.earlier else None


@dataclass
class ConversationMemory:
    """The engine's shared resource (like its thread pool): it holds no turn's state, only the store."""

    store: MemoryStore | None
    owner: str
    turns: int
    max_age: float
    engine_name: str = "ovos-agentic-loop"
    #: Wall-clock time, injected: a remembered turn's age is read against it.
    clock: Callable[[], float] = time.time
    _down: bool = field(default=False, init=False)
    _retry_at: float = field(default=0.0, init=False)  # time.monotonic(): the store is tried again then
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    @classmethod
    def of(
        cls,
        settings: LoopConfig,
        *,
        engine_name: str,
        config: Mapping[str, Any] | None,
        persona: Mapping[str, Any] | None,
        clock: Callable[[], float] = time.time,
    ) -> ConversationMemory:
        """The memory ``settings`` ask for; a setting that cannot work raises ``ConfigError``."""
        try:
            store = open_store(settings)
        except ConfigError as exc:
            raise ConfigError(f"{engine_name}: {exc}") from exc.__cause__
        return cls(
            store,
            owner_of(engine_name, config, persona),
            settings.memory_turns,
            settings.memory_max_age,
            engine_name,
            clock,
        )

    def recall(self, session_id: str | None, messages: list[AgentMessage], lang: str | None = None) -> Recall:
        """The turn's messages with what the conversation remembers put back into them."""
        if self.store is None:
            return Recall(None, list(messages))
        key = f"{KEY_PREFIX}{self.owner}:{session_key(session_id, messages)}"
        stored = self._read(key)
        if stored is None:
            return Recall(None, list(messages))
        question = last_user_text(messages)
        earlier = self._matching(self._current(stored), messages)
        if not earlier:
            return Recall(key, list(messages), question=question)
        placed, ids = _placed(messages, earlier)
        return Recall(
            key, placed, tuple(earlier), ids, question, follow_up_in(question, lang) if question else None
        )

    def remember(
        self,
        recall: Recall,
        transcript: Sequence[AgentMessage],
        outcomes: Mapping[int, ToolOutcome],
        answer: str,
    ) -> None:
        """Keep the turn that ended with ``answer`` (as delivered) after the earlier ones it saw."""
        if self.store is None or recall.key is None or not answer.strip() or self._resting():
            return
        prefix = f"{CALL_ID_PREFIX}{uuid.uuid4().hex[:12]}_"
        calls = ran_calls(transcript, outcomes, id_prefix=prefix)
        turn = RememberedTurn(recall.question, calls, answer, self.clock())
        kept = self._current([*recall.earlier, turn])
        try:
            self.store.put(recall.key, dumps(kept), self.max_age)
        except StoreDown as exc:
            self._report(exc)
        else:
            self._back()

    def _read(self, key: str) -> list[RememberedTurn] | None:
        """The conversation's turns ([] when there are none); None when the store is down."""
        if self._resting():
            return None
        try:
            text = self.store.get(key) if self.store is not None else None
        except StoreDown as exc:
            self._report(exc)
            return None
        self._back()
        return [] if text is None else loads(text)

    def _current(self, turns: Sequence[RememberedTurn]) -> list[RememberedTurn]:
        """The last ``turns`` turns that are not older than ``max_age``."""
        oldest = self.clock() - self.max_age
        return [t for t in turns if t.ended >= oldest][-self.turns :]

    @staticmethod
    def _matching(turns: list[RememberedTurn], messages: Sequence[AgentMessage]) -> list[RememberedTurn]:
        """The remembered turns whose answers are the history's last answers, in the same order,
        oldest first; [] when the history's last answer is not the last remembered one."""
        answers = [m.content or "" for m in messages if _plain_answer(m)]
        matched: list[RememberedTurn] = []
        for turn, said in zip(reversed(turns), reversed(answers), strict=False):
            if not same_text(turn.answer, said):
                break
            matched.insert(0, turn)
        return matched

    def _resting(self) -> bool:
        return self._down and time.monotonic() < self._retry_at

    def _report(self, exc: StoreDown) -> None:
        with self._lock:
            first, self._down = not self._down, True
            self._retry_at = time.monotonic() + RETRY_AFTER_S
        if first:
            LOG.warning(
                f"{self.engine_name}: conversation memory unavailable ({exc}); turns run without it "
                'until it answers again (check the store, or set "memory": "process")'
            )

    def _back(self) -> None:
        if self._down:
            with self._lock:
                self._down = False
            LOG.info(f"{self.engine_name}: conversation memory available again")


def _plain_answer(message: AgentMessage) -> bool:
    return message.role == MessageRole.ASSISTANT and not message.tool_calls and bool(message.content)


def _placed(
    messages: Sequence[AgentMessage], earlier: Sequence[RememberedTurn]
) -> tuple[list[AgentMessage], frozenset[str]]:
    """``messages`` with each remembered turn's calls and results right before its answer."""
    answers = [at for at, m in enumerate(messages) if _plain_answer(m)][-len(earlier) :]
    before = dict(zip(answers, earlier, strict=True))
    placed: list[AgentMessage] = []
    for at, message in enumerate(messages):
        turn = before.get(at)
        if turn is not None:
            placed += turn.messages()
        placed.append(message)
    return placed, frozenset(c.id for t in earlier for c in t.calls)


def redo_call(
    recall: Recall, toolset: ToolSet, confirmation: Confirmation, lang: str | None
) -> ToolCall | None:
    """The last turn's call made again for the follow-up (a corrected or new number, a new unit or
    place), when what it changes can be told for sure and it runs without a yes; else None (the
    model sees the remembered calls and decides)."""
    last, follow_up = recall.last, recall.follow_up
    if last is None or follow_up is None:
        return None
    call = follow_up_call(follow_up, last, toolset, lang)
    spec = toolset.get(call.name) if call is not None else None
    if call is None or spec is None:
        return None
    owner = toolset.owners.get(spec.name)
    return None if confirmation.needs_yes(spec, getattr(owner, "config", None)) else call


def restated_note(recall: Recall) -> str:
    """For a follow-up the loop could not make into a call ("and in meters" after a calculation),
    the last question it asks again, said after it; "" otherwise."""
    last = recall.last
    if last is None or recall.follow_up is None:
        return ""
    return restated(recall.follow_up, last.question)
