"""What the user hears about a call that waits for a yes: the question, and the one sentence of a no.

Sentences a TTS can read: the action and its key arguments in words, no JSON, no protocol, in the
language of the turn's ``lang`` (English, Portuguese, Spanish, German, French, Italian; another
language gets English). Our own side-effect tools have their own phrasing ("Should I write
'call mom at six' to reminder.txt?"); any other tool is named in words with its arguments
("Should I use Hass turn on with name front door?").
"""

from __future__ import annotations

import re
from typing import Any

from ovos_agentic_loop._text.language import language_code

__all__ = ["TOO_LARGE", "cancelled", "declined", "elsewhere", "no_such_tool", "question"]

#: Longest argument value said in a question; a longer one is cut with "…".
MAX_SAID_CHARS = 80
MAX_SAID_ARGUMENTS = 3

_TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "write_file": "Should I write {content} to {path}?",
        "run_command": "Do you want me to run {command}?",
        "generic": "Should I use {tool}{with_args}?",
        "with": " with ",
        "and": " and ",
        "declined": "Okay, I won't do that.",
        "no_such_tool": "I can't do that any more: the tool {tool} is no longer available.",
        "cancelled": "That was cancelled when you said stop, so I did nothing.",
        "elsewhere": "Another assistant asked that question, so I did nothing here.",
    },
    "pt": {
        "write_file": "Devo escrever {content} em {path}?",
        "run_command": "Queres que eu execute {command}?",
        "generic": "Devo usar {tool}{with_args}?",
        "with": " com ",
        "and": " e ",
        "declined": "Está bem, não vou fazer isso.",
        "no_such_tool": "Já não posso fazer isso: a ferramenta {tool} deixou de estar disponível.",
        "cancelled": "Isso foi cancelado quando disseste parar, por isso não fiz nada.",
        "elsewhere": "Essa pergunta foi feita por outro assistente, por isso não fiz nada aqui.",
    },
    "es": {
        "write_file": "¿Escribo {content} en {path}?",
        "run_command": "¿Quieres que ejecute {command}?",
        "generic": "¿Uso {tool}{with_args}?",
        "with": " con ",
        "and": " y ",
        "declined": "De acuerdo, no lo haré.",
        "no_such_tool": "Ya no puedo hacerlo: la herramienta {tool} ya no está disponible.",
        "cancelled": "Eso se canceló cuando dijiste para, así que no hice nada.",
        "elsewhere": "Esa pregunta la hizo otro asistente, así que aquí no hice nada.",
    },
    "de": {
        "write_file": "Soll ich {content} in {path} schreiben?",
        "run_command": "Soll ich {command} ausführen?",
        "generic": "Soll ich {tool}{with_args} verwenden?",
        "with": " mit ",
        "and": " und ",
        "declined": "In Ordnung, das mache ich nicht.",
        "no_such_tool": "Das kann ich nicht mehr: das Werkzeug {tool} ist nicht mehr verfügbar.",
        "cancelled": "Das wurde abgebrochen, als du Stopp gesagt hast, also habe ich nichts getan.",
        "elsewhere": "Diese Frage hat ein anderer Assistent gestellt, also habe ich hier nichts getan.",
    },
    "fr": {
        "write_file": "Dois-je écrire {content} dans {path} ?",
        "run_command": "Voulez-vous que j'exécute {command} ?",
        "generic": "Dois-je utiliser {tool}{with_args} ?",
        "with": " avec ",
        "and": " et ",
        "declined": "D'accord, je ne le ferai pas.",
        "no_such_tool": "Je ne peux plus le faire : l'outil {tool} n'est plus disponible.",
        "cancelled": "Cela a été annulé quand vous avez dit stop, donc je n'ai rien fait.",
        "elsewhere": "Cette question a été posée par un autre assistant, donc je n'ai rien fait ici.",
    },
    "it": {
        "write_file": "Devo scrivere {content} in {path}?",
        "run_command": "Vuoi che esegua {command}?",
        "generic": "Devo usare {tool}{with_args}?",
        "with": " con ",
        "and": " e ",
        "declined": "Va bene, non lo farò.",
        "no_such_tool": "Non posso più farlo: lo strumento {tool} non è più disponibile.",
        "cancelled": "È stato annullato quando hai detto stop, quindi non ho fatto nulla.",
        "elsewhere": "Quella domanda l'ha fatta un altro assistente, quindi qui non ho fatto nulla.",
    },
}


def _texts(lang: str | None) -> dict[str, str]:
    return _TEXTS.get(language_code(lang), _TEXTS["en"])


def _said(value: Any) -> str:
    """An argument value as words: one line, bounded."""
    text = (
        " ".join(str(value).split())
        if not isinstance(value, (dict, list))
        else " ".join(str(v) for v in (value.values() if isinstance(value, dict) else value))
    )
    return text if len(text) <= MAX_SAID_CHARS else text[:MAX_SAID_CHARS].rstrip() + "…"


def _words(name: str) -> str:
    """A tool name as words: ``HassTurnOn`` -> "Hass turn on", ``add_note`` -> "add note"."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name.replace("_", " ").replace("-", " "))
    head, _, rest = spaced.partition(" ")
    return f"{head} {rest.lower()}".strip()


def question(tool: str, arguments: dict[str, Any], lang: str | None) -> str:
    """The one question that asks for a yes before ``tool`` runs with ``arguments``."""
    texts = _texts(lang)
    if tool == "write_file" and {"path", "content"} <= set(arguments):
        return texts["write_file"].format(
            content=f"'{_said(arguments['content'])}'", path=_said(arguments["path"])
        )
    if tool == "run_command" and "command" in arguments:
        return texts["run_command"].format(command=f"`{_said(arguments['command'])}`")
    said = [f"{_words(k)} {_said(v)}" for k, v in arguments.items() if v not in (None, "", [], {})][
        :MAX_SAID_ARGUMENTS
    ]
    with_args = texts["with"] + texts["and"].join(said) if said else ""
    return texts["generic"].format(tool=_words(tool), with_args=with_args)


def declined(lang: str | None) -> str:
    """The one sentence of a no: nothing ran."""
    return _texts(lang)["declined"]


def no_such_tool(tool: str, lang: str | None) -> str:
    """A yes to a call whose tool is gone (the persona changed between the turns): nothing ran."""
    return _texts(lang)["no_such_tool"].format(tool=_words(tool))


def cancelled(lang: str | None) -> str:
    """A yes to a question the user stopped (said "stop" after it): nothing ran."""
    return _texts(lang)["cancelled"]


def elsewhere(lang: str | None) -> str:
    """A yes or no to a question another engine (another persona) asked: nothing ran here."""
    return _texts(lang)["elsewhere"]


#: What the model is told when a call needs a yes but its arguments are too large to carry (never
#: heard by the user: it goes back to the model as a corrective message).
TOO_LARGE = (
    "This call needs the user's confirmation, but its arguments are too large to hold until the user "
    "answers. Make the call with smaller arguments, or tell the user what you would do."
)
