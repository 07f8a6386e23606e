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
from harness import __version__
from harness.model import CLASSIC, METHODS
from integration.conftest import compare_json, harness, harness_process, offered, reference_digest


def test_compare_passes_with_a_table_and_exit_0():
    done = harness("compare", "--n", "5", "--lang", ",".join(HEADLINE))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Tower of Hanoi, n = 5" in done.stdout
    for rules in set(METHODS.values()):
        ran = [language for name in METHODS if METHODS[name] is rules for language in offered(name, 5, HEADLINE)]
        assert done.stdout.count(f"pass · {rules.optimal_count(5)} moves") == len(ran)
    assert f"All {sum(len(offered(method, 5, HEADLINE)) for method in METHODS)} cells that ran pass and agree" in done.stdout


def test_json_report_has_every_cell_and_each_ports_versions(tmp_path):
    done, report = compare_json(tmp_path, "--n", "3,8", "--lang", "bash,python", "--method", "recursive", run=harness_here)
    assert done.returncode == 0
    assert report["passed"] is True
    assert (report["schema_version"], report["command"], report["harness"]) == (3, "compare", __version__)
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
    unknown = "missing-interpreter: hanoi-interpreter-nobody-has version unknown: not installed here: hanoi-interpreter-nobody-has not found on PATH"
    assert unknown in done.stdout
    # what each port follows, as its [[source]] tables say; a port with none says so
    lines = done.stdout.splitlines()
    assert ('python follows "The towers of Hanoi", by Eric Martin (CSE, UNSW); published: course notes of COMP9021 Principles of'
            " Programming, UNSW; terms: unknown; for recursive, iterative") in lines
    assert ('cpp follows "Cyclic Tower of Hanoi – analysis and implementation", by King-Yan Kwan; published: an article on the web,'
            " 26 December 2014, with C++14 listings; terms: unknown; for cyclic") in lines
    assert "missing-interpreter names no source: its manifest has no [[source]]" in lines
    assert not any(line.startswith("broken-manifest names no source") for line in lines)


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
    assert harness("--version").stdout.strip() == f"harness, version {__version__}"


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
    (signal.SIGQUIT, 131, "harness: stopped by SIGQUIT"),
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
    done, report = compare_json(tmp_path, "--n", "20", "--lang", "python", "--method", "cyclic", run=harness_here)
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


def test_doctor_says_the_sandbox_cannot_run_with_a_tmpdir_that_does_not_exist(tmp_path):
    done = harness_here("doctor", tmpdir=tmp_path / "missing")
    assert f"sandbox      UNAVAILABLE: TMPDIR is {tmp_path / 'missing'}, which does not exist" in done.stdout, done.stdout


def test_a_closed_pipe_ends_the_harness_quietly_with_sigpipes_code():
    """``harness run … | head -1``: what reads the moves has gone; the harness says nothing and exits
    141 (128 + SIGPIPE), as a pipeline's programs do, not 1, which says a cell failed."""
    done = subprocess.run(
        ["bash", "-c", f'"{sys.executable}" -m harness run python recursive --n 12 | head -1; echo "${{PIPESTATUS[0]}}"'],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert done.stdout.splitlines() == ["1 0 1", "141"], done.stdout + done.stderr
    assert done.stderr == ""


@pytest.mark.parametrize("args", [
    ("list",),
    ("list", "--verbose", "--format", "json"),
    ("check",),
    ("run", "python", "recursive", "-n", "3"),
    ("show", "python", "recursive", "-n", "3"),
    ("compare", "-n", "3", "--lang", "python,bash", "--method", "recursive"),
    ("compare", "-n", "3", "--lang", "python,bash", "--method", "recursive", "--format", "json"),
    ("compare", "-n", "3", "--lang", "python", "--method", "recursive", "--format", "plain", "--markdown", "/dev/stdout"),
    ("completion", "bash"),
    ("--help",),
], ids=" ".join)
def test_every_command_ends_quietly_with_sigpipes_code_on_a_pipe_already_closed(args):
    """Standard output a pipe whose reader has already gone, so that the first write meets it
    closed, however little the command writes: it ends as ``| head -1`` ends any program, 141 and
    no word (a report it was writing there is not a report it failed to write, which would be 1);
    what goes to standard error beside a report on standard output (the table) is still said."""
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run([sys.executable, "-m", "harness", *args], stdout=write, stderr=subprocess.PIPE, text=True, cwd=ROOT, timeout=300)
    finally:
        os.close(write)
    assert done.returncode == 141, done.stderr
    assert "Traceback" not in done.stderr and "cannot write" not in done.stderr and "Broken pipe" not in done.stderr, done.stderr
    assert done.stderr == "" or "--format" in args, done.stderr


def test_bash_completes_commands_and_ports_by_the_script_harness_completion_prints():
    """The script, sourced in a real bash as README says, with the installed ``harness`` on PATH: Tab
    after ``harness com`` offers the two commands, after ``harness run pyt`` the port; and the harness,
    answering the script, exits 0."""
    script = """
        eval "$(harness completion bash)"
        COMP_WORDS=(harness com); COMP_CWORD=1; COMPREPLY=(); _harness_completion harness; echo "${COMPREPLY[*]}"
        COMP_WORDS=(harness run pyt); COMP_CWORD=2; COMPREPLY=(); _harness_completion harness; echo "${COMPREPLY[*]}"
        COMP_WORDS=(harness compare --lang python,ba); COMP_CWORD=3; COMPREPLY=(); _harness_completion harness; echo "${COMPREPLY[*]}"
        _HARNESS_COMPLETE=bash_complete COMP_WORDS="harness com" COMP_CWORD=1 harness >/dev/null; echo "exit $?"
    """
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    done = subprocess.run(["bash", "-c", script], cwd=ROOT, env={**os.environ, "PATH": path}, capture_output=True, text=True, timeout=120)
    assert done.stdout.splitlines() == ["compare completion", "python", "python,bash", "exit 0"], done.stdout + done.stderr
