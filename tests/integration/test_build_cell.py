"""A build is part of its cell: each runs in a private copy of the port's folder (so builds for many
n at once never share a file, and the port's folder is never written), may be several commands
with no shell, is rebuilt when any file below the port's folder changes, and is held by every
guarantee the cell's program is: the sandbox, the limits, the deadline, the clean-up of its
processes, and a bounded reading of whatever it prints."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import textwrap
import time
from pathlib import Path

import pytest

from conftest import ROOT, harness_here, left_behind, run_folder, valid_report
from harness.discover import load_port
from harness.evaluate import evaluate
from harness.model import Outcome, Reason
from integration.conftest import Listener, compare_json, harness_measured, harness_process, needs_bubblewrap

BUILD_PORTS = ROOT / "tests" / "build_ports"
HANOI_C = BUILD_PORTS / "src-subfolder" / "src" / "hanoi.c"

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler (cc) on PATH")


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file below ``folder`` with its size and modification time: what a build must not touch."""
    return {str(path.relative_to(folder)): (path.stat().st_size, path.stat().st_mtime_ns) for path in folder.rglob("*")}


def compiled_port(root: Path, name: str, build: str, command: str = '["{binary}", "{n}"]') -> Path:
    """A port whose program is the C recursive solver, built by ``build`` (a TOML value)."""
    folder = root / name
    folder.mkdir(parents=True)
    shutil.copy(HANOI_C, folder / "hanoi.c")
    (folder / "language.toml").write_text(textwrap.dedent(f"""\
        methods = ["recursive"]
        build = {build}
        command = {command}
        [output]
        patterns = ['(?P<disk>\\d+) (?P<src>[012]) (?P<dst>[012])']
        pegs = ["0", "1", "2"]
        """))
    return folder


@pytest.mark.parametrize(
    ("folder", "compiler"), [(BUILD_PORTS / "two-step", "cc"), (ROOT / "tests" / "contributed" / "ada-gnatmake", "gnatmake")], ids=["cc", "gnatmake"]
)
def test_builds_for_many_n_at_once_never_share_a_file_and_leave_the_port_untouched(tmp_path, folder, compiler):
    """sed writes a copy of the source with n in it into the build's working folder, and the compiler
    builds it there (gnatmake leaves its binder and object files beside it): eleven such builds at
    once, five times over with a clean cache, and every cell passes, with nothing written into the
    port's folder."""
    if shutil.which(compiler) is None:
        pytest.skip(f"{compiler} is not installed")
    root = tmp_path / "ports"
    shutil.copytree(folder, root / folder.name)
    before = snapshot(root / folder.name)
    for attempt in range(5):
        cache = tmp_path / f"cache-{attempt}"
        done, report = compare_json(
            tmp_path, "--n", "0-10", "--method", "recursive", "--jobs", "4", root=root, env={"HANOI_CACHE": str(cache)}, run=harness_here,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert [cell["outcome"] for cell in report["cells"]] == ["pass"] * 11
        assert len(list((cache / "builds" / folder.name).glob("*/done"))) == 11  # one build a n, each in a folder of its own
    assert snapshot(root / folder.name) == before


def test_editing_a_file_in_a_subfolder_makes_a_new_build(tmp_path, monkeypatch):
    monkeypatch.setenv("HANOI_CACHE", str(tmp_path / "cache"))
    shutil.copytree(BUILD_PORTS / "src-subfolder", tmp_path / "port")
    assert evaluate(load_port(tmp_path / "port" / "language.toml"), "recursive", 3).outcome is Outcome.PASS
    source = tmp_path / "port" / "src" / "hanoi.c"
    source.write_text(source.read_text().replace("move(atoi(argv[1]), 0, 2);", "move(atoi(argv[1]), 0, 1);"))
    cell = evaluate(load_port(tmp_path / "port" / "language.toml"), "recursive", 3)
    assert (cell.outcome, cell.reason) == (Outcome.FAIL, Reason.VIOLATION), cell.detail
    assert len(list((tmp_path / "cache" / "builds" / "port").glob("*/done"))) == 2


@pytest.mark.skipif(shutil.which("javac") is None or shutil.which("java") is None, reason="no javac and java on PATH")
def test_javac_builds_class_files_into_the_build_folder(tmp_path):
    cache = {"HANOI_CACHE": str(tmp_path / "cache")}
    done, report = compare_json(tmp_path, "--n", "0-5", "--lang", "javac", "--method", "recursive", root=BUILD_PORTS, env=cache, run=harness_here)
    assert done.returncode == 0, done.stdout + done.stderr
    assert [cell["outcome"] for cell in report["cells"]] == ["pass"] * 6


def test_a_build_that_makes_no_program_says_so(tmp_path, monkeypatch):
    monkeypatch.setenv("HANOI_CACHE", str(tmp_path / "cache"))
    port = load_port(compiled_port(tmp_path, "nothing", '["cc", "-fsyntax-only", "hanoi.c", "-DOUT={binary}"]') / "language.toml")
    cell = evaluate(port, "recursive", 2)
    assert (cell.outcome, cell.reason) == (Outcome.ERROR, Reason.BUILD)
    assert cell.detail == "the build finished with exit code 0 but made no program at {binary}: cc -fsyntax-only hanoi.c -DOUT={binary}"


def test_a_failing_step_of_a_build_list_is_named_and_the_rest_not_run(tmp_path, monkeypatch):
    monkeypatch.setenv("HANOI_CACHE", str(tmp_path / "cache"))
    folder = compiled_port(tmp_path, "broken", '[["cp", "missing.c", "program.c"], ["cc", "-o", "{binary}", "program.c"]]')
    cell = evaluate(load_port(folder / "language.toml"), "recursive", 2)
    assert (cell.outcome, cell.reason) == (Outcome.ERROR, Reason.BUILD)
    assert cell.detail.startswith("the build failed with exit code 1: cp missing.c program.c\n"), cell.detail
    assert "missing.c" in cell.detail.splitlines()[1]


def test_a_build_that_floods_its_output_leaves_the_harness_small_and_the_other_ports_intact(tmp_path):
    """A gigabyte printed by a build: the harness keeps its first and last lines, stays under 200 MiB,
    and the Python port beside it passes."""
    root = tmp_path / "ports"
    flood = 'import sys\nfor _ in range(1024): sys.stdout.write("x" * 1048575 + "\\n")\nsys.exit(3)'
    compiled_port(root, "flood", json.dumps(["python3", "-c", flood, "{binary}"]))
    (root / "python").symlink_to(ROOT / "python")
    tmpdir = run_folder()
    try:
        done, _, peak = harness_measured(
            "--root", str(root), "compare", "--n", "3", "--method", "recursive", "--json", str(tmp_path / "report.json"),
            env={"HANOI_CACHE": str(tmp_path / "cache")}, tmpdir=tmpdir,
        )
        assert left_behind(tmpdir) is None
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)
    cells = {cell["port"]: cell for cell in valid_report(json.loads((tmp_path / "report.json").read_text()))["cells"]}
    assert done.returncode == 1, done.stdout + done.stderr
    assert peak < 200 << 20, f"the harness reached {peak >> 20} MiB"
    assert (cells["flood"]["reason"], cells["flood"]["detail"].splitlines()[0]) == ("build", "the build failed with exit code 3: python3 -c import sys")
    assert len(cells["flood"]["detail"]) < 20_000
    assert cells["python"]["outcome"] == "pass"


HOSTILE_BUILDS = {
    # a gigabyte held, under --memory 256M
    "hog": ["python3", "-c", "import time\nb = bytearray(1 << 30)\nfor i in range(0, len(b), 4096): b[i] = 1\ntime.sleep(30)", "{binary}"],
    # forty seconds, under --timeout 2
    "slow": ["sh", "-c", "sleep 40", "{binary}"],
    # a child left holding the build's output, then the program made
    "lingering": ["sh", "-c", 'sleep 300 & cc -O2 -o "$0" hanoi.c', "{binary}"],
}


def test_hostile_builds_are_their_cells_errors_within_the_cells_limits(tmp_path):
    """Each hostile build is its own cell's error, named by the limit it crossed, well within the
    time a cell has; no process of a build outlives the run (harness() checks it); and the ports
    beside them pass."""
    root = tmp_path / "ports"
    for name, build in HOSTILE_BUILDS.items():
        compiled_port(root, name, json.dumps(build))
    (root / "python").symlink_to(ROOT / "python")
    started = time.monotonic()
    done, report = compare_json(
        tmp_path, "--n", "3", "--method", "recursive", "--timeout", "2", "--memory", "256M", "--jobs", "4",
        root=root, env={"HANOI_CACHE": str(tmp_path / "cache")},
    )
    seconds = time.monotonic() - started
    cells = {cell["port"]: cell for cell in report["cells"]}
    assert done.returncode == 1, done.stdout + done.stderr
    assert seconds < 20, f"the run took {seconds:.1f} s"
    hog, slow = cells["hog"], cells["slow"]
    assert hog["reason"] == "build" and hog["detail"].startswith("the build used more than 256 MiB of memory"), hog
    assert (slow["reason"], slow["detail"]) == ("build", "the build ran past its 2 s (--build-timeout): sh -c sleep 40 {binary}"), slow
    assert (cells["lingering"]["outcome"], cells["python"]["outcome"]) == ("pass", "pass"), cells


@needs_bubblewrap
def test_a_sandboxed_build_reaches_neither_the_network_nor_the_hosts_files(tmp_path):
    listener = Listener()
    host, port = listener.address.split("/")
    escaped = Path("/tmp") / f"hanoi-escaped-build-{os.getpid()}"
    probe = (
        "import socket\n"
        f"try:\n    socket.create_connection(({host!r}, {port}), timeout=5); print('connected')\nexcept OSError as e: print('no network:', e)\n"
        f"try:\n    open({str(escaped)!r}, 'w').write('x'); print('wrote')\nexcept OSError as e: print('no write:', e)\n"
    )
    build = json.dumps([["python3", "-c", probe], ["cc", "-O2", "-o", "{binary}", "hanoi.c"]])
    compiled_port(tmp_path / "ports", "prober", build)
    try:
        done, report = compare_json(
            tmp_path, "--n", "2", "--isolation", "sandbox", root=tmp_path / "ports", env={"HANOI_CACHE": str(tmp_path / "cache")},
        )
        accepted, wrote = listener.accepted, escaped.exists()
    finally:
        listener.close()
        escaped.unlink(missing_ok=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (accepted, wrote) == (0, False)


def test_sigterm_during_a_build_ends_the_run_at_once_and_the_build_with_it(tmp_path, run_tmpdir):
    root = tmp_path / "ports"
    compiled_port(root, "slow", json.dumps(["sh", "-c", "sleep 40", "{binary}"]))
    process = harness_process(
        "--root", str(root), "compare", "--n", "3", "--method", "recursive", tmpdir=run_tmpdir,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env_extra={"HANOI_CACHE": str(tmp_path / "cache")},
    )
    time.sleep(2)  # the build has started, and sleeps
    signalled = time.monotonic()
    process.terminate()
    _, err = process.communicate(timeout=60)
    assert (process.returncode, err.strip().splitlines()[-1]) == (143, "harness: stopped by SIGTERM")
    assert time.monotonic() - signalled < 5
    assert left_behind(run_tmpdir) is None


def test_a_file_whose_name_is_not_utf8_is_built_with_the_rest_and_the_other_ports_reported(tmp_path):
    """git carries file names of any bytes: the build's key reads them as bytes, so the port builds
    and passes, with the file copied into its build, and the Python port beside it is reported."""
    root = tmp_path / "ports"
    folder = compiled_port(root, "bytes", '["cc", "-O2", "-o", "{binary}", "hanoi.c"]')
    (folder / os.fsdecode(b"notes-\xff.txt")).write_bytes(b"not UTF-8 in its name\n")
    (root / "python").symlink_to(ROOT / "python")
    cache = tmp_path / "cache"
    done, report = compare_json(tmp_path, "--n", "3", "--method", "recursive", root=root, env={"HANOI_CACHE": str(cache)}, run=harness_here)
    assert "Traceback" not in done.stdout + done.stderr
    assert done.returncode == 0, done.stdout + done.stderr
    assert {cell["port"]: cell["outcome"] for cell in report["cells"]} == {"bytes": "pass", "python": "pass"}
    [copied] = (cache / "builds" / "bytes").glob("*/build")
    assert (copied / os.fsdecode(b"notes-\xff.txt")).read_bytes() == b"not UTF-8 in its name\n"


@needs_bubblewrap
def test_a_build_made_outside_the_sandbox_is_not_taken_for_one_made_in_it(tmp_path, run_tmpdir):
    """The cache keeps builds apart by the isolation they were made in: a build that needs a file the
    sandbox does not show passes as a subprocess, and is a build error in the sandbox, however the
    cache was filled."""
    outside = tmp_path / "only-outside.txt"
    outside.write_text("seen\n")
    folder = tmp_path / "ports" / "needy"
    folder.mkdir(parents=True)
    (folder / "hanoi.sh").write_text('[ "$1" = 0 ] || echo "1 0 2"\n')
    (folder / "language.toml").write_text(textwrap.dedent(f"""\
        methods = ["recursive"]
        build = ["sh", "-c", "cat {outside} > /dev/null && cp hanoi.sh {{binary}}"]
        command = ["sh", "{{binary}}", "{{n}}"]
        [output]
        patterns = ['(?P<disk>\\d+) (?P<src>\\d) (?P<dst>\\d)']
        pegs = ["0", "1", "2"]
    """))
    root = folder.parent
    _, plain = compare_json(tmp_path, "--n", "1", "--method", "recursive", root=root, tmpdir=run_tmpdir)
    assert [cell["outcome"] for cell in plain["cells"]] == ["pass"], plain["cells"]
    _, sandboxed = compare_json(tmp_path, "--n", "1", "--method", "recursive", "--isolation", "sandbox", root=root, tmpdir=run_tmpdir)
    [cell] = sandboxed["cells"]
    assert (cell["outcome"], cell["reason"]) == ("error", "build") and "No such file or directory" in cell["detail"], cell
