"""Turn a model's arithmetic text into a checked ``ast`` tree; nothing here ever executes it.

The text is normalised (``^`` is power, ``×``/``÷`` are ``*``/``/``), postfix percentages are
rewritten into calls of an internal marker function, and the resulting tree is checked against an
allowlist of node types before :mod:`ovos_agentic_loop_toolboxes.maths._eval` walks it.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize

MAX_EXPRESSION_CHARS = 500
MAX_NESTING = 40
MAX_NODES = 400
PERCENT = "_percent_"
#: Functions over many numbers: the only places a list ``[1, 2, 3]`` (or a tuple) may appear,
#: because that is how models naturally write ``mean([12, 45, 7])``.
AGGREGATES = frozenset({"mean", "average", "avg", "median", "sum", "min", "max"})
LIST_ONLY_IN_AGGREGATES = (
    f"a list of numbers is only allowed inside {', '.join(sorted(AGGREGATES))}, such as "
    "mean([12, 45, 7]); for a full summary use statistics_summary"
)

_REPLACEMENTS = {"×": "*", "÷": "/", "·": "*", "−": "-", "–": "-", "^": "**"}
_ALLOWED_NODES = (
    ast.Expression,
    ast.BinOp,
    ast.UnaryOp,
    ast.Call,
    ast.Name,
    ast.Load,
    ast.Constant,
    ast.Add,
    ast.Sub,
    ast.Mult,
    ast.Div,
    ast.FloorDiv,
    ast.Mod,
    ast.Pow,
    ast.USub,
    ast.UAdd,
    ast.List,
    ast.Tuple,
)
_OPERAND_END = {")", "]", ",", "+", "-", "*", "/", "**", "//"}


# A file path or a field of a file ("data/numbers.csv", "config.port") written where a number
# belongs: small models skip the step that reads the value and name its source instead.
SOURCE_NAME = re.compile(
    r"[A-Za-z_][\w-]*/[A-Za-z_][\w-]+[\w./-]*|[A-Za-z_][\w-]*\.(?:csv|txt|json|log|md|ya?ml|xml|ini|cfg|conf)\b|"
    r"(?<![\w.])(?!math\.|np\.|numpy\.)[A-Za-z_]\w*\.[A-Za-z_]\w*|[A-Za-z_]\w*\[\s*['\"]"
)


def parse_expression(text: str, what: str = "expression") -> ast.expr:
    """Parse arithmetic text into a tree of allowed nodes, or raise ``ValueError`` with advice."""
    # An over-long text is refused by _normalise without a search (the search is linear, but 5 MB
    # of it cost a second); the check comes first so quotes in config['port'] get this advice.
    source_name = SOURCE_NAME.search(text) if len(text or "") <= MAX_EXPRESSION_CHARS else None
    if source_name is not None:
        raise ValueError(
            f"{source_name.group()!r} is not a number: this tool only calculates with numbers written "
            "out. Get the values first with another tool (read the file, run the command), then "
            "write those numbers here, such as sum([4, 20, 8])"
        )
    source = _normalise(text, what)
    tokens = _rewrite(_tokens(source, what))
    try:
        tree = ast.parse(tokenize.untokenize(tokens), mode="eval")
    except SyntaxError as exc:
        raise ValueError(
            f"could not read the {what} {text!r} ({exc.msg}); write it like '2 * (3 + 4) / 5', "
            "with * between every factor"
        ) from None
    _check_tree(tree)
    return tree.body


def _normalise(text: str, what: str) -> str:
    if len(text) > MAX_EXPRESSION_CHARS:
        raise ValueError(
            f"the {what} is longer than {MAX_EXPRESSION_CHARS} characters; split the calculation"
        )
    if "°" in text:
        raise ValueError(
            "'°' is not understood: trig functions take radians; for degrees use sind(30), cosd(60)"
        )
    source = re.sub(r"[×÷·−–^]", lambda m: _REPLACEMENTS[m.group()], text.strip())
    source = re.sub(r"√\s*(\d+(?:\.\d+)?)", r"sqrt(\1)", source).replace("√", "sqrt")
    if "=" in source:
        raise ValueError(
            f"the {what} contains '=', which makes it an equation; use solve_equation to find an unknown, "
            "or give only the side to calculate"
        )
    if any(c in source for c in "'\"{}:;@&|<>!~\\\n\r\x00"):
        bad = next(c for c in source if c in "'\"{}:;@&|<>!~\\\n\r\x00")
        raise ValueError(
            f"the {what} contains {bad!r}, which is not arithmetic; use numbers, + - * / ^ %, "
            "parentheses and the listed functions (for units use unit_convert)"
        )
    depth = deepest = 0
    for char in source:
        depth += {"(": 1, ")": -1}.get(char, 0)
        deepest = max(deepest, depth)
    if deepest > MAX_NESTING:
        raise ValueError(f"parentheses are nested {deepest} deep; the limit is {MAX_NESTING}")
    return source


def _tokens(source: str, what: str) -> list[tuple[int, str]]:
    try:
        found = [(tok.type, tok.string) for tok in tokenize.generate_tokens(io.StringIO(source).readline)]
    except (tokenize.TokenError, SyntaxError) as exc:
        raise ValueError(f"could not read the {what}: {exc}; check that parentheses are balanced") from None
    for kind, text in found:
        if kind == tokenize.NAME and text.startswith("_"):
            raise ValueError(f"name {text!r} is not allowed; use the listed functions such as sqrt(2)")
    return [t for t in found if t[0] not in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER)]


def _rewrite(tokens: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Percentages and implicit products, the way people (and small models) write them.

    ``15% of 80`` -> ``_percent_(15) * 80``; ``200 + 10%`` -> ``200 + _percent_(10)``. A ``%``
    that follows a number or a closing parenthesis and is followed by the end, an operator, ``)``,
    ``,`` or ``of`` is a percentage; otherwise it is the remainder operator (``10 % 3``).
    ``2x``, ``3(x + 1)`` and ``(a)(b)`` are products.
    """
    out: list[tuple[int, str]] = []
    for index, (kind, text) in enumerate(tokens):
        after = tokens[index + 1] if index + 1 < len(tokens) else None
        if kind == tokenize.NAME and text == "of" and out and _ends_percent(out):
            out.append((tokenize.OP, "*"))
            continue
        if out and _ends_operand(out[-1]) and (kind in (tokenize.NAME, tokenize.NUMBER) or text == "("):
            out.append((tokenize.OP, "*"))
        is_percent = (
            kind == tokenize.OP
            and text == "%"
            and out
            and (out[-1][0] == tokenize.NUMBER or out[-1][1] == ")")
            and (after is None or after[1] in _OPERAND_END or after == (tokenize.NAME, "of"))
        )
        if not is_percent:
            out.append((kind, text))
            continue
        start = _operand_start(out)
        out[start:] = [(tokenize.NAME, PERCENT), (tokenize.OP, "("), *out[start:], (tokenize.OP, ")")]
    return out


def _ends_percent(out: list[tuple[int, str]]) -> bool:
    return out[-1][1] == ")" and out[_operand_start(out)] == (tokenize.NAME, PERCENT)


def _ends_operand(token: tuple[int, str]) -> bool:
    return token[0] == tokenize.NUMBER or token[1] == ")"


def _operand_start(out: list[tuple[int, str]]) -> int:
    """Index where the operand ending at ``out[-1]`` starts (a number, or a parenthesised group/call)."""
    if out[-1][1] != ")":
        return len(out) - 1
    depth = 0
    for index in range(len(out) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(out[index][1], 0)
        if depth == 0:
            return index - 1 if index > 0 and out[index - 1][0] == tokenize.NAME else index
    return 0


def _check_tree(tree: ast.Expression) -> None:
    nodes = list(ast.walk(tree))
    lists_inside: set[int] = set()  # ids of lists that are direct arguments of a call
    if len(nodes) > MAX_NODES:
        raise ValueError(f"the expression has {len(nodes)} parts; the limit is {MAX_NODES}")
    for node in nodes:
        if not isinstance(node, _ALLOWED_NODES):
            raise ValueError(
                f"{type(node).__name__.lower()} syntax is not allowed; use numbers, + - * / ^ %, "
                "parentheses and the listed functions"
            )
        if isinstance(node, ast.Call) and (not isinstance(node.func, ast.Name) or node.keywords):
            raise ValueError("only plain calls of the listed functions are allowed, such as round(2.567, 2)")
        if isinstance(node, ast.Call):  # the evaluator refuses a list given to a one-number function
            lists_inside.update(id(arg) for arg in node.args if isinstance(arg, (ast.List, ast.Tuple)))
        if isinstance(node, ast.Constant) and (
            isinstance(node.value, bool) or type(node.value) not in (int, float)
        ):
            raise ValueError(f"{node.value!r} is not a number; only numbers are allowed (no text)")
    for node in nodes:  # now that every call's own lists are known
        if isinstance(node, (ast.List, ast.Tuple)) and id(node) not in lists_inside:
            raise ValueError(LIST_ONLY_IN_AGGREGATES)
    if _depth(tree.body) > MAX_NESTING * 2:
        raise ValueError(f"the expression is nested too deeply; the limit is {MAX_NESTING} levels")


def _depth(node: ast.AST) -> int:
    # Iterative, so a hostile tree cannot exhaust the Python stack while being measured.
    deepest, stack = 0, [(node, 1)]
    while stack:
        current, level = stack.pop()
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in ast.iter_child_nodes(current))
    return deepest


def free_names(node: ast.AST) -> set[str]:
    """Names used as values (not called as functions)."""
    called = {id(n.func) for n in ast.walk(node) if isinstance(n, ast.Call)}
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and id(n) not in called}
