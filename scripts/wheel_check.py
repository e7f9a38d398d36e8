"""Run by scripts/wheel-check with the wheel venv's python, from a folder outside the checkout.

Fails (non-zero exit, a line saying what) when the installed wheel is not what a user needs.
"""

from __future__ import annotations

import subprocess
import sys
from importlib import metadata
from pathlib import Path

GROUPS = ("opm.agents.chat", "opm.agents.toolbox", "opm.agents.skill_md")


def fail(message: str) -> None:
    print(f"wheel check FAILED: {message}", file=sys.stderr)
    sys.exit(1)


EXAMPLE_SKILLS = ["text-stats", "kitchen-conversions"]
# The sections that make each toolbox serve tools in a venv with the wheel alone: the example skills
# load only when named (never through "all"), as personas/skills-assistant.json names them; the web
# tools without the `web` extra offer only what needs no package of it (web_search through SearXNG).
SECTIONS = {
    "ovos-skill-md-toolbox": {"enabled_skills": EXAMPLE_SKILLS},
    "ovos-web-search-tools": {"searxng_url": "http://127.0.0.1:8888"},
}


def main(venv: Path, repo: Path) -> None:
    import ovos_agentic_loop
    import ovos_agentic_loop_toolboxes

    for module in (ovos_agentic_loop, ovos_agentic_loop_toolboxes):
        where = Path(module.__file__ or "").resolve()
        # build/wheel-venv lies inside the checkout: the venv's site-packages is what must hold it.
        if venv.resolve() not in where.parents:
            fail(f"{module.__name__} imported from {where}, not from the wheel in {venv}")

    dist = metadata.distribution("ovos-agentic-loop")
    loaded = []
    for ep in dist.entry_points:
        if ep.group not in GROUPS:
            continue
        target = ep.load()
        if ep.group == "opm.agents.toolbox":
            toolbox = target(config=SECTIONS.get(ep.name, {}), bus=None)
            if not toolbox.tools:
                fail(f"toolbox {ep.name} built from the wheel has no tools")
        if ep.group == "opm.agents.skill_md" and not list(Path(target).glob("*/SKILL.md")):
            fail(f"skill folder {ep.name} ({target}) has no SKILL.md examples in the wheel")
        loaded.append(ep.name)
    print(f"entry points loaded: {', '.join(loaded)}")

    from ovos_agentic_loop.personas import find_persona, shipped_personas

    names = sorted(shipped_personas())
    if "local-assistant" not in names:
        fail(f"the shipped personas are not in the wheel (found: {names})")
    for name in names:
        find_persona(name)
    print(f"shipped personas: {', '.join(names)}")

    # One turn of the installed loop in a non-English session: what the wheel's dependencies must
    # carry (language names needed langcodes[data]; without it every such turn failed).
    from ovos_plugin_manager.agents import load_chat_plugin
    from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole

    from ovos_agentic_loop.testing import ScriptedBrain

    brain = ScriptedBrain(["Quatro."])
    engine = load_chat_plugin("ovos-react-loop")(config={}, brain=brain, toolboxes=[])
    answer = engine.continue_chat([AgentMessage(MessageRole.USER, "quanto é dois mais dois")], lang="pt-PT")
    if answer.content != "Quatro." or "Portuguese" not in (brain.calls[0].messages[0].content or ""):
        fail(f"a pt-PT turn of the installed loop: {answer.content!r}, {brain.calls[0].messages!r}")
    print("a pt-PT turn answered, asked for in Portuguese")

    cli = venv / "bin" / "ovos-agentic-loop"
    done = subprocess.run([str(cli), "doctor", "local-assistant"], capture_output=True, text=True)
    print(done.stdout, end="")
    if "(shipped:local-assistant)" not in done.stdout:
        fail(f"doctor did not resolve the shipped persona: {done.stderr.strip()}")
    # A server on 127.0.0.1:8091 is not part of this check: only its lines may fail.
    failures = [line for line in done.stdout.splitlines() if line.startswith("[FAIL]")]
    unexpected = [line for line in failures if not line.startswith(("[FAIL] server:", "[FAIL] port "))]
    if unexpected or (done.returncode != 0 and not failures):
        fail(f"doctor local-assistant: {unexpected or done.stderr.strip()}")
    print("wheel check passed")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
