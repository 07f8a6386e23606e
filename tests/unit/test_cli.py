"""The harness command's answers that need nothing run: bad arguments, a folder without ports, a
TMPDIR the run cannot use, a report the gallery cannot read, a port new-language cannot start, and
the table of ports from their manifests alone; each in-process."""

from __future__ import annotations

from unittest import mock

import pytest

from conftest import ROOT, harness_here, project_ports, suite
from harness.settings import BACKENDS, MODES


@pytest.mark.parametrize(
    "args, message",
    [
        (["compare", "--n", "-1"], "'-1' is not a number of discs"),
        (["compare", "--n", "2.5"], "'2.5' is not a number of discs"),
        (["compare", "--n", "9-3"], "the range '9-3' runs backwards"),
        (["compare"], "Missing option '-n' / '--n'"),
        (["compare", "--n", "3", "--lang", "intercal"], "unknown port 'intercal'; known: {ports}"),
        (["compare", "--n", "3", "--method", "sideways"], "unknown method 'sideways'; known: binary, recursive, iterative, cyclic"),
        (["compare", "--n", "3", "--timeout", "0"], "--timeout"),
        (["compare", "--n", "3", "--jobs", "0"], "--jobs"),
        (["compare", "--n", "3", "--json", "/no/such/folder/report.json"], "No such file or directory"),
        (["run", "python", "binary", "--n", "-2"], "--n"),
        (["run", "intercal", "binary", "--n", "2"], "unknown port 'intercal'"),
        (["run", "python", "sideways", "--n", "2"], "unknown method 'sideways'"),
        (["compare", "--n", "3", "--lang", "bash,pyhton"], "unknown port 'pyhton' (did you mean 'python'?); known: {ports}"),
        (["compare", "--n", "3", "--method", "recursiv,itrative"], "unknown method 'recursiv', 'itrative' (did you mean 'recursive' or 'iterative'?)"),
        (["run", "pyhton", "binary", "--n", "2"], "unknown port 'pyhton' (did you mean 'python'?)"),
        (["show", "python", "recursiv", "--n", "2"], "unknown method 'recursiv' (did you mean 'recursive'?)"),
        (["doctor", "--port", "rubby"], "unknown port 'rubby' (did you mean 'ruby'?)"),
        (["--root", "/no/such/folder", "list"], "--root"),
        (["compare", "--n", "3", "--dsn", "host"], "not a PostgreSQL connection string"),
        (["compare", "--n", "3", "--backend", "server"], "--backend server needs --dsn or HANOI_PG_DSN"),
        (["compare", "--n", "3", "--backend", "docker", "--dsn", "host=x"], "give only one of them"),
        (["list", "--backend", "cloud"], f"'cloud' is not one of {', '.join(map(repr, BACKENDS))}"),
        (["compare", "--n", "3", "--isolation", "vm"], f"'vm' is not one of {', '.join(map(repr, MODES))}"),
        (["compare", "--n", "3", "--memory", "lots"], "'lots' is not a size such as 512M or 2G"),
        (["run", "bash", "binary", "--n", "3", "--memory", "0"], "'0' is not a size such as 512M or 2G"),
        (["compare", "--n", "3", "--processes", "0"], "--processes"),
        (["frobnicate"], "No such command 'frobnicate'"),
    ],
)
def test_bad_arguments_get_one_line_and_exit_2(args, message):
    done = harness_here(*args)
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert message.format(ports=", ".join(project_ports())) in done.stderr


def test_a_root_without_ports_is_a_usage_error(tmp_path):
    done = harness_here("--root", str(tmp_path), "list")
    assert done.returncode == 2
    assert f"no ports under {tmp_path}" in done.stderr


def test_a_command_for_some_ports_reads_their_manifests_alone(tmp_path):
    from harness import discover

    root = suite(tmp_path, real=("bash", "python", "ruby"))
    for chosen, read in ((["--port", "python"], ["python"]), ([], ["bash", "python", "ruby"])):
        with mock.patch.object(discover, "load_port", wraps=discover.load_port) as load_port:
            done = harness_here("--root", str(root), "list", "--format", "markdown", *chosen)
        assert done.returncode == 0, done.stderr
        assert [call.args[0] for call in load_port.call_args_list] == [root / name / "language.toml" for name in read]


def test_list_as_markdown_is_the_table_of_ports_from_their_manifests_alone(tmp_path):
    root = suite(tmp_path, "missing-interpreter", real=("python",))
    done = harness_here("--root", str(root), "list", "--format", "markdown")
    assert done.stdout.splitlines() == [
        "| port | methods | summary | needs |",
        "| --- | --- | --- | --- |",
        "| `missing-interpreter/` | binary, recursive, iterative | fake: needs an interpreter that is not installed | hanoi-interpreter-nobody-has |",
        f"| `python/` | {', '.join(project_ports()['python'].methods)} | {project_ports()['python'].summary} | python3 |",
    ]


TMPDIR_MESSAGES = {
    "missing": "which does not exist: the run and every program it starts keep their temporary files there",
    "a-file": "which is not a folder: the run and every program it starts keep their temporary files there",
}


@pytest.mark.parametrize("kind", TMPDIR_MESSAGES)
@pytest.mark.parametrize(
    "command",
    [
        ("compare", "--n", "2", "--isolation", "sandbox"),
        ("compare", "--n", "2"),
        ("run", "sql", "recursive", "--n", "2"),
        ("list",),
        ("bench", "--n", "2", "--port", "cpp", "--repeat", "1"),
    ],
    ids=["sandbox", "subprocess", "run-in-postgresql", "list", "bench-a-build"],
)
def test_a_tmpdir_that_cannot_be_used_is_the_runs_named_error_and_nothing_starts(tmp_path, kind, command):
    """The sandbox mounts TMPDIR, and every program the run starts (a port, a compiler, the embedded
    PostgreSQL) gets it as its own: one that is missing, or a file, is the run's error, saying so,
    with exit 1, before any cell; no port, server or build is started, and no cell is skipped."""
    tmpdir = tmp_path / "tmp"
    if kind == "a-file":
        tmpdir.write_text("not a folder\n")
    cache = tmp_path / "cache"
    done = harness_here(*command, tmpdir=tmpdir, env={"HANOI_CACHE": str(cache)})
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr == f"Error: TMPDIR is {tmpdir}, {TMPDIR_MESSAGES[kind]}; make it a folder you may write, or unset it\n"
    assert done.stdout == ""
    assert not cache.exists()
    assert kind == "a-file" or not tmpdir.exists()


def test_a_gallery_of_a_report_that_cannot_be_read_is_a_usage_error(tmp_path):
    (tmp_path / "r.json").write_text("{}")
    done = harness_here("--root", str(ROOT), "gallery", "--report", str(tmp_path / "r.json"), "--out", str(tmp_path / "site"))
    assert done.returncode == 2 and "Traceback" not in done.stderr and not (tmp_path / "site").exists()


def test_new_language_refuses_a_folder_that_exists_or_a_bad_name(tmp_path):
    root = suite(tmp_path, real=("python",))
    for name, message in [("python", "already exists"), ("Perl 5", "is not a port name")]:
        done = harness_here("--root", str(root), "new-language", name)
        assert done.returncode == 2
        assert message in done.stderr and "Traceback" not in done.stderr
