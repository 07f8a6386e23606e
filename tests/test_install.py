"""The harness as a user installs it: ``pip install`` of a clone into a fresh virtual environment,
then the installed ``harness`` run inside that clone and outside any."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import ROOT, left_behind, valid_report
from harness.discover import discover

NOT_IN_A_CLONE = (".git", ".venv", "__pycache__", "*.egg-info", "build", ".pytest_cache", ".hypothesis", ".mypy_cache", ".ruff_cache")
"""What a fresh clone does not have: git's own files, and what building, testing and linting leave behind."""


def test_pip_install_of_a_clone_gives_a_harness_that_compares_its_ports_and_says_where_it_finds_none(tmp_path, run_tmpdir):
    clone = tmp_path / "clone"
    shutil.copytree(ROOT, clone, ignore=shutil.ignore_patterns(*NOT_IN_A_CLONE), symlinks=True)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    # This pip installs into the new environment: the same install, without a second pip in it. No
    # .pyc files: compiling every dependency's would double the time, and Python compiles what it imports.
    installed = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "--no-compile", "--quiet", str(clone)],
        capture_output=True, text=True, timeout=600,
    )
    assert installed.returncode == 0, installed.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    where = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import harness; print(harness.__file__)"], cwd=elsewhere, capture_output=True, text=True, timeout=60
    )
    assert Path(where.stdout.strip()).is_relative_to(venv), where.stdout + where.stderr

    environment = {key: value for key, value in os.environ.items() if key != "HANOI_ROOT"} | {"TMPDIR": str(run_tmpdir), "COLUMNS": "200"}

    def harness(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(venv / "bin" / "harness"), *args], cwd=cwd, env=environment, capture_output=True, text=True, timeout=600)

    names = [port.name for port in discover(clone)]
    listed = harness("list", "--format", "plain", cwd=clone)
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert [line.partition(":")[0] for line in listed.stdout.splitlines()] == names

    report = tmp_path / "report.json"
    compared = harness("compare", "--n", "5", "--json", str(report), cwd=clone / "docs")
    assert compared.returncode == 0, compared.stdout + compared.stderr
    cells = valid_report(json.loads(report.read_text()))["cells"]
    assert sorted({cell["port"] for cell in cells}) == names
    assert {cell["outcome"] for cell in cells} <= {"pass", "skipped"} and any(cell["outcome"] == "pass" for cell in cells)
    assert "pass and agree" in compared.stdout

    nowhere = harness("list", cwd=elsewhere)
    assert nowhere.returncode == 2
    assert nowhere.stderr.startswith("harness: no ports here: run inside a checkout") and len(nowhere.stderr.splitlines()) == 1
    assert left_behind(run_tmpdir) is None
