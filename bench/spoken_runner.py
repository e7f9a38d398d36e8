"""Figure 5s: spoken questions with every tool of the ``local-assistant`` persona loaded.

The suite is data (``bench/tasks/spoken.json``): questions as speech-to-text delivers them
(lowercase, no punctuation, numbers as words), follow-ups (a conversation of two turns, the second
referring to the first answer), questions in Portuguese, Spanish and German with ``lang`` set, and
knowledge and chit-chat questions that no tool fits. Every question runs with the toolboxes, their
settings and the system prompt of ``personas/local-assistant.json`` (math, clock, filesystem read-only,
shell with its allowed commands), rooted in a fresh sandbox holding the files the task sets up.

It runs through figure 5's loop (``tasks_runner.fig5_tasks`` with :data:`SPOKEN`): the same systems,
counting proxy, halves, time budget and tables. ``python3 bench/run.py --figures 5 --suite spoken``.

Checks are functions of the answers and of the tool calls the engine ran (the adapters record
them), nothing else: a number check reads digits and number words (``ovos-number-parser``'s
``numbers_to_digits``, in the user's language, plus the decimal comma of that language), fails on
any ``reject`` value (the
wrong direction or sign of a conversion), a language check fails an answer with more English than
target-language stopwords, ``no_tools`` fails a call into a listed toolbox, and any answer that speaks
protocol (a tool call written out as markup or JSON) fails whatever its value.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from ear import unsayable
from scripted_server import CountingProxy
from tasks_runner import TASKS_DIR, Suite, fill, load_suite, numbers_in, placeholders

SUITE_FILE = TASKS_DIR / "spoken.json"
PERSONA_FILE = Path(__file__).resolve().parent.parent / "personas" / "local-assistant.json"
CHECK_TYPES = {"number", "contains", "regex", "any"}

Digits = Callable[[str, str], str]  # (text, lang) -> the text with its number words as digits


def load_spoken(selection: str | None = None) -> list[dict[str, Any]]:
    """The spoken suite, each task with its ``half`` (the typed suite's rule); ``selection`` as there."""
    return load_suite(SUITE_FILE, selection)


# --- the persona --------------------------------------------------------------------------------


def persona_job(sandbox: str) -> dict[str, Any]:
    """The adapter job's engine settings from ``local-assistant``: its toolboxes with their sections
    (every ``root_path`` moved to the sandbox), its system prompt and its ``max_iterations``."""
    data = json.loads(PERSONA_FILE.read_text())
    section = data[data["handlers"][0]]
    extra: dict[str, Any] = {"system_prompt": section["system_prompt"]}
    for name in section["toolboxes"]:
        box = dict(section.get(name) or {})
        if "root_path" in box:
            box["root_path"] = sandbox
        extra[name] = box
    # The engine stays the system's own (figure 5 runs upstream's two engines too).
    return {
        "toolboxes": list(section["toolboxes"]),
        "max_iterations": section.get("max_iterations", 10),
        "engine_extra": extra,
        # Not passed to the engine here (figure 5s runs as the persona is today); figure 10 uses it.
        "always_offered_tools": list(section.get("always_offered_tools") or []),
    }


# --- placeholders -------------------------------------------------------------------------------

_WEEKDAYS_ES = ["lunes", "martes", "mi[eé]rcoles", "jueves", "viernes", "s[aá]bado", "domingo"]


def _hour_pattern(hour: int) -> str:
    """An hour as a spoken answer gives it: 20:20, 20h20, 20 Uhr, 8:20 pm, 8 in the evening, "8 20 pm"
    (number words already turned into digits). A 12-hour form needs its am/pm or part of the day, and
    the wrong one fails: 8:20 is not 20:20, nor is 8:20 am. Minutes are never read as the hour."""
    h12 = hour % 12 or 12
    right, wrong = ("p", "a") if hour >= 12 else ("a", "p")
    part = "morning" if hour < 12 else "(?:afternoon|evening|night)"
    start = r"(?<![\d:.])(?<!\d\s)"
    minutes = r"(?:[:h.]\s?\d\d(?::\d\d)?|\s+\d\d\b)"  # seconds too: "10:04:00 p.m."
    not_wrong = rf"(?!\s*{wrong}\.?\s?m\b|\s+in\s+the\s+(?!{part}))"
    clock24 = rf"0?{hour}(?:{minutes}|\s*uhr\b|\s*o.?clock){not_wrong}"
    clock12 = rf"{h12}{minutes}?(?:\s*o.?clock)?(?:\s*{right}\.?\s?m\b|\s+in\s+the\s+{part}|\s+at\s+night)"
    return rf"{start}(?:{clock24}|{clock12})"


def spoken_placeholders(sandbox: str = "", now: dt.datetime | None = None) -> dict[str, str]:
    """The typed suite's placeholders plus the spoken suite's (regexes where the value has forms)."""
    now = now or dt.datetime.now(dt.timezone.utc)
    values = placeholders(sandbox, now)
    christmas = dt.date(now.year, 12, 25)
    if christmas < now.date():
        christmas = dt.date(now.year + 1, 12, 25)
    in_three = now + dt.timedelta(days=3)
    day, month = now.day, now.strftime("%B")
    new_york = ZoneInfo("America/New_York")
    nine_london = dt.datetime.combine(now.date(), dt.time(9), ZoneInfo("Europe/London"))
    values.update(
        {
            "days_to_christmas": str((christmas - now.date()).days),
            "weekday_plus_3": in_three.strftime("%A"),
            "weekday_es": _WEEKDAYS_ES[now.weekday()],
            "date_spoken": (
                rf"(?:{now:%Y-%m-%d}|{month}\s+{day}(?:st|nd|rd|th)?\b"
                rf"|\b{day}(?:st|nd|rd|th)?\s+(?:of\s+)?{month})"
            ),
            "tokyo_time": _hour_pattern(now.astimezone(ZoneInfo("Asia/Tokyo")).hour),
            "new_york_time": _hour_pattern(now.astimezone(new_york).hour),
            "london_time": _hour_pattern(now.astimezone(ZoneInfo("Europe/London")).hour),
            "sydney_time": _hour_pattern(now.astimezone(ZoneInfo("Australia/Sydney")).hour),
            "london_nine_in_new_york": _hour_pattern(nine_london.astimezone(new_york).hour),
            "user": re.escape(values["user"]),
            "hostname": re.escape(socket.gethostname()),
        }
    )
    return values


# --- the checks ---------------------------------------------------------------------------------

# A tool call spoken instead of made: markup or JSON of a call, or a ReAct line.
_PROTOCOL = re.compile(
    r"<\s*/?\s*(?:tools?|tool_call|function(?:_call)?|arguments)\b"
    r"|\"(?:name|arguments)\"\s*:"
    r"|^\s*(?:Action|Action Input)\s*:",
    re.IGNORECASE | re.MULTILINE,
)

# Loose language check: words frequent in each language and rare in the others' short answers.
STOPWORDS = {
    "en": frozenset(
        {"the", "is", "are", "of", "and", "it", "to", "you", "that", "there", "what", "which", "this"}
    ),
    "pt": frozenset(
        {
            "é",
            "são",
            "o",
            "os",
            "do",
            "da",
            "dos",
            "das",
            "que",
            "em",
            "um",
            "uma",
            "não",
            "para",
            "com",
            "graus",
            "hoje",
        }
    ),
    "es": frozenset(
        {
            "es",
            "son",
            "el",
            "los",
            "las",
            "del",
            "que",
            "en",
            "un",
            "una",
            "y",
            "para",
            "con",
            "grados",
            "hoy",
        }
    ),
    "de": frozenset(
        {
            "ist",
            "sind",
            "der",
            "die",
            "das",
            "und",
            "ein",
            "eine",
            "nicht",
            "für",
            "mit",
            "von",
            "grad",
            "heute",
            "es",
        }
    ),
}

_LOCALE_NUMBER = re.compile(r"-?\d{1,3}(?:\.\d{3})+(?:,\d+)?|-?\d+,\d+")


def _base(lang: str) -> str:
    return (lang or "en").split("-")[0].lower()


def language_ok(answer: str, lang: str) -> bool:
    """False when the answer holds more English stopwords than ones of ``lang`` (a bare number passes)."""
    base = _base(lang)
    if base == "en" or base not in STOPWORDS:
        return True
    words = re.findall(r"[^\W\d_]+", answer.lower())
    return sum(w in STOPWORDS[base] for w in words) >= sum(w in STOPWORDS["en"] for w in words)


def numbers_spoken(answer: str, lang: str, digits: Digits) -> list[float]:
    """Every number in the answer: as digits, as number words in ``lang``, and, outside English,
    with that language's decimal comma and thousands point (352,5; 1.000)."""
    found = numbers_in(answer) + numbers_in(digits(answer, lang or "en"))
    if _base(lang) != "en":
        for raw in _LOCALE_NUMBER.findall(answer):
            found.append(float(raw.replace(".", "").replace(",", ".")))
    return found


def _near(values: list[float], target: float, tol: float) -> bool:
    return any(abs(v - target) <= tol for v in values)


def check_spoken(
    task: dict[str, Any],
    answers: list[str],
    calls: list[list[dict[str, Any]] | None] | None,
    moments: list[dt.datetime] | None = None,
    digits: Digits | None = None,
) -> tuple[bool, str]:
    """``(passed, why not)`` for one conversation: its last answer and every tool call it made."""
    digits = digits or numbers_to_digits
    answer = (answers or [""])[-1] or ""
    if not answer.strip():
        return False, "no answer"
    if _PROTOCOL.search(answer):
        return False, "protocol spoken"
    forbidden = task.get("no_tools") or []
    if forbidden:
        if calls is None or any(c is None for c in calls):
            raise ValueError(
                f"{task['id']}: the adapter recorded no tool calls, so no_tools cannot be checked"
            )
        used = [c for turn in calls for c in turn or [] if "*" in forbidden or c["toolbox"] in forbidden]
        if used:
            return False, f"tool called: {used[0]['tool']}"
    lang = task.get("lang", "en-US")
    if not language_ok(answer, lang):
        return False, f"not in {lang}"
    spec = task["check"]
    kind = spec["type"]
    tol = float(spec.get("tol", 1e-6))
    if kind == "any":
        return _verdict(len(answer.split()) >= 2, "too short")
    if kind == "number":
        found = numbers_spoken(answer, lang, digits)
        if any(_near(found, float(r), tol) for r in spec.get("reject", [])):
            return False, "rejected value"
        for moment in moments or [None]:  # type: ignore[list-item]
            target = float(fill(str(spec["value"]), spoken_placeholders("", moment)))
            if _near(found, target, tol):
                return True, ""
        return False, "wrong value"
    if kind == "contains":
        low = answer.lower()
        if any(r.lower() in low for r in spec.get("reject", [])):
            return False, "rejected value"
        return _verdict(any(v.lower() in low for v in spec["value"]), "wrong value")
    if kind == "regex":
        texts = [answer, digits(answer, lang)]
        for moment in moments or [None]:  # type: ignore[list-item]
            pattern = fill(spec["value"], spoken_placeholders("", moment))
            if any(re.search(pattern, text, re.IGNORECASE) for text in texts):
                return True, ""
        return False, "wrong value"
    raise ValueError(f"unknown check type {kind!r} in task {task['id']}")


def _verdict(passed: bool, why_not: str) -> tuple[bool, str]:
    return passed, "" if passed else why_not


# Sentence punctuation, not a decimal point or comma between digits: the parser reads "five." as no number.
_PUNCTUATION = re.compile(r"(?<!\d)[.,!?;:]|[.,!?;:](?!\d)")


def numbers_to_digits(text: str, lang: str) -> str:
    """Number words as digits, by ``ovos-number-parser`` (the OVOS ecosystem's maintained parser):
    imported where the bench runs with it, else run in the ``bench`` venv, which installs it."""
    text = _PUNCTUATION.sub(" ", text)
    try:
        from ovos_number_parser import numbers_to_digits as convert
    except ImportError:
        return _digits_in_bench_venv(text, lang)
    return str(convert(text, lang=lang))


def _digits_in_bench_venv(text: str, lang: str) -> str:
    import venvs

    python = venvs.ensure("bench")
    code = (
        "import json, sys; from ovos_number_parser import numbers_to_digits as f; "
        "a = json.load(sys.stdin); print(json.dumps(f(a[0], lang=a[1])))"
    )
    out = subprocess.run(
        [str(python), "-c", code], input=json.dumps([text, lang]), capture_output=True, text=True, timeout=60
    )
    if out.returncode != 0:
        raise RuntimeError(f"ovos-number-parser failed in the bench venv: {out.stderr.strip()[-500:]}")
    return str(json.loads(out.stdout))


# --- running one task ---------------------------------------------------------------------------


def make_spoken_sandbox(task: dict[str, Any]) -> str:
    """A fresh folder holding the files the task sets up (the persona's filesystem and shell root)."""
    root = Path(tempfile.mkdtemp(prefix="bench-spoken-"))
    for rel, content in (task.get("files") or {}).items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
    return str(root)


def run_spoken(
    system: Any,
    task: dict[str, Any],
    proxy: CountingProxy,
    run_adapter: Any,
    timeout: float = 900,
    tag: str = "t5s",
    configure: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """One conversation in a new process and a fresh sandbox, like figure 5's ``run_task``;
    ``configure(job)`` changes the job first (figure 10 adds tools and settings)."""
    sandbox = make_spoken_sandbox(task)
    model = f"{tag}-{system.key}-{task['id']}-{uuid.uuid4().hex[:6]}"
    start = dt.datetime.now(dt.timezone.utc)
    job = {
        "kind": "conversation",
        "base_url": proxy.base_url,
        "model": model,
        "tools": "none",
        "sandbox": sandbox,
        "prompts": task["turns"],
        "lang": task.get("lang"),
        "max_tokens": 512,
        "temperature": 0.2,
        "request_timeout": 600,
        **persona_job(sandbox),
    }
    job["engine_extra"]["time_budget"] = 900
    if configure is not None:
        configure(job)
    try:
        res = run_adapter(system, job, timeout=timeout, cwd=sandbox)
        timed_out = False
    except subprocess.TimeoutExpired:
        proxy.cancel(model)
        res, timed_out = {"ok": False, "error": f"timed out after {timeout:.0f} s"}, True
    except KeyboardInterrupt:
        proxy.cancel(model)
        shutil.rmtree(sandbox, ignore_errors=True)
        raise
    end = dt.datetime.now(dt.timezone.utc)
    shutil.rmtree(sandbox, ignore_errors=True)
    answers = [a or "" for a in res.get("answers") or []] if res.get("ok") else []
    if res.get("ok"):
        ok, why = check_spoken(task, answers, res.get("calls"), [start, end])
    else:
        ok, why = False, "timed out" if timed_out else "engine error"
    seconds = timeout if timed_out else sum(res.get("samples") or [(end - start).total_seconds()])
    return {
        "task": task["id"],
        "category": task["category"],
        "half": task.get("half", ""),
        "ok": ok,
        "why": why if not ok else "",
        "calls": proxy.calls.get(model, 0),
        "tool_calls": [c["tool"] for turn in res.get("calls") or [] for c in turn or []],
        "prompt_tokens": proxy.prompt_tokens.get(model, 0),
        "seconds": seconds,
        "answer": (answers[-1] if answers else "")[:300],
        "unsayable": unsayable(answers[-1]) if ok and answers else None,  # right, not as a voice says it
        "turns": len(answers),
        "error": res.get("error"),
        "timed_out": timed_out,
        "model": model,
        # The rules that corrected the model (ours only: its final events); the ablation reads them.
        "rules": res.get("rules"),
        **({"first_sentence": res["first_sentence"]} if res.get("first_sentence") else {}),
        **({"first_audible": res["first_audible"]} if res.get("first_audible") else {}),
    }


def _about(n_tasks: int) -> str:
    return (
        f"{n_tasks} spoken questions from bench/tasks/spoken.json (lowercase, no punctuation, numbers "
        "as words; follow-ups as two-turn conversations; pt/es/de with lang set; knowledge and chit-chat "
        "that must not call a file/shell tool, or any tool), one run each, every system on the same "
        "llama-server; each with the toolboxes, settings and system prompt of "
        "personas/local-assistant.json (math, clock, filesystem read-only, shell), rooted in a fresh "
        "sandbox with the task's files; a new process per question; model calls counted by a proxy "
        "(calls / question counts every turn of a conversation); max_tokens 512, temperature 0.2."
    )


SPOKEN = Suite(
    key="fig5s",
    figure="5s",
    title="spoken questions, full local-assistant tool set (real model on llama-server)",
    load=load_spoken,
    run=run_spoken,
    about=_about,
    group=lambda task: (),  # one tool set for every question: file order, which keeps categories together
)
