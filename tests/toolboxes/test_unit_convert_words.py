"""unit_convert given units written as words ("Miles", "kilowatt-hours", "short tons"): read as the
units they name, with the reading said in the result, instead of refused ("Tools that do what the
model means"). Only what pint does not read as written is reread, so no working unit changes meaning.

Reached through ``call_tool``, the way a loop reaches a toolbox."""

from __future__ import annotations

from typing import Any

import pytest
from ovos_plugin_manager.persona import find_toolbox_plugins
from ovos_plugin_manager.templates.agent_tools import ToolBox

from ovos_agentic_loop_toolboxes.maths.toolbox import UnitConvertOutput


@pytest.fixture(scope="module")
def tb() -> ToolBox:
    return find_toolbox_plugins()["ovos-math-tools"](config={"lang": "en-US"})


def refusal(tb: ToolBox, name: str, **kwargs: Any) -> str:
    with pytest.raises(RuntimeError) as excinfo:
        tb.call_tool(name, kwargs)
    assert excinfo.value.__cause__ is not None
    return str(excinfo.value.__cause__)


@pytest.mark.parametrize(
    ("source", "target", "expected", "read"),
    [
        # Accepted before as well: pint reads these English names itself.
        (
            "miles",
            "kilometers",
            1.609344,
            "from_unit 'miles' read as mile, to_unit 'kilometers' as kilometer",
        ),
        ("degrees fahrenheit", "degC", -17.2222222222, "read as degree Fahrenheit"),
        ("pounds", "kg", 0.45359237, "from_unit 'pounds' read as pound"),
        ("inches", "cm", 2.54, "from_unit 'inches' read as inch"),
        ("feet", "m", 0.3048, "from_unit 'feet' read as foot"),
        # Refused before: capitals, hyphens, qualifiers pint writes with an underscore.
        (
            "Miles",
            "Kilometers",
            1.609344,
            "from_unit 'Miles' read as mile, to_unit 'Kilometers' as kilometer",
        ),
        ("INCHES", "cm", 2.54, "from_unit 'INCHES' read as inch"),
        ("Feet", "m", 0.3048, "from_unit 'Feet' read as foot"),
        ("Pounds", "kg", 0.45359237, "from_unit 'Pounds' read as pound"),  # was refused as money
        ("Kilometers Per Hour", "mph", 0.621371192237, "read as kilometer / hour"),
        ("degrees Kelvin", "degC", -272.15, "from_unit 'degrees Kelvin' read as kelvin"),
        ("kilowatt-hours", "MJ", 3.6, "from_unit 'kilowatt-hours' read as kilowatt hour"),
        ("short tons", "kg", 907.18474, "from_unit 'short tons' read as ton"),
        ("imperial gallons", "liters", 4.54609, "from_unit 'imperial gallons' read as imperial gallon"),
        ("US gallons", "liters", 3.785411784, "from_unit 'US gallons' read as gallon"),
    ],
)
def test_units_in_words_are_read_and_the_reading_is_said(
    tb: ToolBox, source: str, target: str, expected: float, read: str
) -> None:
    out = tb.call_tool("unit_convert", {"value": 1, "from_unit": source, "to_unit": target})
    assert out.result == pytest.approx(expected, rel=1e-9)
    assert out.read_as is not None and read in out.read_as


def test_a_short_symbol_in_capitals_is_not_guessed(tb: ToolBox) -> None:
    # 'NM' is a nautical mile to a pilot and 'nm' a nanometre: case is only folded for words.
    reason = refusal(tb, "unit_convert", value=1, from_unit="NM", to_unit="m")
    assert "unknown unit 'NM'" in reason


def test_money_is_still_money_once_units_are_read(tb: ToolBox) -> None:
    assert "'Euros' is money" in refusal(tb, "unit_convert", value=1, from_unit="Pounds", to_unit="Euros")


def test_unit_output_stays_backwards_compatible() -> None:
    old = UnitConvertOutput(value=1, from_unit="km", result=1000, to_unit="m", dimension="length", text="")
    assert old.read_as is None


@pytest.mark.parametrize(
    ("kwargs", "advice"),
    [
        ({"value": 1, "from_unit": "arrobas", "to_unit": "lb"}, "send from_unit as a unit symbol"),
        ({"value": 1, "from_unit": "kg", "to_unit": "arrobas"}, "send to_unit as a unit symbol"),
        ({"value": 1, "from_unit": "km", "to_unit": "kg"}, "send to_unit as a unit of length"),
        (
            {"value": 1, "from_unit": "MB", "to_unit": "percent"},
            "send from_unit and to_unit both as units of",
        ),
    ],
)
def test_a_unit_refusal_says_what_to_send(tb: ToolBox, kwargs: dict[str, Any], advice: str) -> None:
    assert advice in refusal(tb, "unit_convert", **kwargs).lower()


@pytest.mark.parametrize(
    ("value", "source", "target", "expected"),
    [
        (70, "kilos", "pounds", 154.323583529),  # pint alone reads "kilos" as kilo-seconds
        (100, "Kilometer", "Meilen", 62.1371192237),
        (2, "quilos", "libras", 4.4092452437),
        (3, "pies", "metros", 0.9144),
        (2.5, "libras", "onças", 40.0),
    ],
)
def test_units_said_in_the_readers_languages_are_the_units_they_name(
    tb: ToolBox, value: float, source: str, target: str, expected: float
) -> None:
    out = tb.call_tool("unit_convert", {"value": value, "from_unit": source, "to_unit": target})
    assert isinstance(out, UnitConvertOutput)
    assert out.result == pytest.approx(expected)
