"""The loop's tools: the tool spec, the merged tool set, per-turn selection and its budget, running
calls and their typed outcomes, and the hints for a program called as a tool."""
