"""The harness command as a user meets it: exit codes, the JSON report, bad arguments, run and list."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pexpect
import pytest

from conftest import FAKE_PORTS, HEADLINE, ROOT, harness_here, left_behind, started_in, suite
from harness.model import CLASSIC, METHODS
from integration.conftest import PORTS, REAL_PORTS, compare_json, harness, harness_process, offered, reference_digest


def test_compare_passes_with_a_table_and_exit_0():
    done = harness("compare", "--n", "5", "--lang", ",".join(HEADLINE))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Tower of Hanoi, n = 5" in done.stdout
    for rules in set(METHODS.values()):
        ran = [language for name in METHODS if METHODS[name] is rules for language in offered(name, 5, HEADLINE)]
        assert done.stdout.count(f"pass · {rules.optimal_count(5)} moves") == len(ran)
    assert f"All {sum(len(offered(method, 5, HEADLINE)) for method in METHODS)} cells that ran pass and agree" in done.stdout


def test_json_report_has_every_cell_and_each_ports_versions(tmp_path):
    done, report = compare_json(tmp_path, "--n", "3,8", "--lang", "bash,python", "--method", "recursive")
    assert done.returncode == 0
    assert report["passed"] is True
    assert (report["schema_version"], report["command"], report["harness"]) == (3, "compare", "0.1.0")
    assert report["started"] <= report["finished"]
    assert report["plan"] == {"ports": ["bash", "python"], "methods": ["recursive"], "n": [3, 8], "shard": None}
    assert report["options"]["jobs"] >= 1 and "n" not in report["options"]
    assert report["commit"] and report["machine"]["cores"] >= 1
    assert set(report["ports"]) == {"bash", "python"}
    assert report["ports"]["python"]["versions"]["python3"].startswith("Python 3.")
    assert report["ports"]["bash"]["versions"]["bash"].startswith("GNU bash ")
    cells = report["cells"]
    assert [cell["id"] for cell in cells] == ["bash/recursive/3", "python/recursive/3", "bash/recursive/8", "python/recursive/8"]
    assert [(c["n"], c["port"], c["method"], c["puzzle"]) for c in cells] == [
        (3, "bash", "recursive", "classic"), (3, "python", "recursive", "classic"),
        (8, "bash", "recursive", "classic"), (8, "python", "recursive", "classic"),
    ]
    for cell in cells:
        assert (cell["outcome"], cell["reason"], cell["moves"], cell["digest"], cell["detail"]) == (
            "pass", None, 2 ** cell["n"] - 1, reference_digest(cell["n"]), ""
        )
        assert cell["seconds"] > 0


@pytest.mark.parametrize(
    "args, message",
    [
        (["compare", "--n", "-1"], "'-1' is not a number of discs"),
        (["compare", "--n", "2.5"], "'2.5' is not a number of discs"),
        (["compare", "--n", "9-3"], "the range '9-3' runs backwards"),
        (["compare"], "Missing option '-n' / '--n'"),
        (["compare", "--n", "3", "--lang", "intercal"], f"unknown port 'intercal'; known: {', '.join(REAL_PORTS)}"),
        (["compare", "--n", "3", "--method", "sideways"], "unknown method 'sideways'; known: binary, recursive, iterative, cyclic"),
        (["compare", "--n", "3", "--timeout", "0"], "--timeout"),
        (["compare", "--n", "3", "--jobs", "0"], "--jobs"),
        (["compare", "--n", "3", "--json", "/no/such/folder/report.json"], "No such file or directory"),
        (["run", "python", "binary", "--n", "-2"], "--n"),
        (["run", "intercal", "binary", "--n", "2"], "unknown port 'intercal'"),
        (["run", "python", "sideways", "--n", "2"], "unknown method 'sideways'"),
        (["--root", "/no/such/folder", "list"], "--root"),
        (["compare", "--n", "3", "--dsn", "host"], "not a PostgreSQL connection string"),
        (["compare", "--n", "3", "--backend", "server"], "--backend server needs --dsn or HANOI_PG_DSN"),
        (["compare", "--n", "3", "--backend", "docker", "--dsn", "host=x"], "give only one of them"),
        (["list", "--backend", "cloud"], "'cloud' is not one of 'embedded', 'server', 'docker'"),
        (["compare", "--n", "3", "--isolation", "vm"], "'vm' is not one of 'subprocess', 'sandbox', 'container'"),
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
    assert message in done.stderr


def test_a_root_without_ports_is_a_usage_error(tmp_path):
    done = harness_here("--root", str(tmp_path), "list")
    assert done.returncode == 2
    assert f"no ports under {tmp_path}" in done.stderr


def test_run_prints_canonical_moves():
    done = harness_here("run", "bash", "binary", "--n", "4")
    assert done.returncode == 0
    assert done.stdout.splitlines() == [move.canonical() for move in CLASSIC.reference(4)]


def test_run_raw_prints_the_ports_own_lines():
    done = harness_here("run", "python", "iterative", "--n", "2", "--raw")
    assert done.returncode == 0
    assert done.stdout.splitlines() == [
        "Move smallest disk from position 0 to position 1",
        "Move disk of size 2 from position 0 to position 2",
        "Move smallest disk from position 1 to position 2",
    ]


def test_run_of_a_failing_cell_says_why_and_exits_1(tmp_path):
    root = suite(tmp_path, "seed-b_toh", real=())
    done = harness_here("--root", str(root), "run", "seed-b_toh", "binary", "--n", "2")
    assert done.returncode == 1
    assert done.stdout.splitlines() == ["1 0 2", "2 0 1", "1 2 1"]
    assert "seed-b_toh/binary n=2: fail: after 3 moves the discs are not all on peg 2" in done.stderr
    assert "- 1 0 1" in done.stderr and "+ 1 0 2" in done.stderr


def test_list_shows_ports_interpreters_and_versions(tmp_path):
    root = suite(tmp_path, "missing-interpreter", "broken-manifest", "manifest-not-utf8", "version-flood", "huge-disc")
    done = harness_here("--root", str(root), "list", "--verbose")
    assert done.returncode == 1  # a broken manifest fails the run, as it does in compare
    assert "Python 3." in done.stdout and "GNU bash" in done.stdout
    assert "missing: hanoi-interpreter-nobody-has; apt-get install hanoi-interpreter" in done.stdout
    assert done.stdout.count("manifest problem") == 2
    assert "not UTF-8 text" in done.stdout
    assert "found flood 1.0" in done.stdout
    assert "huge-disc: python3 version unknown: the manifest gives no version command" in done.stdout
    assert "missing-interpreter: hanoi-interpreter-nobody-has version unknown: hanoi-interpreter-nobody-has is not on PATH" in done.stdout
    # what each port follows, as its [[source]] tables say; a port with none says so
    lines = done.stdout.splitlines()
    assert ('python follows "The towers of Hanoi", by Eric Martin (CSE, UNSW); published: course notes of COMP9021 Principles of'
            " Programming, UNSW; terms: unknown; for recursive, iterative") in lines
    assert ('cpp follows "Cyclic Tower of Hanoi – analysis and implementation", by King-Yan Kwan; published: an article on the web,'
            " 26 December 2014, with C++14 listings; terms: unknown; for cyclic") in lines
    assert "missing-interpreter names no source: its manifest has no [[source]]" in lines
    assert not any(line.startswith("broken-manifest names no source") for line in lines)


def test_list_as_markdown_is_the_table_of_ports_from_their_manifests_alone(tmp_path):
    root = suite(tmp_path, "missing-interpreter", real=("python",))
    done = harness_here("--root", str(root), "list", "--format", "markdown")
    assert done.stdout.splitlines() == [
        "| port | methods | summary | needs |",
        "| --- | --- | --- | --- |",
        "| `missing-interpreter/` | binary, recursive, iterative | fake: needs an interpreter that is not installed | hanoi-interpreter-nobody-has |",
        f"| `python/` | {', '.join(PORTS['python'].methods)} | {PORTS['python'].summary} | python3 |",
    ]


def test_a_version_command_that_fails_is_unknown_not_its_error_text(tmp_path):
    folder = tmp_path / "ports" / "failing-version"
    folder.mkdir(parents=True)
    manifest = (FAKE_PORTS / "version-flood" / "language.toml").read_text()
    (folder / "language.toml").write_text(
        manifest.replace('["yes", "flood 1.0"]', '["python3", "-c", "import sys; sys.exit(\'no such option: --version\')"]')
        .replace("../fake.py", str(FAKE_PORTS / "fake.py"))
    )
    done = harness_here("--root", str(folder.parent), "list", "--verbose")
    assert "python3 (version unknown)" in done.stdout
    assert "failing-version: python3 version unknown: python3 -c" in done.stdout and "exited with code 1: no such option" in done.stdout


def test_strict_fails_the_run_on_a_missing_interpreter(tmp_path):
    root = suite(tmp_path, "missing-interpreter")
    assert harness_here("--root", str(root), "compare", "--n", "2").returncode == 0
    strict = harness_here("--root", str(root), "compare", "--n", "2", "--strict")
    assert strict.returncode == 1
    assert ("missing-interpreter: error (missing-interpreter) binary,recursive,iterative n=2: not installed here:"
            " hanoi-interpreter-nobody-has not found") in strict.stdout


def test_a_run_where_nothing_ran_says_so(tmp_path):
    root = suite(tmp_path, "missing-interpreter", real=())
    done = harness_here("--root", str(root), "compare", "--n", "2")
    assert done.returncode == 0
    assert "No cell ran" in done.stdout


def test_console_command_is_installed():
    command = shutil.which("harness", path=str(Path(sys.executable).parent))
    assert command, "the harness console command is not installed beside this Python (pip install -e .)"
    assert harness("--version").stdout.strip() == "harness, version 0.1.0"


def _hanging(pids: list[int]) -> list[int]:
    """The hanging fake ports among ``pids``."""
    found = []
    for pid in pids:
        try:
            if b"hang" in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0"):
                found.append(pid)
        except OSError:
            continue
    return found


@pytest.mark.parametrize(("sent", "code", "said"), [
    (signal.SIGINT, 130, "harness: interrupted"),
    (signal.SIGTERM, 143, "harness: stopped by SIGTERM"),
    (signal.SIGHUP, 129, "harness: stopped by SIGHUP"),
])
def test_a_signal_stops_the_run_and_every_port(tmp_path, sent, code, said, run_tmpdir):
    root = suite(tmp_path, "hang", real=())
    run = harness_process(
        "--root", str(root), "compare", "--n", "3,4,5", "--jobs", "2", tmpdir=run_tmpdir,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 30
    while len(hanging := _hanging(started_in(run_tmpdir))) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert len(hanging) >= 2  # the two ports (and any launcher in front of python3, such as pyenv's)
    run.send_signal(sent)
    out, err = run.communicate(timeout=30)
    assert run.returncode == code, err
    assert err.strip() == said
    assert left_behind(run_tmpdir) is None


def test_a_cell_over_max_moves_is_skipped_saying_why(tmp_path):
    done, report = compare_json(tmp_path, "--n", "20", "--lang", "python", "--method", "cyclic")
    assert done.returncode == 0
    [cell] = report["cells"]
    assert (cell["outcome"], cell["detail"]) == ("skipped", "423,324,671 moves is over --max-moves 16,777,216")


def test_run_raw_prints_every_line_even_past_one_it_cannot_read_then_the_diagnosis(tmp_path):
    root = suite(tmp_path, "garbage", real=())
    done = harness_here("--root", str(root), "run", "garbage", "iterative", "--n", "3", "--raw")
    assert done.returncode == 1
    assert done.stdout.splitlines() == ["1 0 2", "2 0 1", "the quick brown fox", "1 2 1", "3 0 2", "1 1 0", "2 1 2", "1 0 2"]
    assert "garbage/iterative n=3: error: line 3: 'the quick brown fox' matches none of the port's patterns" in done.stderr


def test_ports_are_found_from_the_current_folder_or_its_parents_else_hanoi_root(tmp_path):
    root = suite(tmp_path, "garbage", real=("python",))
    inside = root / "notes" / "deeper"
    inside.mkdir(parents=True)
    environment = {key: value for key, value in os.environ.items() if key != "HANOI_ROOT"}
    listed = subprocess.run(
        [sys.executable, "-m", "harness", "list"], cwd=inside, env=environment, capture_output=True, text=True, timeout=60
    )
    assert listed.returncode == 0, listed.stderr
    assert "garbage" in listed.stdout and "python" in listed.stdout and "bash" not in listed.stdout
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    nowhere = subprocess.run(
        [sys.executable, "-m", "harness", "list"], cwd=elsewhere, env=environment, capture_output=True, text=True, timeout=60
    )
    assert nowhere.returncode == 2
    assert "harness: no ports here: run inside a checkout" in nowhere.stderr and len(nowhere.stderr.splitlines()) == 1
    by_variable = subprocess.run(
        [sys.executable, "-m", "harness", "list"], cwd=elsewhere, env={**environment, "HANOI_ROOT": str(root)},
        capture_output=True, text=True, timeout=60,
    )
    assert by_variable.returncode == 0 and "garbage" in by_variable.stdout


def test_doctor_says_what_each_port_needs_and_how_to_get_what_is_missing(tmp_path):
    root = suite(tmp_path, "missing-interpreter", real=("python", "prolog"))
    done = harness_here("--root", str(root), "doctor")
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert any(line.startswith("python3") and "found" in line and "(needed by python)" in line for line in lines)
    assert any(line.startswith("swipl") and "(needed by prolog)" in line for line in lines)
    assert any(
        line.startswith("hanoi-interpreter-nobody-has") and "MISSING: apt-get install hanoi-interpreter" in line for line in lines
    )
    assert lines[-1] == "missing: hanoi-interpreter-nobody-has: the cells of the ports that need them are skipped"
    assert harness_here("doctor").returncode in (0, 1)  # the project's own: what this machine has decides


def test_on_a_terminal_compare_shows_its_progress_and_leaves_only_the_report():
    child = pexpect.spawn(
        sys.executable, ["-m", "harness", "compare", "--n", "1-2", "-l", "python", "-m", "recursive"],
        cwd=str(ROOT), env={**os.environ, "TERM": "xterm", "COLUMNS": "120"}, encoding="utf-8", timeout=120,
    )
    output = child.read()
    child.close()
    assert child.exitstatus == 0, output
    assert "2/2" in output  # the bar's last count, drawn before it is cleared
    assert "All 2 cells that ran pass and agree" in output


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


def test_doctor_says_the_sandbox_cannot_run_with_a_tmpdir_that_does_not_exist(tmp_path):
    done = harness_here("doctor", tmpdir=tmp_path / "missing")
    assert f"sandbox      UNAVAILABLE: TMPDIR is {tmp_path / 'missing'}, which does not exist" in done.stdout, done.stdout
