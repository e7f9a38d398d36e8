"""The rules that correct what small models write instead of a tool call or an answer.

Each rule is one declared record (``base.Rule``: name, stage, languages, the tool roles it needs,
whether it holds the stream, ``detect`` and ``respond``) in its own module, over one read-only
view of the turn (``view.TurnView``, the evidence); ``registry.RULES`` is their one order of
priority, ``registry.Rules`` how a turn asks them, on a budget shared with its sub-runs
(``registry.Budget``, part of the turn's limits). The rules are about the kind of reply, never
about a task. Rules sit below the turn (``_turn``) and above the tools and the text (``_tools``,
``_text``): they import neither the turn nor anything that imports it.
"""
