"""What each command loads: the harness starts with click and its own small vocabulary, and a run
loads the Docker SDK or the PostgreSQL client only when a cell needs one. Not a timed test (those
flake on a shared machine): benchmarks/startup.py measures what this saves."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import ROOT

HEAVY = ("docker", "psycopg", "rich", "regex", "requests")


def imported(*args: str) -> set[str]:
    """The modules ``harness ARGS`` imports, by their dotted names, from Python's own record
    (-X importtime); run off a terminal, as its stderr is a pipe."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "harness", *args], capture_output=True, text=True, cwd=ROOT, timeout=300,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return {line.rpartition("|")[2].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}


def loaded(*args: str) -> set[str]:
    """The top-level packages ``harness ARGS`` imports."""
    return {module.split(".")[0] for module in imported(*args)}


@pytest.mark.parametrize("args", [("--version",), ("--help",)])
def test_version_and_help_load_nothing_heavy(args):
    assert not set(HEAVY) & loaded(*args)


def test_a_run_with_no_sql_port_and_no_container_loads_neither_client():
    packages = loaded("compare", "--n", "1", "-l", "python,bash", "-m", "recursive")
    assert not {"docker", "psycopg", "requests"} & packages
    assert "harness" in packages


def test_a_run_of_the_sql_port_loads_the_postgresql_client_only():
    packages = loaded("compare", "--n", "1", "-l", "sql", "-m", "recursive")
    assert "psycopg" in packages and "docker" not in packages


def test_a_run_off_a_terminal_loads_no_progress_bar():
    modules = imported("compare", "--n", "1", "-l", "python", "-m", "recursive")
    assert "rich.console" in modules  # the report is written with rich
    assert "rich.progress" not in modules


def test_the_reports_writer_is_loaded_while_the_cells_run():
    """rich's console, which writes the report, is loaded while a run's cells run, not after the last."""
    waits = (
        "import sys, time\n"
        "from harness.cli.console import cells_progress\n"
        "with cells_progress(1):\n"
        "    deadline = time.monotonic() + 120\n"
        "    while not hasattr(sys.modules.get('rich.console'), 'Console') and time.monotonic() < deadline:\n"
        "        time.sleep(0.01)\n"
        "    print(hasattr(sys.modules.get('rich.console'), 'Console'))\n"
    )
    done = subprocess.run([sys.executable, "-c", waits], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout == "True\n"
