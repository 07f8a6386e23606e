"""What each mode and each kind of PostgreSQL server says of itself, which the command line and the
gate ask instead of naming them: the server a run in a mode has when it names none, whether a mode's
runs or a server start containers, whether a server runs on this machine, needs a DSN, or says its
version unstarted; and the rerun line, which gives --backend only where the run's differs from its
mode's own."""

from __future__ import annotations

import shlex

import click
import pytest

from conftest import project_ports
from harness.cli.compare import compare
from harness.cli.options import settings_from
from harness.limits import Limits
from harness.model import Cell, Outcome
from harness.report.rerun import rerun
from harness.runners.postgres import SERVERS
from harness.runners.walls import open_walls, walls_class
from harness.settings import BACKENDS, DEFAULT_MODE, MODES, Settings


def test_the_harnesss_modes_say_their_own_backend_and_whether_they_start_containers():
    """The server of a run in each mode that names none: the embedded one runs on this machine, which
    a container is not."""
    said = {mode: (walls_class(mode).default_backend, walls_class(mode).uses_engine) for mode in ("subprocess", "sandbox", "container")}
    assert said == {"subprocess": ("embedded", False), "sandbox": ("embedded", False), "container": ("docker", True)}


@pytest.mark.parametrize("mode", MODES)
def test_every_mode_is_named_as_its_module_and_a_run_in_it_takes_its_own_backend(mode, monkeypatch):
    """Whatever the mode (a new one too): the server it names as its own is one a run in it may have,
    and the one a run that names none gets."""
    monkeypatch.delenv("HANOI_PG_DSN", raising=False)
    walls = walls_class(mode)
    assert walls.mode == mode
    assert backend_of(["--isolation", mode]) == backend_of(["--isolation", mode, "--backend", walls.default_backend]) == walls.default_backend
    assert SERVERS[walls.default_backend].on_this_machine <= walls.host_interpreters


def test_settings_that_name_no_mode_have_the_default_mode_and_its_own_backend():
    assert Settings().isolation == DEFAULT_MODE == "subprocess"
    assert Settings().backend == walls_class(DEFAULT_MODE).default_backend


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_rerun_line_names_the_backend_exactly_where_it_is_not_the_modes_own(mode, backend):
    settings = Settings(isolation=mode, backend=backend)
    words = shlex.split(rerun(Cell("sql", "recursive", 3, Outcome.FAIL), project_ports()["sql"], settings, "ports").command)
    named = words[words.index("--backend") + 1] if "--backend" in words else None
    assert named == (None if backend == walls_class(mode).default_backend else backend)
    elsewhere = shlex.split(rerun(Cell("python", "recursive", 3, Outcome.FAIL), project_ports()["python"], settings, "ports").command)
    assert "--backend" not in elsewhere  # a port that runs in no PostgreSQL has no server to name


def test_servers_names_each_backend_and_what_each_is():
    assert tuple(SERVERS) == BACKENDS
    said = {
        name: (kind.on_this_machine, kind.needs_dsn, kind.uses_engine, kind.version_without_starting) for name, kind in SERVERS.items()
    }
    assert said == {
        "embedded": (True, False, False, True),  # the wheel's server, in the run's walls: its program says its version
        "server": (False, True, False, False),  # someone else's, named by a DSN
        "docker": (False, False, True, False),  # a container of the engine's
    }


def test_every_kind_of_server_is_made_alike_and_is_the_kind_it_is_named_for(tmp_path):
    walls = open_walls("subprocess", Limits(1 << 30, 64))
    for name, kind in SERVERS.items():
        server = kind.load()(walls, project_ports()["sql"], "dbname=hanoi", tmp_path)
        assert server.name == name


def backend_of(args: list[str]) -> str:
    """The back-end compare's options make."""
    with compare.make_context("compare", ["--n", "3", *args]) as ctx:
        return settings_from(list(project_ports()), ctx.params).backend


@pytest.mark.parametrize(("args", "backend"), [
    ([], "embedded"),
    (["--isolation", "sandbox"], "embedded"),
    (["--isolation", "container"], "docker"),
    (["--dsn", "host=x"], "server"),
    (["--isolation", "container", "--dsn", "host=x"], "server"),
    (["--isolation", "container", "--backend", "docker"], "docker"),
])
def test_a_run_that_names_no_backend_has_its_modes_own_or_the_dsns(args, backend, monkeypatch):
    monkeypatch.delenv("HANOI_PG_DSN", raising=False)
    assert backend_of(args) == backend


@pytest.mark.parametrize(("args", "refusal"), [
    (
        ["--isolation", "container", "--backend", "embedded"],
        "--backend embedded runs the server on this machine, which --isolation container does not: use --backend docker or --dsn",
    ),
    (["--backend", "server"], "--backend server needs --dsn or HANOI_PG_DSN"),
    (["--backend", "docker", "--dsn", "host=x"], "--dsn names a server, --backend docker starts one: give only one of them"),
    (["--backend", "embedded", "--dsn", "host=x"], "--dsn names a server, --backend embedded starts one: give only one of them"),
])
def test_a_backend_that_the_mode_or_the_dsn_rules_out_is_refused(args, refusal, monkeypatch):
    monkeypatch.delenv("HANOI_PG_DSN", raising=False)
    with pytest.raises(click.UsageError) as refused:
        backend_of(args)
    assert refused.value.message == refusal
