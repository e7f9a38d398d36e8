"""Ask before acting: a call that needs the user's yes ends the turn with one question.

The engine holds one :class:`Confirmation` (the policy, the key, the yes/no engine, the ids already
decided); each turn asks it two things:

- :meth:`Confirmation.reply_to_question`, at the start: is the user's message a reply to a
  question this engine (or one with the same key) asked in the immediately preceding assistant
  message? Then yes runs exactly that call once, no runs nothing, anything else drops it.
- :meth:`Confirmation.needs_yes` / :meth:`Confirmation.propose`, for each reply that calls tools:
  a call that needs a yes is not run; the turn ends with the question, its mark inside.

Nothing of it is per turn: the turn keeps what it learnt (``Turn.opening``). What a mark cannot
carry (a stop said after the question, a question another engine of the process asked) is kept per
process in :mod:`~ovos_agentic_loop._confirmation.sessions`; :meth:`Confirmation.refusal` is the one
line for a yes that must not run here for either reason.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import threading
import time
from dataclasses import dataclass
from typing import Any

from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole, ToolCall

from ovos_agentic_loop._confirmation.pending import PendingCall, Signer, UsedIds, mark_of, without_marks
from ovos_agentic_loop._confirmation.policy import ConfirmPolicy
from ovos_agentic_loop._confirmation.question import cancelled, elsewhere, question
from ovos_agentic_loop._confirmation.replies import Classifier, Verdict, load_classifier
from ovos_agentic_loop._confirmation.sessions import OpenQuestion, last_words, stops
from ovos_agentic_loop._tools.spec import ToolSpec
from ovos_agentic_loop.errors import ConfigError

__all__ = [
    "CONFIRM_KEY_ENV",
    "Confirmation",
    "Proposal",
    "Reply",
    "Verdict",
    "cleaned",
    "last_user_text",
]

#: Where the signing key is read from when the loop section has no ``confirm_key``.
CONFIRM_KEY_ENV = "OVOS_AGENTIC_LOOP_CONFIRM_KEY"
# One random key per process, shared by its engines, for when no key is configured: two engines of
# one process accept each other's questions; replicas need a configured key.
_PROCESS_KEY = secrets.token_bytes(32)
# A mark is decided once per process, whichever of its engines decides it.
_USED = UsedIds()


@dataclass(frozen=True)
class Proposal:
    """A call held for the user's yes: the question as said, and the same with its mark."""

    pending: PendingCall
    question: str
    spoken: str  # the question with the invisible mark inside, before its last character
    token: str  # the mark as ASCII, for a GUI that answers on the bus


@dataclass(frozen=True)
class Reply:
    """The user's message as a reply to a pending call."""

    pending: PendingCall
    verdict: Verdict

    @property
    def call(self) -> ToolCall:
        return ToolCall(
            id=f"call_{self.pending.id}", name=self.pending.tool, arguments=dict(self.pending.arguments)
        )


def last_user_text(messages: list[AgentMessage]) -> str:
    users = [m.content or "" for m in messages if m.role == MessageRole.USER]
    return users[-1] if users else ""


def cleaned(messages: list[AgentMessage]) -> list[AgentMessage]:
    """``messages`` with every mark removed (a mark is for this engine, never for the model)."""
    out = []
    for message in messages:
        text = without_marks(message.content or "")
        if text != (message.content or ""):
            message = AgentMessage(
                message.role, text, tool_calls=message.tool_calls, tool_call_id=message.tool_call_id,
                name=message.name,
            )  # fmt: skip
        out.append(message)
    return out


class Confirmation:
    """One engine's confirmation: policy, key, yes/no engine and the ids it has decided."""

    def __init__(
        self,
        policy: ConfirmPolicy,
        *,
        key: str | None,
        expiry: float,
        engine_name: str,
        section: Any = None,
    ) -> None:
        self.policy = policy
        self.expiry = expiry
        self.engine_name = engine_name
        configured = key or os.environ.get(CONFIRM_KEY_ENV)
        secret = configured.encode() if configured else _PROCESS_KEY
        self.signer = Signer(secret)
        self.used = _USED
        #: Which persona this engine is, among the process's: a configured key names a replica set
        #: (engines with one key accept each other's questions, whatever else their sections say);
        #: under the process's own key, the section tells two personas apart. Kept in this process
        #: only (``sessions.last_words``).
        described = b"" if configured else json.dumps(section, sort_keys=True, default=repr).encode()
        self.asker = hashlib.sha256(secret + b"\n" + described).hexdigest()[:16]
        self._classifier: Classifier | None = None
        self._lock = threading.Lock()
        if policy.configured:  # a missing yes/no engine is an error at construction, not at the yes
            self.classifier()

    def classifier(self) -> Classifier:
        with self._lock:
            if self._classifier is None:
                self._classifier = load_classifier(self.engine_name)
            return self._classifier

    def check(self, toolboxes: list[Any]) -> None:
        """Load the yes/no engine now when a toolbox's own section asks first (``confirm``), so a
        missing engine is an error at construction, not at the user's yes."""
        sections = [getattr(toolbox, "config", None) for toolbox in toolboxes]
        if not self.policy.configured and any(isinstance(c, dict) and c.get("confirm") for c in sections):
            self.classifier()

    # -- turn 1: the call that waits --------------------------------------------------
    def needs_yes(self, tool: ToolSpec | None, owner_config: Any) -> bool:
        return tool is not None and self.policy.needs_yes(tool, owner_config)

    def propose(self, call: ToolCall, *, lang: str | None, session: str, user_text: str) -> Proposal | None:
        """The question for ``call``, signed; None when its arguments are too large to carry. Nothing
        is recorded until it is asked (:meth:`asked`)."""
        arguments = call.arguments if isinstance(call.arguments, dict) else {}
        said = question(call.name, arguments, lang)
        pending = PendingCall.proposed(call.name, arguments, session=session, user_text=user_text)
        mark = self.signer.seal(pending)
        token = self.signer.token(pending)
        if mark is None or token is None:
            return None
        return Proposal(pending, said, f"{said[:-1]}{mark}{said[-1:]}", token)

    def asked(self, proposal: Proposal) -> None:
        """``proposal``'s question is put to the user: it is the session's open question."""
        pending = proposal.pending
        last_words.asked(
            pending.session,
            OpenQuestion(self.asker, pending.id, proposal.question, pending.issued, self.expiry),
        )

    # -- turn 2: the user's reply -------------------------------------------------------
    def reply_to_question(
        self, messages: list[AgentMessage], *, session: str, lang: str | None
    ) -> Reply | None:
        """The user's last message as a reply to the question of the assistant message right
        before it, when that message holds a mark this key signed for this place; else None."""
        pending = self.pending_in(messages, session=session)
        if pending is None:
            return None
        if stops.cancelled(pending.session, pending.issued) or self.asked_elsewhere(pending):
            return None  # stopped, or another persona's: never carried out here (refusal says so)
        reply = without_marks(messages[-1].content or "")
        verdict = self.classifier().verdict(without_marks(messages[-2].content or ""), reply, lang)
        return Reply(pending, verdict)

    def pending_in(self, messages: list[AgentMessage], *, session: str) -> PendingCall | None:
        if len(messages) < 3 or messages[-1].role != MessageRole.USER:
            return None
        asked = messages[-2]
        if asked.role != MessageRole.ASSISTANT:
            return None
        pending = self.signer.open(asked.content or "")
        if pending is None:
            return None
        before = [m for m in messages[:-2] if m.role != MessageRole.SYSTEM]
        if not before or before[-1].role != MessageRole.USER:
            return None
        if not pending.answers(user_text=before[-1].content or "", session=session):
            return None
        age = time.time() - pending.issued
        return pending if -60 <= age <= self.expiry else None

    def claim(self, pending: PendingCall) -> bool:
        """True the first time this process decides ``pending`` (a yes or a no); False after."""
        if not self.used.claim(pending.id, self.expiry + 60):
            return False
        last_words.decided(pending.session, pending.id)
        return True

    def asked_elsewhere(self, pending: PendingCall) -> bool:
        """True when another engine of this process asked ``pending`` (it decides, not this one)."""
        asker = last_words.asker_of(pending.id)
        return asker is not None and asker != self.asker

    # -- a yes this engine must not act on ----------------------------------------------
    def refusal(
        self, messages: list[AgentMessage], *, session: str, lang: str | None, voice: bool = False
    ) -> str | None:
        """The one line (in ``lang``) for a yes or no that must not run anything here, else None:

        - the question it answers was cancelled: "stop" was said in the session after it;
        - another engine asked it: a mark this key did not sign, or, for a turn of a voice assistant
          (``voice``: it runs inside a messagebus handler) whose conversation holds no question of
          this engine's, the session's last word was another engine's open question (ovos-persona
          keeps one memory per persona: the other persona never saw it). Only there: a text host
          may give many users one session id, and keeps each conversation whole anyway.

        A reply that is neither yes nor no is an ordinary message (None)."""
        if not messages or messages[-1].role != MessageRole.USER:
            return None
        asked = messages[-2] if len(messages) >= 2 and messages[-2].role == MessageRole.ASSISTANT else None
        if asked is not None and mark_of(asked.content or "") is not None:
            pending = self.pending_in(messages, session=session)
            if pending is not None:
                if stops.cancelled(pending.session, pending.issued):
                    line = cancelled(lang)
                elif self.asked_elsewhere(pending):
                    line = elsewhere(lang)  # the process's key, but another persona asked it
                else:
                    return None  # a live question of ours: the turn decides it
            elif self.signer.open(asked.content or "") is None:
                line = elsewhere(lang)  # a mark of another key: another persona's question
            else:
                return None  # ours but expired or out of place: an ordinary message
            said = without_marks(asked.content or "")
        else:
            open_question = last_words.open_question(session) if voice else None
            if open_question is None or open_question.asker == self.asker:
                return None
            cancelled_since = stops.cancelled(session, open_question.issued)
            line = cancelled(lang) if cancelled_since else elsewhere(lang)
            said = open_question.question
        try:
            verdict = self.classifier().verdict(said, without_marks(messages[-1].content or ""), lang)
        except ConfigError:  # no yes/no engine (this engine asks nothing itself): cannot tell; ordinary
            return None
        return None if verdict is Verdict.OTHER else line
