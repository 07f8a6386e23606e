"""The harness reads as a pipeline: each module imports only the modules of its own layer or those
below it, never one above, so a step can be read, tested and changed knowing nothing of the later
steps or of the command line. Modules are named by their dotted path below ``harness``; a layer may
name a package's modules as ``package.*``, so that a new reader, mode or writer is placed by the
folder it is in, and a module named outright is placed by its name first."""

import ast
import shutil
from pathlib import Path

import harness

LAYERS = [
    ("vocabulary", {"__init__", "model", "patterns", "limits", "patience", "environment", "runners", "readers"}),
    ("errors and settings", {"errors", "settings", "extras"}),
    ("the port, and discovering ports", {"regions", "port", "discover", "recipe"}),
    ("run: one runner's life, processes, images", {"runners.base", "runners.process", "runners.sweep", "images"}),
    ("run: what every mode does", {"runners.walls"}),
    ("run: the modes", {"runners.modes", "runners.modes.*"}),
    ("run: builds", {"build"}),
    ("run: PostgreSQL", {
        "runners.postgres.wheel", "runners.postgres.connection", "runners.postgres.servers", "runners.postgres.query", "runners.postgres.database",
        "runners.postgres",
    }),
    ("run: the gate", {"gate"}),
    ("normalise, verify, compare", {"normalise", "verify", "expect", "compare"}),
    ("reading output: the readers", {"readers.*"}),
    ("one cell through the steps", {"evaluate"}),
    ("report: the model and its registry of writers", {"report"}),
    ("report: what every form shows", {"report.about", "report.summary", "report.figures", "report.json", "report.merge", "report.rerun", "board"}),
    ("report: the writers", {"report.*"}),
    ("commands' own work", {"bench", "transcripts", "doctor", "scaffold", "gallery", "smoke"}),
    ("the command line: the options", {"cli.options"}),
    ("the command line: a command's session, and where its report goes", {"cli.session", "cli.publish"}),
    ("the command line: the group, which makes the session and maps how a command ends", {"cli.group"}),
    ("the command line: the commands", {
        "cli.compare", "cli.merge", "cli.run", "cli.show", "cli.list_ports", "cli.doctor", "cli.transcripts", "cli.bench", "cli.check",
        "cli.new_language", "cli.gallery", "cli.smoke",
    }),
    ("the command line: the program", {"cli", "__main__"}),
]
FOLDER = Path(harness.__file__).parent


def module_name(path: Path, folder: Path = FOLDER) -> str:
    """A file's module, dotted below harness: ``runners.modes.sandbox``, ``runners`` for a package's ``__init__``."""
    parts = path.relative_to(folder).with_suffix("").parts
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)


def modules(folder: Path = FOLDER) -> dict[str, Path]:
    return {module_name(path, folder): path for path in folder.rglob("*.py")}


def layer(module: str) -> int | None:
    """The layer that names the module, or else the one that names its package's modules (``readers.*``)."""
    for name in (module, f"{module.rpartition('.')[0]}.*"):
        for index, (_, names) in enumerate(LAYERS):
            if name in names:
                return index
    return None


def imported(path: Path, known: set[str]) -> set[str]:
    """The harness modules a file imports, anywhere in it (a deferred import counts as much): from a
    package, a name that is a module of it (one of ``known``) counts as that module, any other name
    as the package."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "harness":
            base = ".".join(node.module.split(".")[1:])
            for alias in node.names:
                inner = f"{base}.{alias.name}" if base else alias.name
                found.add(inner if inner in known else base or "__init__")
        elif isinstance(node, ast.Import):
            found.update(".".join(alias.name.split(".")[1:]) for alias in node.names if alias.name.startswith("harness."))
    return found


def misplaced(folder: Path = FOLDER) -> list[str]:
    """What no layer places, and what a layer names that is not there (a pattern's package included)."""
    found = modules(folder)
    named = {name.removesuffix(".*") for _, names in LAYERS for name in names}
    return [f"not placed: {name}" for name in sorted(found) if layer(name) is None] + [
        f"placed but gone: {name}" for name in sorted(named - set(found))
    ]


def upward(folder: Path = FOLDER) -> list[str]:
    """Each import of a module of a higher layer, as ``importer (its layer) imports imported (its layer)``."""
    found = modules(folder)
    return [
        f"{name} ({LAYERS[below][0]}) imports {other} ({LAYERS[above][0]})"
        for name, path in sorted(found.items())
        for other in sorted(imported(path, set(found)))
        if (below := layer(name)) is not None and (above := layer(other)) is not None and above > below
    ]


def test_every_module_has_a_layer():
    assert not misplaced(), "\n".join(misplaced())


def test_no_module_imports_one_above_it():
    assert not upward(), "\n".join(upward())


def test_the_check_sees_an_upward_import(tmp_path):
    """The check itself can fail: a vocabulary module that imported the command line, or a mode that
    imported the gate, would be named."""
    known = set(modules())
    path = tmp_path / "model.py"
    path.write_text("from harness.cli import main\nimport harness.report\nfrom harness.runners.modes.sandbox import sandboxed\n")
    assert imported(path, known) == {"cli", "report", "runners.modes.sandbox"}
    assert all(layer(name) > layer("model") for name in imported(path, known))
    mode = tmp_path / "mode.py"
    mode.write_text("from harness.gate import Gate\nfrom harness.runners import MODES\n")
    assert imported(mode, known) == {"gate", "runners"}
    assert layer("gate") > layer("runners.modes.sandbox")


HOUSE = (FOLDER.parent / "docs" / "HOUSE.md").read_text(encoding="utf-8")
ADDITIONS = {
    "report/tally.py": '''\
from harness.report import Report


def report_text(report: Report) -> str:
    \"\"\"The report as lines of port,method,n,outcome.\"\"\"
    return "".join(f"{cell.port},{cell.method},{cell.n},{cell.outcome.value}\\n" for cell in report.cells)
''',
    "runners/modes/traced.py": '''\
import sys

from harness.runners.modes.subprocess import SubprocessWalls
from harness.runners.process import PortProcess
from harness.runners.walls import Job


class TracedWalls(SubprocessWalls):
    \"\"\"A plain subprocess that writes down each program it starts.\"\"\"

    mode = "traced"

    def start(self, job: Job) -> PortProcess:
        print(*job.argv, file=sys.stderr)
        return super().start(job)


WALLS = TracedWalls
''',
    "readers/arrows.py": '''\
from harness.expect import Plan, Wording
from harness.readers import Output
from harness.readers.lines import LineCounter, LineReader


class ArrowReader(LineReader):
    \"\"\"Moves written SRC->DST, one a line, read by the manifest's patterns as lines are.\"\"\"


def wording(output: Output, plan: Plan) -> Wording | None:
    return None


def counter(output: Output) -> LineCounter | None:
    return LineCounter()
''',
}
"""HOUSE.md's three additions, each module as it shows it, with the imports it leaves out."""
REGISTRATIONS = {
    "report/__init__.py": ("    for writer in (\n", 'Writer("tally", "harness.report.tally", "tally", "Write port,method,n,outcome lines to FILE."),'),
    "runners/__init__.py": ('Mode = Literal["subprocess", "sandbox", "container"]\n', 'Mode = Literal["subprocess", "sandbox", "container", "traced"]'),
    "readers/__init__.py": (
        "    for reading in (\n", 'Reading("arrows", "harness.readers.arrows", "ArrowReader", ("src", "dst"), (), patterns=True),',
    ),
}
"""The one registry line of each, as HOUSE.md gives it, and the line it goes after (or, for the mode, replaces)."""


def test_houses_three_additions_are_placed_by_their_folders_with_no_other_change(tmp_path):
    """A writer, a mode and a reader added as HOUSE.md says, one module and one registry line each
    in a copy of the harness, are placed in their layers with no change to this test."""
    copy = tmp_path / "harness"
    shutil.copytree(FOLDER, copy, ignore=shutil.ignore_patterns("__pycache__"))
    for module, source in ADDITIONS.items():
        (copy / module).write_text(source, encoding="utf-8")
    for registry, (anchor, line) in REGISTRATIONS.items():
        assert line in HOUSE, line
        path = copy / registry
        text = path.read_text(encoding="utf-8")
        assert anchor in text, registry
        changed = text.replace(anchor, f"{line}\n" if anchor.startswith("Mode =") else f"{anchor}        {line}\n", 1)
        path.write_text(changed, encoding="utf-8")
        compile(changed, str(path), "exec")
    assert not misplaced(copy), "\n".join(misplaced(copy))
    assert not upward(copy), "\n".join(upward(copy))
    placed = {name: LAYERS[index][0] for name in ("report.tally", "runners.modes.traced", "readers.arrows") if (index := layer(name)) is not None}
    assert placed == {"report.tally": "report: the writers", "runners.modes.traced": "run: the modes", "readers.arrows": "reading output: the readers"}
