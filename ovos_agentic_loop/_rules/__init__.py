"""The loop's reactions to what small models write instead of a tool call or an answer.

One small class per habit (``base.Reaction``), each deciding over one read-only view of
the turn (``view.TurnView``); ``table.REACTIONS`` is their order of priority and
``table.Reactions`` the per-turn budget they share. The rules are about the kind of
reply, never about a task. Rules sit below the turn (``_turn``) and above the tools and the
text (``_tools``, ``_text``): they import neither the turn nor anything that imports it, and
answer with ``base.Nudge`` or ``base.MakeCall``.
"""
