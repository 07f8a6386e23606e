"""The harness reads as a pipeline: each module imports only the modules of its own layer or those
below it, never one above, so a step can be read, tested and changed knowing nothing of the later
steps or of the command line. Modules are named by their dotted path below ``harness``; a layer may
name a package's modules as ``package.*``, so that a new reader, mode or writer is placed by the
folder it is in, and a module named outright is placed by its name first."""

import ast
from pathlib import Path

import harness

LAYERS = [
    ("vocabulary", {"__init__", "model", "patterns", "limits", "patience", "environment", "output", "readers"}),
    ("errors and settings", {"errors", "settings", "extras"}),
    ("the port, and discovering ports", {"regions", "port", "discover", "recipe"}),
    ("run: one runner's life, processes, images", {"runners", "runners.base", "runners.process", "runners.sweep", "runners.images"}),
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
    ("one cell through the steps: its output read, then the cell run", {"reading", "evaluate"}),
    ("report: the model and its registry of writers", {"report"}),
    ("report: what every form shows", {"report.about", "report.summary", "report.figures", "report.json", "report.merge", "report.rerun", "board"}),
    ("report: the writers", {"report.*"}),
    ("a run: the plan's cells made one report", {"run"}),
    ("commands' own work", {"bench", "transcripts", "doctor", "scaffold", "gallery", "smoke"}),
    ("the command line: the console", {"cli.console"}),
    ("the command line: the options", {"cli.options"}),
    ("the command line: a command's session, and where its report goes", {"cli.session", "cli.publish", "cli.cell"}),
    ("the command line: the group, which makes the session and maps how a command ends", {"cli.group"}),
    ("the command line: the commands", {
        "cli.compare", "cli.merge", "cli.run", "cli.show", "cli.list_ports", "cli.doctor", "cli.transcripts", "cli.bench", "cli.check",
        "cli.new_language", "cli.gallery", "cli.smoke", "cli.completion", "cli.schema",
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


def test_a_new_module_in_a_registrys_folder_is_placed_by_the_folder():
    """A writer, a mode or a reader no layer names is placed by its package's pattern, so that adding
    one changes nothing here (tests/unit/test_house.py adds HOUSE.md's three to a copy of the harness
    and runs this file on it)."""
    placed = {name: LAYERS[index][0] for name in ("report.tally", "runners.modes.traced", "readers.arrows") if (index := layer(name)) is not None}
    assert placed == {"report.tally": "report: the writers", "runners.modes.traced": "run: the modes", "readers.arrows": "reading output: the readers"}
