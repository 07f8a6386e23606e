"""What each mode says of itself, which the command line asks instead of naming modes: the
PostgreSQL server a run in it has when it names none, and whether its runs start containers; and
the rerun line, which gives --backend only where the run's differs from its mode's own."""

from __future__ import annotations

import shlex

import pytest

from conftest import PORTS
from harness.model import Cell, Outcome
from harness.report.rerun import rerun
from harness.runners import MODES
from harness.runners.walls import walls_class
from harness.settings import BACKENDS, Settings

OWN_BACKEND = {"subprocess": "embedded", "sandbox": "embedded", "container": "docker"}
"""The server of a run in each mode that names none: the embedded one runs on this machine, which
a container is not."""


@pytest.mark.parametrize("mode", MODES)
def test_each_mode_says_its_own_backend_and_whether_it_starts_containers(mode):
    walls = walls_class(mode)
    assert walls.mode == mode
    assert walls.default_backend == OWN_BACKEND[mode]
    assert walls.uses_engine is (mode == "container")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_rerun_line_names_the_backend_exactly_where_it_is_not_the_modes_own(mode, backend):
    settings = Settings(isolation=mode, backend=backend)
    words = shlex.split(rerun(Cell("sql", "recursive", 3, Outcome.FAIL), PORTS["sql"], settings, "ports").command)
    named = words[words.index("--backend") + 1] if "--backend" in words else None
    assert named == (None if backend == OWN_BACKEND[mode] else backend)
    elsewhere = shlex.split(rerun(Cell("python", "recursive", 3, Outcome.FAIL), PORTS["python"], settings, "ports").command)
    assert "--backend" not in elsewhere  # a port that runs in no PostgreSQL has no server to name
