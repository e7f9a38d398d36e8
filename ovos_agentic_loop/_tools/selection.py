"""Per-turn tool selection: a persona with many tools offers the model a shortlist per question.

Every offered tool costs prompt tokens on every model call (on a 2-core CPU the bundled model reads
about 40 tokens a second), and a small model picks worse among many tools. Above the loop's
``select_above`` tools (``tool_selection: "auto"``), or always (``"always"``), a turn offers:

1. the persona's ``always_offered_tools``, in the order it lists them,
2. ``find_tools(query)``, the way to any tool the shortlist left out,
3. up to ``max_offered_tools`` tools ranked by BM25 against the question (and, with half the
   weight, the conversation's last turns), plus the tools the conversation already called and
   the caller's own tools of this request, in the tool set's own order.

A tool earns a ranked place with a word of the question that the always-offered tools do not
already match: "what is four hundred and twenty plus nineteen percent" shares "percent" with the
calculator (always offered) and with five light, fan and volume tools, and a shortlist holding
them had the model set a light to 499 percent after its sum (spoken suite, figure 10). Words the
always-offered tools match are left out of the ranking; a question left with no word ranks no
tool, and its places go to the tool set's first tools (the persona's own toolboxes), as for any
question no tool matches.

Everything before the ranked tools is the same on every turn, and it is the start of the prompt
(system prompt, then tools): llama-server's prompt cache keeps that prefix. A persona at or under
the threshold gets :data:`None` from :func:`shortlist` and its requests are today's, byte for byte.

A tool outside the shortlist is reached two ways: ``find_tools`` answers with the matching tools'
descriptions and argument schemas and offers them from the next model call on; and a call the model
makes by name to a tool that exists but was not offered is run (the second pass), and that tool is
offered from then on (a call with wrong arguments gets the usual observation with the schema).

The ranking is ``bm25s`` (BM25 on sparse arrays, numpy only) with the Snowball English stemmer
(``PyStemmer``): no model to download, an index of 80 tools in ~15 ms and a query in ~0.01 ms on
this CPU. It is imported only when a turn selects, so a persona under the threshold never pays
its import (~0.3 s, mostly numpy).
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole, ToolCall

from ovos_agentic_loop._tools.observations import Status, ToolOutcome
from ovos_agentic_loop._tools.spec import ToolSpec
from ovos_agentic_loop._tools.toolset import ToolSet
from ovos_agentic_loop.config import LoopConfig

__all__ = ["FIND_TOOLS", "FIND_TOOLS_SPEC", "Shortlist", "ToolIndex", "selects", "shortlist"]

FIND_TOOLS = "find_tools"
#: Tools a ``find_tools`` call answers with (its result is read on every later call of the turn).
FOUND_PER_QUERY = 3
#: How much the conversation's earlier turns weigh against the question itself.
CONTEXT_WEIGHT = 0.5
#: Earlier messages (user and assistant text) read for the ranking: a follow-up's context.
CONTEXT_MESSAGES = 4
#: Words of a spoken request that say nothing about the tool, besides bm25s' English list (which
#: has "what" and "how"): "whats the time" must not match every argument described "what to say".
SPOKEN_FILLERS = ("whats", "many", "much", "please", "tell", "hey", "okay", "ok", "give", "want", "need")

#: Worded to claim nothing about the listed tools: a wording such as "only the tools that seem to
#: fit the question are offered" tells the bundled model that a listed tool fits, and it answers
#: "what is the chemical symbol for gold" by reading files (spoken suite).
FIND_TOOLS_SPEC = ToolSpec(
    name=FIND_TOOLS,
    description="Look up installed tools that are not in this list, by what they must do. Use it "
    "only when no tool listed here can do what the user asked; the tools found are listed from "
    "then on.",
    parameters={
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "what the tool must do, e.g. 'dim the lights'"}
        },
        "required": ["query"],
    },
)


def selects(config: LoopConfig, toolset: ToolSet) -> bool:
    """True when this loop section makes a turn with ``toolset`` offer a shortlist."""
    if config.tool_selection == "all" or not toolset.tools:
        return False
    return config.tool_selection == "always" or len(toolset.tools) > config.select_above


def shortlist(config: LoopConfig, toolset: ToolSet, messages: Sequence[AgentMessage]) -> Shortlist | None:
    """The tools a turn on ``messages`` offers first; None when it offers every tool (as always did)."""
    if not selects(config, toolset):
        return None
    question, context = _query(messages)
    always = [name for name in config.always_offered_tools if toolset.get(name) is not None]
    # The caller's own tools (sent with this request) are what it asked to offer: never left out.
    kept = ({c.name for m in messages for c in m.tool_calls or []} | toolset.caller_names) & set(
        toolset.names
    )
    index = ToolIndex.of(toolset.tools)
    covered = index.terms_of(always)
    ranked = index.rank(question, context, exclude=set(always) | kept, ignore=covered)
    chosen = set(ranked[: config.max_offered_tools]) | kept
    rest = [name for name in toolset.names if name in chosen]  # the tool set's order: stable
    return Shortlist(toolset=toolset, names=[*always, *rest], index=index, fixed=len(always))


@dataclass
class Shortlist:
    """The tools one turn offers (per-turn state, held by the Turn): ``names`` (the first ``fixed`` of
    them the always-offered ones) and ``find_tools``."""

    toolset: ToolSet
    names: list[str]
    index: ToolIndex
    fixed: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def tools(self) -> list[ToolSpec]:
        """The offered tools in prompt order: the always-offered ones, ``find_tools``, the ranked ones;
        tools offered later come last. The first two parts are the same on every turn of a persona,
        so llama-server's prompt cache keeps them; ``find_tools`` is not first, where a small model
        reads it before the tools that answer the question."""
        # ``names`` holds only tools of ``toolset`` (shortlist and offer() check), so the first
        # ``fixed`` of them are still the always-offered ones
        found = [tool for name in self.names if (tool := self.toolset.get(name)) is not None]
        return [*found[: self.fixed], FIND_TOOLS_SPEC, *found[self.fixed :]]

    def wire_specs(self) -> list[dict[str, Any]]:
        return [tool.wire() for tool in self.tools()]

    def offer(self, names: Iterable[str]) -> list[str]:
        """Offer the tools of ``names`` that exist and are not offered yet; returns those added."""
        with self._lock:
            added = [n for n in dict.fromkeys(names) if n not in self.names and self.toolset.get(n)]
            self.names.extend(added)
        return added

    def find(self, call: ToolCall) -> ToolOutcome:
        """Answer a ``find_tools`` call: the best matching tools, described, and offered from now on."""
        query = call.arguments.get("query") if isinstance(call.arguments, dict) else None
        if not isinstance(query, str) or not query.strip():
            text = 'Error: find_tools needs a "query": a few words saying what the tool must do.'
            return ToolOutcome(call, Status.REFUSED, text, 0.0, error=text)
        names = self.index.rank(query, "", exclude=set())[:FOUND_PER_QUERY]
        self.offer(names)
        found = [self.toolset.get(name) for name in names]
        described = [
            {"name": t.name, "description": t.description, "arguments": t.properties}
            for t in found
            if t is not None
        ]
        text = "These tools are now offered: " + json.dumps(described, ensure_ascii=False)
        return ToolOutcome(call, Status.OK, text, 0.0)


class ToolIndex:
    """BM25 over the tools' names, descriptions and argument names and descriptions."""

    def __init__(self, names: Sequence[str], documents: Sequence[str]) -> None:
        import bm25s
        import Stemmer

        self._names = list(names)
        self._stemmer = Stemmer.Stemmer("english")
        from bm25s.stopwords import STOPWORDS_EN_PLUS

        self._stopwords = [*STOPWORDS_EN_PLUS, *SPOKEN_FILLERS]
        corpus = bm25s.tokenize(
            list(documents), stopwords=self._stopwords, stemmer=self._stemmer, show_progress=False
        )
        self._bm25 = bm25s.BM25()
        self._bm25.index(corpus, show_progress=False)
        vocabulary = {i: term for term, i in corpus.vocab.items()}
        self._terms = {
            name: frozenset(vocabulary[i] for i in ids)
            for name, ids in zip(self._names, corpus.ids, strict=True)
        }

    @staticmethod
    def of(tools: Sequence[ToolSpec]) -> ToolIndex:
        """The index of ``tools``, built once per distinct list of names and documents (a turn's tool
        set is rebuilt when a caller adds tools, or a toolbox changes its own)."""
        return _index_of(tuple(t.name for t in tools), tuple(_document(t) for t in tools))

    def terms_of(self, names: Iterable[str]) -> frozenset[str]:
        """The (stemmed) words the documents of the tools ``names`` hold."""
        return frozenset().union(*(self._terms.get(name, frozenset()) for name in names))

    def rank(
        self, question: str, context: str, *, exclude: set[str], ignore: frozenset[str] = frozenset()
    ) -> list[str]:
        """Tool names, best first: BM25 on ``question`` plus half of it on ``context``, leaving out the
        words of ``ignore``; ties (and a question no tool matches, e.g. in a language the
        descriptions are not in) keep the tool set's order, which puts the persona's own toolboxes
        before what comes after them."""
        scores = self._scores(question, ignore)
        if context.strip():
            scores = [
                s + CONTEXT_WEIGHT * c for s, c in zip(scores, self._scores(context, ignore), strict=True)
            ]
        order = sorted(range(len(self._names)), key=lambda i: -scores[i])
        return [self._names[i] for i in order if self._names[i] not in exclude]

    def _scores(self, text: str, ignore: frozenset[str] = frozenset()) -> list[float]:
        import bm25s

        (tokens,) = bm25s.tokenize(
            [_words(text)],
            stopwords=self._stopwords,
            stemmer=self._stemmer,
            return_ids=False,
            show_progress=False,
        )
        tokens = [token for token in tokens if token not in ignore]
        if not tokens:
            return [0.0] * len(self._names)
        return [float(s) for s in self._bm25.get_scores(tokens)]


@lru_cache(maxsize=16)
def _index_of(names: tuple[str, ...], documents: tuple[str, ...]) -> ToolIndex:
    return ToolIndex(names, documents)


def _words(text: str) -> str:
    """``set_light_brightness`` and ``setLightBrightness`` as words: names are matched word by word."""
    return re.sub(r"([a-z])([A-Z])", r"\1 \2", text).replace("_", " ").replace("-", " ")


def _document(tool: ToolSpec) -> str:
    parts = [tool.name, tool.description]
    for name, prop in tool.properties.items():
        parts.append(name)
        if isinstance(prop, dict):
            parts.append(str(prop.get("description") or ""))
            parts.extend(str(v) for v in prop.get("enum") or [])
    return _words(" ".join(parts))


def _query(messages: Sequence[AgentMessage]) -> tuple[str, str]:
    """The question (the last user message) and the context (the messages before it, text only)."""
    said = [m for m in messages if m.role in (MessageRole.USER, MessageRole.ASSISTANT) and m.content]
    last_user = next((i for i in range(len(said) - 1, -1, -1) if said[i].role == MessageRole.USER), None)
    if last_user is None:
        return "", ""
    before = said[max(0, last_user - CONTEXT_MESSAGES) : last_user]
    return said[last_user].content or "", " ".join(m.content or "" for m in before)
