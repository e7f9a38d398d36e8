"""Unit conversion through pint, with the spellings small models use and helpful errors.

pint is imported lazily (its registry takes about half a second to build) and one registry is
shared by every toolbox instance. pint parses unit text with its own tokenizer; it is never
evaluated as Python.
"""

from __future__ import annotations

import difflib
import functools
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

MAX_UNIT_CHARS = 60
_UNIT_TEXT = re.compile(r"[\w\s/*^.°º²³µμ()-]+")
_BIG_EXPONENT = re.compile(r"(\*\*|\^)\s*-?\d{2,}")
# An exponent must be one plain number: pint evaluates 'm^9^9^9' as 9**(9**9), an integer with
# 370 million digits (minutes of CPU and gigabytes), and 'm^(9^9)' the same way.
_POWER = re.compile(r"\*\*|\^")
_PLAIN_EXPONENT = re.compile(r"-?\d(?:\.\d{1,3})?(?!\d)")

# Spellings pint does not know, or reads as something else (pint's 'C' is coulomb, 'F' farad,
# 'kb' kilobarn). Keys are matched as written first, then lower-cased.
ALIASES = {
    "C": "degC",
    "°C": "degC",
    "ºC": "degC",
    "celsius": "degC",
    "centigrade": "degC",
    "centígrados": "degC",
    "centigrados": "degC",
    "degrees celsius": "degC",
    "degree celsius": "degC",
    "F": "degF",
    "°F": "degF",
    "ºF": "degF",
    "fahrenheit": "degF",
    "degrees fahrenheit": "degF",
    "degree fahrenheit": "degF",
    "KB": "kilobyte",
    "Kb": "kilobit",
    "kb": "kilobit",
    "kbit": "kilobit",
    "Mb": "megabit",
    "Gb": "gigabit",
    "Tb": "terabit",
    "kmh": "km/h",
    "kmph": "km/h",
    "km/hr": "km/h",
    "light year": "light_year",
    "light years": "light_year",
    "lightyear": "light_year",
    "nautical mile": "nautical_mile",
    "nautical miles": "nautical_mile",
    "metric ton": "metric_ton",
    "metric tons": "metric_ton",
    "fl oz": "fluid_ounce",
    "fluid ounce": "fluid_ounce",
    "fluid ounces": "fluid_ounce",
    "acre": "international_acre",
    "acres": "international_acre",
    "sq m": "m**2",
    "sq km": "km**2",
    "sq mi": "mi**2",
    "square meters": "m**2",
    "square metres": "m**2",
    "square kilometers": "km**2",
    "square miles": "mi**2",
    "cubic meters": "m**3",
    "cubic metres": "m**3",
    # pint's 'gallon' is the US liquid gallon; 'us' alone is its microsecond.
    "us gallon": "gallon",
    "us gallons": "gallon",
    "uk gallon": "imperial_gallon",
    "uk gallons": "imperial_gallon",
    # pint reads "kilos" as kilo-seconds (time); a voice means kilograms
    "kilo": "kg",
    "kilos": "kg",
}
# The units a voice converts, as said in the other languages the toolbox reads (see _core.language):
# "wie viele Meilen sind hundert Kilometer" was sent as to_unit 'Meilen', which pint does not know.
_SAID_UNITS = {
    "mile": "milha milhas milla millas meile meilen",
    "km": "quilómetro quilómetros quilometro quilometros kilómetro kilómetros kilometro kilometros",
    "meter": "metro metros",
    "foot": "pé pés pe pes pie pies fuß fuss füße",
    "inch": "polegada polegadas pulgada pulgadas zoll",
    "yard": "jarda jardas yarda yardas",
    "pound": "libra libras pfund",
    "ounce": "onça onças onza onzas unze unzen",
    "gram": "grama gramas gramo gramos gramm",
    "kg": "quilo quilos quilograma quilogramas kilogramo kilogramos kilogramm",
    "liter": "litro litros",
    "gallon": "galão galões galón galones gallone gallonen",
}
ALIASES.update({word: unit for unit, words in _SAID_UNITS.items() for word in words.split()})
# The word for "degree" in the languages the toolbox reads (see _core.language).
_DEGREE_WORDS = frozenset(
    {"deg", "degree", "degrees", "grad", "grade", "grau", "graus", "grado", "grados", "degré", "degrés",
     "gradi", "graden", "graad"}
)  # fmt: skip
_DEGREE_SIGN = re.compile(r"[°º]\s*([cf])", re.IGNORECASE)
# A word of three letters or more: only words are read without their capitals ('Miles', 'INCHES');
# a short symbol's case is its meaning ('NM' is a pilot's nautical mile, 'nm' a nanometre).
_WORD = re.compile(r"[^\W\d_]{3,}")
_HYPHEN = re.compile(r"(?<=[^\W\d_])-(?=[^\W\d_])")  # 'kilowatt-hours', never 'm^-2'
_COMMON = [
    "meter", "kilometer", "centimeter", "millimeter", "mile", "yard", "foot", "inch", "gram", "kilogram",
    "pound", "ounce", "stone", "tonne", "liter", "milliliter", "gallon", "quart", "pint", "cup",
    "degC", "degF", "kelvin", "km/h", "mph", "m/s", "knot", "acre", "hectare", "byte", "bit",
    "kilobyte", "megabyte", "gigabyte", "KiB", "MiB", "GiB", "second", "minute", "hour", "day", "week",
    "year", "joule", "kilojoule", "calorie", "kilocalorie", "kWh", "pascal", "bar", "psi", "atm",
]  # fmt: skip


# pint names compound dimensions by their base units; people call them by these names.
_FRIENDLY = {
    "length ** 2": "area",
    "length ** 3": "volume",
    "length / time": "speed",
    "mass * length ** 2 / time ** 2": "energy",
    "mass / length / time ** 2": "pressure",
    "mass * length ** 2 / time ** 3": "power",
}


@dataclass(frozen=True)
class Conversion:
    result: float
    from_unit: str
    to_unit: str
    dimension: str
    from_name: str = ""  # the units' full names, as read: 'mile', 'degree Fahrenheit'
    to_name: str = ""


@functools.lru_cache(maxsize=1)
def registry() -> Any:
    import pint

    ureg: Any = pint.UnitRegistry()
    # pint's 'acre' is the US survey acre, retired in 2023; people mean the international one.
    ureg.define("international_acre = 4046.8564224 * meter ** 2")
    return ureg


def convert(value: float, from_unit: str, to_unit: str) -> Conversion:
    """Convert with pint; offset units (°C, °F) are handled as temperatures, not differences."""
    import pint

    ureg = registry()
    source, target = _unit(from_unit, "from_unit"), _unit(to_unit, "to_unit")
    try:
        quantity = ureg.Quantity(value, source)
        converted = quantity.to(target)
    except pint.errors.UndefinedUnitError as exc:
        what, bad = ("from_unit", from_unit) if _undefined(source) else ("to_unit", to_unit)
        if is_currency(bad):
            # Said plainly, with what to do instead: told only "unknown unit 'dollars' ... did you mean
            # 'molar'?", the bundled model sent the same dollars-to-euros call again until stopped.
            raise ValueError(
                f"{bad!r} is money: unit_convert has no exchange rates. Answer with the amount in the "
                "currency the question used, unconverted"
            ) from None
        raise ValueError(
            f"unknown unit {bad!r} ({exc}); {_suggest(bad)} Send {what} as a unit symbol or an English "
            "unit name, such as 'kg', 'lb', 'km', 'mi', 'degC', 'degF', 'liters' (no currencies)"
        ) from None
    except pint.errors.DimensionalityError:
        measured = _dimension(ureg, source)
        raise ValueError(
            f"cannot convert {from_unit!r} ({measured}) to {to_unit!r} "
            f"({_dimension(ureg, target)}): they measure different things; send to_unit as a unit of "
            f"{measured}, or check which units the user named"
        ) from None
    except (pint.errors.PintError, ArithmeticError, ValueError, TypeError, KeyError) as exc:
        raise ValueError(f"cannot convert {from_unit!r} to {to_unit!r}: {exc}") from None
    if _is_data(ureg, source) != _is_data(ureg, target):
        # pint treats bits and bytes as dimensionless, so it would convert KB to percent.
        raise ValueError(
            f"cannot convert {from_unit!r} to {to_unit!r}: only one of them is an amount of data; send "
            "from_unit and to_unit both as units of data, such as 'MB' and 'MiB'"
        )
    _check_above_absolute_zero(ureg, quantity, value, from_unit)
    result = float(f"{float(converted.magnitude):.12g}")  # Hide float noise: 211.99999999999991 °F.
    if not math.isfinite(result):
        raise ValueError(f"{value:g} {from_unit} is too large to express in {to_unit} (above about 1e308)")
    return Conversion(
        result,
        f"{quantity.units:~P}" or source,
        f"{converted.units:~P}",
        _dimension(ureg, source),
        _name(quantity.units),
        _name(converted.units),
    )


def _name(units: Any) -> str:
    """A unit's full name as pint reads it: 'mile', 'kilometer / hour', 'degree Fahrenheit'."""
    return f"{units}".replace("_", " ")


def _check_above_absolute_zero(ureg: Any, quantity: Any, value: float, from_unit: str) -> None:
    """-300 °C is no temperature: a lost or doubled sign, refused rather than converted."""
    if "temperature" not in str(quantity.dimensionality) or "delta" in str(quantity.units):
        return
    if float(quantity.to(ureg.kelvin).magnitude) < -1e-9:
        raise ValueError(
            f"{value:g} {from_unit} is below absolute zero (-273.15 degC, -459.67 degF, 0 kelvin): "
            "check the amount and its sign in the user's words"
        )


def _unit(text: str, what: str) -> str:
    """The unit text pint is given for ``text``: as written where pint reads it, else the first
    other spelling of it that pint reads (see ``_spellings``), else as written (refused by name)."""
    cleaned = " ".join(text.strip().split())
    if not cleaned or len(cleaned) > MAX_UNIT_CHARS or not _UNIT_TEXT.fullmatch(cleaned):
        raise ValueError(
            f"{what} {text!r} is not a unit name; write units like 'km', 'mph', 'degC', 'liters', "
            "with the amount alone in value"
        )
    if _BIG_EXPONENT.search(cleaned) or not _plain_exponents(cleaned):
        raise ValueError(f"{what} {text!r} has an exponent above 9; use units such as 'm^2' or 'm^3'")
    as_written = _canonical(cleaned)
    if not _undefined(as_written):
        return as_written
    for spelling in _spellings(cleaned):
        unit = _canonical(spelling)
        if not _undefined(unit):
            return unit
    return as_written


def _spellings(unit: str) -> Iterator[str]:
    """Other ways ``unit`` is written, for one pint does not read as written: its words without
    capitals ('Kilometers Per Hour'), a hyphen as pint's underscore or as a product
    ('kilowatt-hours', 'newton-meter'), and words joined as pint names them ('short tons' is
    short_ton, 'imperial gallons' imperial_gallon). Each keeps the text's own characters, so the
    exponent checks made on it still hold."""
    lowered = _WORD.sub(lambda word: word[0].lower(), unit)
    found: list[str] = []
    for text in (unit, lowered):
        joined = _HYPHEN.sub("_", text)
        found += [text, joined, _HYPHEN.sub(" ", text), "_".join(joined.split())]
    yield from (spelling for spelling in dict.fromkeys(found) if spelling != unit)


def _canonical(cleaned: str) -> str:
    """``cleaned`` through the aliases and the degree words ('degrees celsius', '°c')."""
    for key in (cleaned, cleaned.lower()):
        if key in ALIASES:
            return ALIASES[key]
    if sign := _DEGREE_SIGN.fullmatch(cleaned):  # "°c", "º f": pint reads '°c' as 'degreec'
        return ALIASES[sign[1].upper()]
    first, _, rest = cleaned.partition(" ")
    if rest and first.lower() in _DEGREE_WORDS:
        # "degrees celsius", "graus Celsius", "Grad Fahrenheit": the scale names are the same
        # in these languages; "grados C" must still be degC, never pint's coulomb.
        scale = rest.strip()
        return ALIASES.get(scale.upper() if len(scale) == 1 else scale.lower(), scale)
    return cleaned


def _plain_exponents(unit: str) -> bool:
    """Whether every '^' or '**' is followed by one small number, and not by another power."""
    compact = "".join(unit.split())
    for power in _POWER.finditer(compact):
        exponent = _PLAIN_EXPONENT.match(compact, power.end())
        if exponent is None or _POWER.match(compact, exponent.end()):
            return False
    return True


def _undefined(unit: str) -> bool:
    import pint

    # Not only PintError: 'kilowatt-hours' raised a TypeError in pint's parser.
    try:
        registry().parse_units(unit)
    except (pint.errors.PintError, ValueError, TypeError, AttributeError, KeyError, ArithmeticError):
        return True
    return False


@functools.lru_cache(maxsize=1)
def _currency_words() -> frozenset[str]:
    """ISO codes and English names of currencies ('usd', 'dollar', 'dollars', 'euro'), from babel's
    CLDR data: the last word of each name, singular and plural. (Symbols such as '$' are refused
    earlier, as no unit name.)"""
    from babel import Locale

    words: set[str] = set()
    for code, name in Locale("en").currencies.items():
        words.add(str(code).lower())
        named = str(name).split("(")[0].split()
        if named:
            words |= {named[-1].lower(), named[-1].lower() + "s"}
    return frozenset(words)


def is_currency(unit: str) -> bool:
    """True when ``unit`` names money ('USD', 'dollars', 'US dollar'), which no units registry converts."""
    text = unit.strip().lower()
    return bool(text) and (text in _currency_words() or text.split()[-1] in _currency_words())


def _suggest(text: str) -> str:
    names = [*ALIASES, *_COMMON, *dir(registry())]
    by_lower = {n.lower(): n for n in reversed(names)}
    close = difflib.get_close_matches(text, names, n=3, cutoff=0.6)
    close += [by_lower[n] for n in difflib.get_close_matches(text.lower(), list(by_lower), n=3)]
    if close:
        return "did you mean " + " or ".join(repr(n) for n in dict.fromkeys(close[:3])) + "?"
    return "write units like 'km', 'mph', 'degC', 'liters', 'kg', 'MB'."


def _dimension(ureg: Any, unit: str) -> str:
    import pint

    try:
        quantity = ureg.Quantity(1, unit)
    except pint.errors.PintError:
        return "unknown"
    if _is_data(ureg, unit):
        return "data"
    named = str(quantity.dimensionality).replace("[", "").replace("]", "")
    return _FRIENDLY.get(named, named) or "dimensionless"


def _is_data(ureg: Any, unit: str) -> bool:
    return "bit" in str(ureg.Quantity(1, unit).to_root_units().units)


def same_unit(first: str, second: str) -> bool:
    """Whether two unit texts name the same unit ('celsius' and '°C'); False for text that is no unit."""
    import pint

    try:
        return bool(
            registry().parse_units(_unit(first, "unit")) == registry().parse_units(_unit(second, "unit"))
        )
    except (pint.errors.PintError, ValueError, TypeError, AttributeError):
        return False


def is_unit(text: str) -> bool:
    """Whether ``text`` names a unit this converter knows."""
    import pint

    try:
        registry().parse_units(_unit(text, "unit"))
    except (pint.errors.PintError, ValueError, TypeError, AttributeError):
        return False
    return True
