"""The harness reads as a pipeline: each module imports only the modules of its own layer or those
below it, never one above, so a step can be read, tested and changed knowing nothing of the later
steps or of the command line."""

import ast
from pathlib import Path

import harness

LAYERS = [
    ("vocabulary", {"__init__", "model", "patterns", "limits", "environment"}),
    ("errors and settings", {"errors", "settings"}),
    ("discover", {"discover"}),
    ("run: one runner's life, builds, processes, images", {"runner", "build", "run", "images"}),
    ("run: containers", {"containers"}),
    ("run: PostgreSQL", {"postgres"}),
    ("run: isolation", {"isolation"}),
    ("normalise, verify, compare", {"normalise", "verify", "expect", "compare"}),
    ("one cell through the steps", {"evaluate"}),
    ("report", {"serialize", "report", "page", "board"}),
    ("commands' own work", {"bench", "transcripts", "doctor", "scaffold"}),
    ("the command line", {"cli", "__main__"}),
]
FOLDER = Path(harness.__file__).parent


def layer(module: str) -> int:
    return next(index for index, (_, modules) in enumerate(LAYERS) if module in modules)


def imported(path: Path) -> set[str]:
    """The harness modules a file imports, anywhere in it (a deferred import counts as much)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "harness":
            parts = node.module.split(".")
            found.update([parts[1]] if len(parts) > 1 else [alias.name if (FOLDER / f"{alias.name}.py").exists() else "__init__" for alias in node.names])
        elif isinstance(node, ast.Import):
            found.update(alias.name.split(".")[1] for alias in node.names if alias.name.startswith("harness."))
    return found


def test_every_module_has_a_layer():
    modules = {path.stem for path in FOLDER.glob("*.py")}
    placed = set().union(*(modules for _, modules in LAYERS))
    assert modules == placed, f"not placed: {sorted(modules - placed)}; placed but gone: {sorted(placed - modules)}"


def test_no_module_imports_one_above_it():
    upward = [
        f"{path.stem} ({LAYERS[layer(path.stem)][0]}) imports {name} ({LAYERS[layer(name)][0]})"
        for path in sorted(FOLDER.glob("*.py"))
        for name in sorted(imported(path))
        if layer(name) > layer(path.stem)
    ]
    assert not upward, "\n".join(upward)


def test_the_check_sees_an_upward_import(tmp_path):
    """The check itself can fail: a vocabulary module that imported the command line would be named."""
    path = tmp_path / "model.py"
    path.write_text("from harness.cli import main\nimport harness.report\n")
    assert imported(path) == {"cli", "report"}
    assert all(layer(name) > layer("model") for name in imported(path))
