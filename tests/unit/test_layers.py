"""The harness reads as a pipeline: each module imports only the modules of its own layer or those
below it, never one above, so a step can be read, tested and changed knowing nothing of the later
steps or of the command line. Modules are named by their dotted path below ``harness``."""

import ast
from pathlib import Path

import harness

LAYERS = [
    ("vocabulary", {"__init__", "model", "patterns", "limits", "environment", "runners", "readers"}),
    ("errors and settings", {"errors", "settings"}),
    ("the port, and discovering ports", {"regions", "port", "discover"}),
    ("run: one runner's life, processes, images", {"runners.base", "runners.process", "runners.sweep", "images"}),
    ("run: what every mode does", {"runners.walls"}),
    ("run: the modes", {"runners.modes", "runners.modes.subprocess", "runners.modes.sandbox", "runners.modes.container"}),
    ("run: builds", {"build"}),
    ("run: PostgreSQL", {
        "runners.postgres.wheel", "runners.postgres.connection", "runners.postgres.servers", "runners.postgres.query", "runners.postgres.database",
        "runners.postgres",
    }),
    ("run: the gate", {"gate"}),
    ("normalise, verify, compare", {"normalise", "verify", "expect", "compare"}),
    ("reading output: the readers", {"readers.lines", "readers.states", "readers.drawings"}),
    ("one cell through the steps", {"evaluate"}),
    ("report: the model and its registry of writers", {"report"}),
    ("report: what every form shows", {"report.about", "report.summary", "report.json", "report.merge", "report.rerun", "board"}),
    ("report: the writers", {"report.terminal", "report.markdown", "report.junit", "report.html"}),
    ("commands' own work", {"bench", "transcripts", "doctor", "scaffold", "gallery"}),
    ("the command line: the options", {"cli.options"}),
    ("the command line: a command's session, and where its report goes", {"cli.session", "cli.publish"}),
    ("the command line: the group, which makes the session and maps how a command ends", {"cli.group"}),
    ("the command line: the commands", {
        "cli.compare", "cli.merge", "cli.run", "cli.show", "cli.list_ports", "cli.doctor", "cli.transcripts", "cli.bench", "cli.check",
        "cli.new_language", "cli.gallery",
    }),
    ("the command line: the program", {"cli", "__main__"}),
]
FOLDER = Path(harness.__file__).parent


def module_name(path: Path) -> str:
    """A file's module, dotted below harness: ``runners.modes.sandbox``, ``runners`` for a package's ``__init__``."""
    parts = path.relative_to(FOLDER).with_suffix("").parts
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)


MODULES = {module_name(path): path for path in FOLDER.rglob("*.py")}


def layer(module: str) -> int:
    return next(index for index, (_, modules) in enumerate(LAYERS) if module in modules)


def imported(path: Path) -> set[str]:
    """The harness modules a file imports, anywhere in it (a deferred import counts as much): from a
    package, a name that is a module of it counts as that module, any other name as the package."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "harness":
            base = ".".join(node.module.split(".")[1:])
            for alias in node.names:
                inner = f"{base}.{alias.name}" if base else alias.name
                found.add(inner if inner in MODULES or (FOLDER / f"{inner.replace('.', '/')}.py").exists() else base or "__init__")
        elif isinstance(node, ast.Import):
            found.update(".".join(alias.name.split(".")[1:]) for alias in node.names if alias.name.startswith("harness."))
    return found


def test_every_module_has_a_layer():
    placed = set().union(*(modules for _, modules in LAYERS))
    assert set(MODULES) == placed, f"not placed: {sorted(set(MODULES) - placed)}; placed but gone: {sorted(placed - set(MODULES))}"


def test_no_module_imports_one_above_it():
    upward = [
        f"{name} ({LAYERS[layer(name)][0]}) imports {other} ({LAYERS[layer(other)][0]})"
        for name, path in sorted(MODULES.items())
        for other in sorted(imported(path))
        if layer(other) > layer(name)
    ]
    assert not upward, "\n".join(upward)


def test_the_check_sees_an_upward_import(tmp_path):
    """The check itself can fail: a vocabulary module that imported the command line, or a mode that
    imported the gate, would be named."""
    path = tmp_path / "model.py"
    path.write_text("from harness.cli import main\nimport harness.report\nfrom harness.runners.modes.sandbox import sandboxed\n")
    assert imported(path) == {"cli", "report", "runners.modes.sandbox"}
    assert all(layer(name) > layer("model") for name in imported(path))
    mode = tmp_path / "mode.py"
    mode.write_text("from harness.gate import Gate\nfrom harness.runners import MODES\n")
    assert imported(mode) == {"gate", "runners"}
    assert layer("gate") > layer("runners.modes.sandbox")
