"""What a cell holds is counted, whoever runs the harness: the files a sandboxed port writes to its
private /dev/shm and /tmp are memory, held within --memory with its processes', and a cell that
writes past it is the memory limit's error, never a pass or a time-out. As root, the cell's control
group is charged for them; as another user, the watcher counts them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time

import pytest

from conftest import ROOT, suite
from harness.limits import CellGroup, Limits
from integration.conftest import compare_json, needs_bubblewrap
from integration.test_unprivileged import someone  # noqa: F401 (a fixture)

ISOLATION_PORTS = ROOT / "tests" / "isolation_ports"
FILLERS = ("hostile-shm", "hostile-tmp")
LIMITS = ("--method", "binary", "--memory", "256M", "--timeout", "20")
HELD = "used more than 256 MiB of memory"


def held(cells: list[dict]) -> dict[str, tuple[str, str]]:
    """Each cell's outcome and the start of its detail, as far as the memory limit's name (a peak
    the watcher saw may follow)."""
    return {cell["port"]: (cell["outcome"], cell["detail"][: len(HELD)]) for cell in cells}


@needs_bubblewrap
def test_files_in_the_sandboxs_dev_shm_and_tmp_are_the_cells_memory_as_root(tmp_path, run_tmpdir):
    if os.geteuid() != 0:
        pytest.skip("the unprivileged case is the next test's")
    root = suite(tmp_path, *FILLERS, real=(), fakes_from=ISOLATION_PORTS)
    started = time.monotonic()
    done, report = compare_json(tmp_path, "--n", "0", "--isolation", "sandbox", "-j", "1", *LIMITS, root=root, tmpdir=run_tmpdir)
    assert held(report["cells"]) == dict.fromkeys(FILLERS, ("error", HELD)), done.stdout + done.stderr
    assert time.monotonic() - started < 20, "a cell ran to its time-out"


@needs_bubblewrap
def test_files_in_the_sandboxs_dev_shm_and_tmp_are_the_cells_memory_as_another_user(someone):  # noqa: F811
    user, folder = someone
    for port in FILLERS:
        shutil.copytree(ISOLATION_PORTS / port, folder / "ports" / port)
    (folder / "tmp").mkdir()
    for path in (folder, *folder.rglob("*")):
        os.lchown(path, user.pw_uid, user.pw_gid)
    report = folder / "report.json"
    started = time.monotonic()
    done = subprocess.run(
        ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups", sys.executable, "-m", "harness",
         "--root", str(folder / "ports"), "compare", "--n", "0", "--isolation", "sandbox", "-j", "1", *LIMITS, "--json", str(report)],
        cwd=folder, env={"HOME": str(folder), "TMPDIR": str(folder / "tmp"), "PATH": "/usr/bin:/bin"},
        capture_output=True, text=True, timeout=120,
    )
    cells = json.loads(report.read_text())["cells"] if report.exists() else []
    if cells and all(cell["outcome"] == "skipped" for cell in cells):
        pytest.skip(f"this user cannot make a sandbox here: {cells[0]['detail']}")
    assert held(cells) == dict.fromkeys(FILLERS, ("error", HELD)), done.stdout + done.stderr
    assert time.monotonic() - started < 20, "a cell ran to its time-out"


def control_groups() -> bool:
    """Whether the harness can make a cell a control group of its own here."""
    group = CellGroup.make(Limits())
    if group is not None:
        group.close()
    return group is not None


def test_a_neighbours_processes_never_take_a_cells_share_of_the_cpu(tmp_path, run_tmpdir):
    """Beside a port that keeps 200 processes computing, each in a session of its own, a port that
    needs half a second of CPU time passes within the time-out, every time."""
    if not control_groups():
        pytest.skip("a cell's share of the CPU is its control group's, and none can be made here")
    root = suite(tmp_path, "hostile-busy", "modest", real=(), fakes_from=ISOLATION_PORTS)
    outcomes = []
    for _ in range(5):
        done, report = compare_json(tmp_path, "--n", "0", "--method", "binary", "--jobs", "2", "--timeout", "12", root=root, tmpdir=run_tmpdir)
        cells = {cell["port"]: cell for cell in report["cells"]}
        outcomes.append((cells["modest"]["outcome"], cells["modest"]["detail"]))
        assert cells["hostile-busy"]["outcome"] == "error", done.stdout
    assert outcomes == [("pass", "")] * 5, outcomes


def test_without_a_control_group_a_time_out_says_the_cpu_was_not_the_cells_own(someone):  # noqa: F811
    """As a user who may make no control group, the kernel shares the CPU by process and session,
    and a port that keeps 200 processes computing, each in a session of its own, takes it from a
    neighbour that needs half a second of CPU time: no harness without root can stop that (a new
    session starts at the kernel's default weight, faster than any watcher lowers it). What holds:
    the neighbour is an error, never a fail, and its time-out says the CPU was not its own."""
    user, folder = someone
    for port in ("hostile-busy", "modest"):
        shutil.copytree(ISOLATION_PORTS / port, folder / "ports" / port)
    (folder / "tmp").mkdir()
    for path in (folder, *folder.rglob("*")):
        os.lchown(path, user.pw_uid, user.pw_gid)
    report = folder / "report.json"
    done = subprocess.run(
        ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups", sys.executable, "-m", "harness",
         "--root", str(folder / "ports"), "compare", "--n", "0", "--method", "binary", "--jobs", "2", "--timeout", "12",
         "--json", str(report)],
        cwd=folder, env={"HOME": str(folder), "TMPDIR": str(folder / "tmp"), "PATH": "/usr/bin:/bin"},
        capture_output=True, text=True, timeout=120,
    )
    cells = {cell["port"]: cell for cell in json.loads(report.read_text())["cells"]} if report.exists() else {}
    assert cells, done.stdout + done.stderr
    assert cells["hostile-busy"]["outcome"] == "error" and "the CPU was not shared by cell here" in cells["hostile-busy"]["detail"], cells
    modest = cells["modest"]
    assert modest["outcome"] == "pass" or (modest["reason"] == "timeout" and "the CPU was not shared by cell here" in modest["detail"]), modest
