"""The loop's tools: the tool spec and the roles toolboxes declare (``spec``), the merged tool set
(``toolset``), per-turn selection and its budget (``selection``, ``budget``), running calls and their
typed outcomes (``observations``), and the hints for a program or a function called as a tool
(``programs``)."""
