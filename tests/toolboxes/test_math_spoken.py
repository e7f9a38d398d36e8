"""Numbers and operators said in words reach ovos-math-tools the way a small model copies them
from the user, in en, pt, es and de; through ``call_tool``, as every OPM host calls it."""

from __future__ import annotations

from typing import Any

import pytest
from ovos_plugin_manager.persona import find_toolbox_plugins
from ovos_plugin_manager.templates.agent_tools import ToolBox


@pytest.fixture(scope="module")
def boxes() -> dict[str, ToolBox]:
    cls = find_toolbox_plugins()["ovos-math-tools"]
    return {lang: cls(config={"lang": lang}) for lang in ("en-US", "pt-PT", "es-ES", "de-DE")}


def calculate(tb: ToolBox, expression: str) -> Any:
    return tb.call_tool("evaluate_expression", {"expression": expression})


def refusal(tb: ToolBox, name: str, kwargs: dict[str, Any]) -> str:
    with pytest.raises((RuntimeError, ValueError)) as excinfo:
        tb.call_tool(name, kwargs)
    return str(excinfo.value)


@pytest.mark.parametrize(
    ("lang", "expression", "result", "read_as"),
    [
        ("en-US", "fifteen percent of two thousand three hundred and fifty", "352.5", "15 % * 2350"),
        # Given the whole sentence, the number parser reads this as -12 and drops the seven.
        ("en-US", "seven minus twelve", "-5", "7 - 12"),
        ("en-US", "minus twelve", "-12", "- 12"),
        ("en-US", "twenty-five minus five", "20", "25 - 5"),  # a hyphen inside a word is no minus
        ("en-US", "three hundred and forty seven times twenty eight", "9716", "347 * 28"),
        ("en-US", "four hundred and twenty plus nineteen percent", "499.8", "420 + 19 %"),
        ("en-US", "the square root of five hundred and twenty nine", "23", "sqrt(529)"),
        ("en-US", "two to the power of sixteen", "65536", "2 ^ 16"),
        ("en-US", "ninety eight point six minus thirty two", "66.6", "98.6 - 32"),
        ("en-US", "half of eighty", "40", "0.5 * 80"),
        ("en-US", "two thirds of ninety", "60", "(2/3) * 90"),
        ("en-US", "one thousand two hundred divided by sixteen", "75", "1200 / 16"),
        ("en-US", "20% of two hundred", "40", "20 % * 200"),
        ("pt-PT", "quinze por cento de trezentos e quarenta", "51", "15 % * 340"),
        ("pt-PT", "menos doze mais três", "-9", "- 12 + 3"),
        ("pt-PT", "três vírgula cinco vezes dois", "7", "3.5 * 2"),
        ("es-ES", "quince por ciento de dos mil trescientos", "345", "15 % * 2300"),
        ("es-ES", "tres coma cinco por dos", "7", "3.5 * 2"),
        ("es-ES", "menos doce", "-12", "- 12"),
        ("de-DE", "zweihundert plus neunzehn prozent", "238", "200 + 19 %"),
        ("de-DE", "dreihundert mal drei", "900", "300 * 3"),
        ("de-DE", "minus zwölf durch vier", "-3", "- 12 / 4"),
        # "the average of": the numbers after it, as one list (the parser reads them apart).
        ("en-US", "the average of eleven nineteen and thirty", "20", "mean([11, 19, 30])"),
        ("en-US", "the sum of two hundred and five and seven", "212", "sum([205, 7])"),
        ("en-US", "average of 11, 19 and 30 times two", "40", "mean([11, 19, 30]) * 2"),
        ("pt-PT", "a média de onze, dezanove e trinta", "20", "mean([11, 19, 30])"),
        ("es-ES", "el promedio de once, diecinueve y treinta", "20", "mean([11, 19, 30])"),
        # A spaced "und" separates numbers in German; the parser alone adds them (19 und 30 = 49).
        ("de-DE", "durchschnitt von elf neunzehn und dreißig", "20", "mean([11, 19, 30])"),
        ("de-DE", "summe von einundzwanzig und neunzehn", "40", "sum([21, 19])"),
        # The configured language first, then the others: the model kept the user's Portuguese.
        ("en-US", "quinze por cento de trezentos", "45", "15 % * 300"),
        ("de-DE", "seven minus twelve", "-5", "7 - 12"),
    ],
)
def test_words_are_read_as_numbers_and_operators(
    boxes: dict[str, ToolBox], lang: str, expression: str, result: str, read_as: str
) -> None:
    out = calculate(boxes[lang], expression)
    assert (out.result, out.read_as, out.expression) == (result, read_as, expression)


def test_an_expression_that_calculates_is_never_reread(boxes: dict[str, ToolBox]) -> None:
    out = calculate(boxes["pt-PT"], "2 * e")  # 'e' is Portuguese for 'and', and the constant e
    assert out.read_as is None and out.result.startswith("5.43656")


@pytest.mark.parametrize(
    ("expression", "advice"),
    [
        ("eleven nineteen and thirty", "mean([11, 19, 30])"),
        ("twenty percent tip on eighty four", "'tip on eighty four' is not a number or an operator"),
        ("twenty percent tip on eighty four", "such as '15% of 2350'"),
        ("the square root of", "sqrt needs the numbers it takes after it"),
        ("the average of", "mean needs the numbers it takes after it"),
        ("the average of eleven bananas", "'eleven bananas' is not a number or an operator"),
        ("5 miles", "use unit_convert"),  # no number words: the calculator's own refusal stays
        ("the", "unknown name 'the'"),  # only filler: nothing read, the calculator's refusal
        ("x + 2", "use solve_equation"),
    ],
)
def test_words_that_are_not_arithmetic_are_refused_with_what_to_send(
    boxes: dict[str, ToolBox], expression: str, advice: str
) -> None:
    assert advice in refusal(boxes["en-US"], "evaluate_expression", {"expression": expression})


@pytest.mark.parametrize(
    ("expression", "result"),
    [
        ("(98.6 - 32) * 5/9", "37"),
        ("-5 * 9/5 + 32", "23"),
        ("(-40) * 1.8 + 32", "-40"),
        ("(212 - 32) / 1.8", "100"),
        ("25 + 273.15", "298.15"),
        ("32 * 9 * 5", "1440"),  # no sum: not a formula
        ("(5 + 9) * 32 - 7 + 1", "442"),  # two other numbers: nothing to tell
        ("(9 + 5) * 32 - 100", "348"),  # the same numbers, none in a formula's role
        ("100 * 32 + 9 + 5", "3214"),  # 9 and 5 added, not a ratio
    ],
)
def test_correct_temperature_formulas_and_plain_arithmetic_pass(
    boxes: dict[str, ToolBox], expression: str, result: str
) -> None:
    assert calculate(boxes["en-US"], expression).result == result


@pytest.mark.parametrize(
    ("expression", "named"),
    [
        ("(98.6 + 32) * 5/9", "98.6 degrees Fahrenheit is 37 degrees Celsius"),
        ("5 * 5/9 + 32", "5 degrees Celsius is 41 degrees Fahrenheit"),
        ("-5 - 32 * 5/9", "-5 degrees Celsius is 23 degrees Fahrenheit"),
        ("(100 - 32) * 9/5", "100 degrees Celsius is 212 degrees Fahrenheit"),
        ("273.15 - 5", "5 degrees Celsius is 41 degrees Fahrenheit"),
    ],
)
def test_a_wrong_temperature_formula_is_refused_with_the_right_results(
    boxes: dict[str, ToolBox], expression: str, named: str
) -> None:
    reason = refusal(boxes["en-US"], "evaluate_expression", {"expression": expression})
    assert "looks like a temperature formula" in reason and named in reason
    assert '"from_unit": "degC", "to_unit": "degF"' in reason


@pytest.mark.parametrize(
    ("lang", "kwargs", "text"),
    [
        ("en-US", {"value": "minus five", "from_unit": "degC", "to_unit": "degF"}, "-5 °C = 23 °F"),
        ("en-US", {"value": -5, "from_unit": "celsius", "to_unit": "fahrenheit"}, "-5 °C = 23 °F"),
        ("en-US", {"from_unit": "minus five celsius", "to_unit": "fahrenheit"}, "-5 °C = 23 °F"),
        ("en-US", {"value": "ten", "from_unit": "kg", "to_unit": "lb"}, "10 kg = 22.0462262185 lb"),
        ("en-US", {"value": "-40", "from_unit": "degF", "to_unit": "degC"}, "-40 °F = -40 °C"),
        ("pt-PT", {"value": "menos cinco", "from_unit": "graus celsius", "to_unit": "degF"}, "-5 °C = 23 °F"),
        ("es-ES", {"value": "menos diez", "from_unit": "grados C", "to_unit": "grados F"}, "-10 °C = 14 °F"),
        ("de-DE", {"value": "minus zwölf", "from_unit": "Grad Celsius", "to_unit": "K"}, "-12 °C = 261.15 K"),
        ("en-US", {"value": "ninety eight point six", "from_unit": "F", "to_unit": "C"}, "98.6 °F = 37 °C"),
        ("en-US", {"value": "-5°C", "from_unit": "celsius", "to_unit": "fahrenheit"}, "-5 °C = 23 °F"),
        ("en-US", {"value": "-5 °C", "to_unit": "°f"}, "-5 °C = 23 °F"),
        ("en-US", {"value": -5, "from_unit": "delta_degC", "to_unit": "delta_degF"}, "-5 Δ°C = -9 Δ°F"),
    ],
)
def test_unit_convert_reads_the_amount_with_its_sign(
    boxes: dict[str, ToolBox], lang: str, kwargs: dict[str, Any], text: str
) -> None:
    assert boxes[lang].call_tool("unit_convert", kwargs).text == text


@pytest.mark.parametrize(
    ("kwargs", "advice"),
    [
        ({"value": "ten kilos", "from_unit": "lb", "to_unit": "kg"}, "send the amount alone in value"),
        ({"value": "a few", "from_unit": "kg", "to_unit": "lb"}, "value 'a few' is not one number"),
        ({"from_unit": "kg", "to_unit": "lb"}, "value is missing"),
        ({"value": 10, "from_unit": "arrobas", "to_unit": "lb"}, "unknown unit 'arrobas'"),
        (
            {"value": "10 kg", "from_unit": "kelvin", "to_unit": "lb"},
            "names the unit 'kg' and from_unit names 'kelvin'",
        ),
    ],
)
def test_unit_convert_refusals_show_the_call_to_send(
    boxes: dict[str, ToolBox], kwargs: dict[str, Any], advice: str
) -> None:
    reason = refusal(boxes["en-US"], "unit_convert", kwargs)
    assert advice in reason
    if "unknown unit" in advice:
        # Shown a whole example call after "unknown unit 'dollars'", the bundled model sent that
        # example (10 kg to lb) twice: an unknown unit gets unit names, no call to copy.
        assert "'kg', 'lb'" in reason and '"value": 10' not in reason
    else:
        assert '{"value": 10, "from_unit": "kg", "to_unit": "lb"}' in reason


def test_unit_convert_schema_says_which_unit_is_which(boxes: dict[str, ToolBox]) -> None:
    tool = boxes["en-US"].tools["unit_convert"]
    assert "10 kg': value 10, from_unit 'kg', to_unit 'lb'" in tool.description
    assert "with its sign" in tool.argument_schema.model_json_schema()["properties"]["value"]["description"]
    assert tool.argument_schema.model_json_schema()["properties"]["value"]["type"] == "number"


def test_solve_and_statistics_read_words(boxes: dict[str, ToolBox]) -> None:
    en = boxes["en-US"]
    assert en.call_tool("solve_equation", {"equation": "two x plus three equals seven"}).solutions == ["2"]
    assert en.call_tool("solve_equation", {"equation": "x squared equals nine"}).solutions == ["-3", "3"]
    assert en.call_tool("statistics_summary", {"numbers": "eleven, nineteen, thirty"}).mean == 20
    assert en.call_tool("statistics_summary", {"numbers": "eleven, nineteen and thirty"}).count == 3
    assert en.call_tool("statistics_summary", {"numbers": ["two hundred and five", "seven"]}).sum == 212
    assert boxes["de-DE"].call_tool("statistics_summary", {"numbers": ["elf", 19, "dreißig"]}).mean == 20


def test_the_language_comes_from_the_section_else_the_ovos_configuration(boxes: dict[str, ToolBox]) -> None:
    from ovos_config import Configuration

    cls = find_toolbox_plugins()["ovos-math-tools"]
    expected = Configuration().get("lang") or "en-US"
    assert cls(config={}).lang == expected
    assert boxes["pt-PT"].langs[0] == "pt-PT" and "en-US" in boxes["pt-PT"].langs
    assert len({lang.split("-")[0] for lang in boxes["pt-PT"].langs}) == len(boxes["pt-PT"].langs)


@pytest.mark.parametrize(
    ("kwargs", "advice"),
    [
        # Two amounts, one without its sign: which one is meant is not guessed.
        (
            {"value": 5, "from_unit": "-5 degC", "to_unit": "degF"},
            '{"value": -5.0, "from_unit": "degC", "to_unit": "degF"}',
        ),
        ({"value": -300, "from_unit": "celsius", "to_unit": "kelvin"}, "-300 celsius is below absolute zero"),
        ({"value": -500, "from_unit": "degF", "to_unit": "degC"}, "check the amount and its sign"),
    ],
)
def test_a_temperature_that_cannot_be_is_refused(
    boxes: dict[str, ToolBox], kwargs: dict[str, Any], advice: str
) -> None:
    assert advice in refusal(boxes["en-US"], "unit_convert", kwargs)
    assert (
        boxes["en-US"].call_tool("unit_convert", {"value": 0, "from_unit": "K", "to_unit": "degC"}).result
        == -273.15
    )


@pytest.mark.parametrize(
    ("lang", "expression", "result"),
    [
        ("en-US", "divide five hundred by four", "125"),
        ("en-US", "divide (125 + 375) by 4", "125"),
        ("en-US", "(divide (125 + 375) by 4) times 3", "375"),
        ("en-US", "multiply 3 by (2 + 5)", "21"),
        ("en-US", "add twenty to thirty", "50"),
        ("en-US", "subtract 80 from 500", "420"),
        ("en-US", "double 21", "42"),
        ("de-DE", "teile 240 durch 8", "30"),
        ("pt-PT", "divide 300 por 4", "75"),
        ("es-ES", "divide 900 entre 12", "75"),
    ],
)
def test_a_calculation_said_verb_first_is_read(
    boxes: dict[str, ToolBox], lang: str, expression: str, result: str
) -> None:
    assert calculate(boxes[lang], expression).result == result


@pytest.mark.parametrize(
    ("expression", "result", "said"),
    [
        ("25 * 9 / 5", "45", "25 degrees Celsius is 77 degrees Fahrenheit"),
        ("98.6 * 5 / 9", "54.7777777777778", "98.6 degrees Fahrenheit is 37 degrees Celsius"),
        ("25 * 1.8", "45", "25 degrees Celsius is 77 degrees Fahrenheit"),
    ],
)
def test_a_temperature_scaled_without_its_32_is_calculated_and_the_temperatures_are_noted(
    boxes: dict[str, ToolBox], expression: str, result: str, said: str
) -> None:
    out = calculate(boxes["en-US"], expression)
    assert (out.result if out.decimal is None else out.decimal) == result
    assert "a difference of degrees" in out.note and said in out.note


@pytest.mark.parametrize("expression", ["25 * 9 / 5 + 32", "25 * 4", "9 * 5", "2350 * 15 / 100"])
def test_other_calculations_get_no_temperature_note(boxes: dict[str, ToolBox], expression: str) -> None:
    assert calculate(boxes["en-US"], expression).note == ""
