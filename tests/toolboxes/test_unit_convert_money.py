"""unit_convert and money: a currency is refused with what to do instead, never a 'did you mean' unit."""

from __future__ import annotations

import pytest

from ovos_agentic_loop_toolboxes.maths._units import convert, is_currency


@pytest.mark.parametrize("unit", ["dollars", "euros", "USD", "eur", "US dollar", "yen"])
def test_money_is_refused_with_what_to_do(unit: str) -> None:
    with pytest.raises(
        ValueError, match=r"is money: unit_convert has no exchange rates\. Answer with the amount"
    ):
        convert(352.5, unit, "kg")
    with pytest.raises(ValueError, match="is money"):
        convert(352.5, "kg", unit)


def test_units_that_share_a_name_with_money_still_convert() -> None:
    assert is_currency("pounds")  # sterling, but pint knows it as mass first
    assert convert(10, "pounds", "kg").result == pytest.approx(4.5359237)


@pytest.mark.parametrize("unit", ["kg", "meter", "degF", "liters", "mile", "kelvin", ""])
def test_units_are_not_money(unit: str) -> None:
    assert not is_currency(unit)
