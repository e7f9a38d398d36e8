"""Amounts of money in a calculation: the currency of its amounts is read off, never a guess."""

from __future__ import annotations

from typing import Any

import pytest
from ovos_plugin_manager.persona import find_toolbox_plugins


def _calculate(expression: str, lang: str = "en-US") -> Any:
    maths = find_toolbox_plugins()["ovos-math-tools"](config={"lang": lang})
    return maths.call_tool("evaluate_expression", {"expression": expression})


@pytest.mark.parametrize(
    ("expression", "lang", "result", "read_as"),
    [
        ("15% of 4200 euros", "en-US", "630", "15% of 4200"),
        ("€4200 * 0.15", "en-US", "630", "4200 * 0.15"),
        ("25 dollars + 3 dollars", "en-US", "28", "25 + 3"),
        ("$84.50 + 15%", "en-US", "97.175", "84.50 + 15%"),
        ("250 EUR + 19%", "de-DE", "297.5", "250 + 19%"),
        ("250 Euro + 19%", "de-DE", "297.5", "250 + 19%"),
        ("1200 reais / 4", "pt-PT", "300", "1200 / 4"),
        ("300 dólares - 20", "es-ES", "280", "300 - 20"),
        ("100 € + 20 euros", "en-US", "120", "100 + 20"),
    ],
)
def test_a_calculation_with_the_currency_of_its_amounts_is_calculated(
    expression: str, lang: str, result: str, read_as: str
) -> None:
    output = _calculate(expression, lang)
    assert (output.result, output.read_as) == (result, read_as)


def test_two_currencies_are_refused_for_want_of_exchange_rates() -> None:
    with pytest.raises(RuntimeError, match="two currencies: there are no exchange rates here"):
        _calculate("100 dollars + 20 euros")


@pytest.mark.parametrize("expression", ["15 kg + 3", "5 apples * 2", "the budget * 0.15"])
def test_what_is_not_money_stays_refused(expression: str) -> None:
    with pytest.raises(RuntimeError, match="evaluate_expression"):
        _calculate(expression)


def test_a_calculation_without_money_reads_as_before() -> None:
    output = _calculate("15% of 2350")
    assert (output.result, output.read_as) == ("352.5", None)
