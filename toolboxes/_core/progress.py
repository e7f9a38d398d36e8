"""What a voice says while a bundled tool runs, per tool and language: the toolboxes' declared phrases.

A loop that speaks while a slow tool runs ("Checking the time in London.") finds these in the
tool's annotations (``TOOL_PROGRESS_KEY``), so it needs no model call and never imports this
package. Each language lists templates, most specific first: ``{name}`` is the call's argument of
that name, and a template whose argument the call lacks is skipped for the next one.
"""

from __future__ import annotations

__all__ = ["PHRASES"]

_TIME = {
    "en": ["Checking the time in {timezone}.", "Checking the time."],
    "pt": ["A ver as horas em {timezone}.", "A ver as horas."],
    "es": ["Mirando la hora en {timezone}.", "Mirando la hora."],
    "de": ["Ich schaue, wie spät es in {timezone} ist.", "Ich schaue auf die Uhr."],
    "fr": ["Je regarde l'heure à {timezone}.", "Je regarde l'heure."],
    "it": ["Controllo l'ora a {timezone}.", "Controllo l'ora."],
}
_CONVERT_TIME = {
    "en": ["Working out the time in {to_timezone}."],
    "pt": ["A calcular as horas em {to_timezone}."],
    "es": ["Calculando la hora en {to_timezone}."],
    "de": ["Ich rechne die Uhrzeit in {to_timezone} aus."],
    "fr": ["Je calcule l'heure à {to_timezone}."],
    "it": ["Calcolo l'ora a {to_timezone}."],
}
_CALENDAR = {
    "en": ["Checking the calendar."],
    "pt": ["A ver o calendário."],
    "es": ["Mirando el calendario."],
    "de": ["Ich schaue in den Kalender."],
    "fr": ["Je regarde le calendrier."],
    "it": ["Controllo il calendario."],
}
_READ = {
    "en": ["Reading {path}."],
    "pt": ["A ler {path}."],
    "es": ["Leyendo {path}."],
    "de": ["Ich lese {path}."],
    "fr": ["Je lis {path}."],
    "it": ["Leggo {path}."],
}
_WRITE = {
    "en": ["Writing {path}."],
    "pt": ["A escrever {path}."],
    "es": ["Escribiendo {path}."],
    "de": ["Ich schreibe {path}."],
    "fr": ["J'écris {path}."],
    "it": ["Scrivo {path}."],
}
_FILES = {
    "en": ["Looking through your files."],
    "pt": ["A procurar nos teus ficheiros."],
    "es": ["Buscando en tus archivos."],
    "de": ["Ich sehe deine Dateien durch."],
    "fr": ["Je regarde dans vos fichiers."],
    "it": ["Cerco tra i tuoi file."],
}
_MATHS = {
    "en": ["Working it out."],
    "pt": ["A fazer as contas."],
    "es": ["Haciendo el cálculo."],
    "de": ["Ich rechne das aus."],
    "fr": ["Je fais le calcul."],
    "it": ["Faccio il calcolo."],
}
_COMMAND = {
    "en": ["Running the command."],
    "pt": ["A executar o comando."],
    "es": ["Ejecutando el comando."],
    "de": ["Ich führe den Befehl aus."],
    "fr": ["J'exécute la commande."],
    "it": ["Eseguo il comando."],
}
_WEB = {
    "en": ["Searching the web for {query}.", "Searching the web."],
    "pt": ["A pesquisar na web por {query}.", "A pesquisar na web."],
    "es": ["Buscando en la web {query}.", "Buscando en la web."],
    "de": ["Ich suche im Web nach {query}.", "Ich suche im Web."],
    "fr": ["Je cherche {query} sur le web.", "Je cherche sur le web."],
    "it": ["Cerco {query} sul web.", "Cerco sul web."],
}
_PAGE = {
    "en": ["Opening the page."],
    "pt": ["A abrir a página."],
    "es": ["Abriendo la página."],
    "de": ["Ich öffne die Seite."],
    "fr": ["J'ouvre la page."],
    "it": ["Apro la pagina."],
}

#: Tool name -> language -> templates. Tools not listed get the loop's plain "One moment.".
PHRASES: dict[str, dict[str, list[str]]] = {
    "get_current_datetime": _TIME,
    "convert_timezone": _CONVERT_TIME,
    "days_between": _CALENDAR,
    "add_to_date": _CALENDAR,
    "get_weekday": _CALENDAR,
    "read_file": _READ,
    "write_file": _WRITE,
    "list_directory": _FILES,
    "search_in_files": _FILES,
    "find_files": _FILES,
    "evaluate_expression": _MATHS,
    "solve_equation": _MATHS,
    "unit_convert": _MATHS,
    "statistics_summary": _MATHS,
    "run_command": _COMMAND,
    "web_search": _WEB,
    "fetch_page": _PAGE,
}
