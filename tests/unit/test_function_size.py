"""A function of the harness reads in one screen: at most 60 lines, docstring included (ruff holds
the parameters, at most 8, and has no rule for length)."""

import ast
from pathlib import Path

import harness

MOST_LINES = 60
FOLDER = Path(harness.__file__).parent


def too_long(source: str, name: str) -> list[str]:
    """Each function (a method too) of ``source`` longer than :data:`MOST_LINES`, as ``name:line function (lines)``."""
    return [
        f"{name}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.end_lineno - node.lineno + 1 > MOST_LINES
    ]


def test_no_function_of_the_harness_is_over_60_lines():
    found = [line for path in sorted(FOLDER.rglob("*.py")) for line in too_long(path.read_text(encoding="utf-8"), str(path.relative_to(FOLDER)))]
    assert not found, "\n".join(found)


def test_the_check_sees_a_long_function_and_passes_one_of_60_lines():
    body = "".join(f"    x{index} = {index}\n" for index in range(MOST_LINES - 1))
    assert too_long(f"def fits():\n{body}", "a.py") == []
    assert too_long(f"class A:\n    async def over(self):\n{body}        return 1\n".replace("\n    x", "\n        x"), "a.py") == ["a.py:2 over (61 lines)"]
