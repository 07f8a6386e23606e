"""HOUSE.md's promise, held for the checks as well as at run time: its writer, mode and reader, taken
from HOUSE.md's own code blocks, are each added to a copy of ``harness/`` as one new module and one
line in its registry, and ruff, mypy and the unit tests that name a registry pass on that copy with
no other change. A type, a schema, a help text or a test table that copies a registry fails here.

This is the one test of the tier that starts processes: ruff, mypy (from a copy of the checkout's
cache, so only what the additions touch is checked again) and pytest, each on the copy."""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import ROOT

HOUSE = ROOT / "docs" / "HOUSE.md"
SECTION = "## Three additions, each one module and one line"
HEADER = re.compile(r"^# (harness/\S+\.py)(?:, in (\w+))?$", re.MULTILINE)
REGISTRIES = ("WRITERS", "writing", "READERS", "MODES", "Mode")
"""The names a unit test uses to go over a registry: the tests that name one are run on the copy."""
ALWAYS = ("test_layers.py",)
"""Tests run on the copy that name no registry: they hold every module, the new ones too."""


@dataclass(frozen=True)
class Addition:
    """One of HOUSE.md's additions: a new module's path and text, and the line that registers it in
    the registry ``registry`` names, in the module at ``registry_path``."""

    path: str
    source: str
    registry_path: str
    registry: str
    line: str


def additions(text: str) -> list[Addition]:
    """HOUSE.md's additions, from the code blocks of its section on them: each block a new module,
    headed ``# harness/PATH.py``, then its registry line, headed ``# harness/PATH.py, in NAME``."""
    section = text[text.index(SECTION) + len(SECTION):].partition("\n## ")[0]
    found = []
    for block in re.findall(r"^```python\n(.*?)^```$", section, re.DOTALL | re.MULTILINE):
        parts = HEADER.split(block)  # before the first header, then a path, a registry's name (None for a module) and a text, twice
        assert len(parts) == 7 and not parts[0].strip(), f"a block is a new module, then its registry line: {block}"
        path, module_registry, source, registry_path, registry, entry = parts[1:]
        assert module_registry is None and registry, f"a block is a new module, then its registry line: {block}"
        lines = [line.strip() for line in entry.splitlines() if line.strip()]
        assert len(lines) == 1, f"{registry_path}: one line in {registry}, not {lines}"
        found.append(Addition(path, source.strip("\n") + "\n", registry_path, registry, lines[0]))
    return found


def registered(text: str, registry: str, line: str) -> str:
    """``text`` with ``line`` added as the last entry of ``registry``: of the first tuple or list in
    the value assigned to that name, breadth first, whose last entry ends its line with a comma."""
    tree = ast.parse(text)
    value = next(
        node.value for node in tree.body
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None
        and any(isinstance(target, ast.Name) and target.id == registry for target in (node.targets if isinstance(node, ast.Assign) else [node.target]))
    )
    queue: list[ast.AST] = [value]
    while not isinstance(queue[0], ast.Tuple | ast.List):
        queue.extend(ast.iter_child_nodes(queue.pop(0)))
    entries = queue[0]
    last = entries.elts[-1]  # type: ignore[attr-defined]
    lines = text.splitlines(keepends=True)
    assert lines[last.end_lineno - 1][last.end_col_offset:].strip() == ",", f"{registry}'s last entry does not end its line with a comma"
    indent = lines[last.lineno - 1][: last.col_offset]
    assert not indent.strip(), f"{registry}'s entries do not each begin a line"
    lines.insert(last.end_lineno, f"{indent}{line}\n")
    return "".join(lines)


def copy_with(additions: list[Addition], into: Path) -> Path:
    """A copy of the harness and of what ruff and mypy read (pyproject.toml) in ``into``, with each
    addition made: its module written, its line added to its registry; nothing else changed."""
    shutil.copytree(ROOT / "harness", into / "harness", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(ROOT / "pyproject.toml", into)
    for addition in additions:
        module = into / addition.path
        assert not module.exists(), f"{addition.path} is already in the harness"
        module.write_text(addition.source, encoding="utf-8")
        registry = into / addition.registry_path
        registry.write_text(registered(registry.read_text(encoding="utf-8"), addition.registry, addition.line), encoding="utf-8")
    return into


def registry_tests() -> list[str]:
    """The unit tests that go over a registry (by one of the names in :data:`REGISTRIES`), and those
    that hold every module whatever its registry."""
    named = re.compile(rf"\b({'|'.join(REGISTRIES)})\b")
    return sorted(
        str(path) for path in (ROOT / "tests" / "unit").glob("test_*.py")
        if path.name in ALWAYS or (path.name != Path(__file__).name and named.search(path.read_text(encoding="utf-8")))
    )


def run(argv: list[str], folder: Path) -> str:
    """What a check run in ``folder``, with that folder's harness first on Python's path, printed; it must pass."""
    environment = {**os.environ, "PYTHONPATH": str(folder)}
    done = subprocess.run(argv, cwd=folder, env=environment, capture_output=True, text=True, timeout=600, check=False)
    said = f"{done.stdout}{done.stderr}"[-5000:]  # the end: pytest's summary of what failed, after the names of all it ran
    assert done.returncode == 0, f"{' '.join(argv[:3])} on the copy with HOUSE.md's additions:\n{said}"
    return done.stdout


@pytest.fixture(scope="module")
def house_additions() -> list[Addition]:
    return additions(HOUSE.read_text(encoding="utf-8"))


def test_house_gives_a_writer_a_mode_and_a_reader_each_in_its_registrys_folder(house_additions):
    assert [(addition.path.rpartition("/")[0], addition.registry) for addition in house_additions] == [
        ("harness/report", "WRITERS"), ("harness/runners/modes", "Mode"), ("harness/readers", "READERS"),
    ]


def test_each_addition_is_one_new_module_and_one_registry_line(house_additions, tmp_path):
    copy = copy_with(house_additions, tmp_path)
    for addition in house_additions:
        before = (ROOT / addition.registry_path).read_text(encoding="utf-8").splitlines()
        after = (copy / addition.registry_path).read_text(encoding="utf-8").splitlines()
        assert [line for line in after if line not in before] == [next(line for line in after if line.strip() == addition.line)]
        assert len(after) == len(before) + 1
    changed = sorted(
        str(path.relative_to(copy)) for path in (copy / "harness").rglob("*")
        if path.is_file() and (not (ROOT / path.relative_to(copy)).exists() or (ROOT / path.relative_to(copy)).read_bytes() != path.read_bytes())
    )
    assert changed == sorted([addition.path for addition in house_additions] + [addition.registry_path for addition in house_additions])


def test_an_example_that_needs_more_than_a_module_and_a_line_is_refused():
    one = '# harness/report/x.py\ndef report_text(report): ...\n\n# harness/report/__init__.py, in WRITERS\nWriter("x"),\n'
    page = f"{SECTION}\n\n```python\n{one}```\n\n## After\n\n```python\nnot an addition\n```\n"
    assert [addition.line for addition in additions(page)] == ['Writer("x"),']
    with pytest.raises(AssertionError, match="one line in WRITERS"):
        additions(page.replace('Writer("x"),', 'Writer("x"),\nWriter("y"),'))
    with pytest.raises(AssertionError, match="a new module, then its registry line"):
        additions(page.replace("# harness/report/__init__.py, in WRITERS", "# harness/report/__init__.py, in WRITERS\n\n# harness/cli/options.py"))


def test_a_registry_line_goes_after_the_last_entry_and_one_on_the_closing_line_is_refused():
    text = 'Mode = Literal[\n    "a",\n    "b",\n]\nOTHER = ("x", "y")\n'
    assert registered(text, "Mode", '"c",') == 'Mode = Literal[\n    "a",\n    "b",\n    "c",\n]\nOTHER = ("x", "y")\n'
    with pytest.raises(AssertionError, match="OTHER's last entry does not end its line with a comma"):
        registered(text, "OTHER", '"z",')


def test_ruff_mypy_and_the_registries_tests_pass_with_houses_additions_and_no_other_change(house_additions, tmp_path):
    copy = copy_with(house_additions, tmp_path)
    cache = ROOT / ".mypy_cache"
    if cache.is_dir():  # checked again only where the copy differs: make check has just run mypy here
        shutil.copytree(cache, copy / ".mypy_cache")
    run([str(Path(sys.executable).with_name("ruff")), "check", "--no-cache", "harness"], copy)
    run([sys.executable, "-m", "mypy"], copy)
    tests = registry_tests()
    shown = run([sys.executable, "-m", "pytest", "-v", "--tb=short", "-p", "no:cacheprovider", "--rootdir", str(ROOT), *tests], copy)
    for addition in house_additions:  # the copy's registries were the ones tested: a test is named for each addition
        assert re.search(rf"::\w+\[(\w+-)*{Path(addition.path).stem}(-\w+)*\] PASSED", shown), f"no test went over {addition.path}:\n{shown}"
