"""The one core every bundled toolbox is built on.

- ``toolbox``: :class:`BundledToolBox`, the base of every bundled toolbox: ``call_tool`` failures
  that keep their reason in any host, and a WARNING when it serves zero tools.
- ``errors``: :class:`ToolCallError` (for the model) and :class:`ToolboxConfigError` (for the operator).
- ``settings``: strict pydantic settings for every toolbox section, the process limits shared by
  shell and skill scripts, and the length bounds on model-supplied text.
- ``paths``: the ONE confinement of model-supplied paths to a root folder.
- ``folders``: the root when a config names none: the project's own folder, never the host's.
- ``process``: the bounded subprocess runner; ``_launcher`` is its child side.
- ``runner``: the ONE sandboxed program run (temp folder, kernel rules, limits, process) that the
  shell and skill scripts call with their own :class:`RunPolicy`.
- ``kernel`` and ``landlock``: the Landlock kernel sandbox every started program runs in.
- ``language``: a toolbox's language (its ``lang``, else the OVOS configuration's), the fallback
  languages, and the languages argument validators read words in during a call.
- ``numbers``: one number said in words, read by ovos-number-parser and checked.
"""
