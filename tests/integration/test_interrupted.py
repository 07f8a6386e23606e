"""A long run off a terminal says it is alive, and one stopped by SIGTERM or Ctrl-C (a job's timeout,
a cancel) still writes every report it was asked for, whole, of the cells that finished, marked
interrupted, and exits as the signal says."""

from __future__ import annotations

import contextlib
import json
import shutil
import signal
import subprocess
import time
import uuid
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import ROOT, left_behind, suite, valid_report
from harness.cli.console import HEARTBEAT_SECONDS
from integration.conftest import harness_process

ISOLATION_PORTS = ROOT / "tests" / "isolation_ports"


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT, signal.SIGQUIT], ids=["SIGTERM", "SIGINT", "SIGQUIT"])
def test_a_stopped_run_writes_every_report_of_the_cells_that_finished(tmp_path, run_tmpdir, stop):
    root = suite(tmp_path, "hang", real=("python",))
    files = {form: tmp_path / f"report.{form}" for form in ("json", "xml", "md")}
    process = harness_process(
        "--root", str(root), "compare", "--n", "0-4", "--method", "binary", "-j", "2",
        "--json", str(files["json"]), "--junit", str(files["xml"]), "--markdown", str(files["md"]),
        tmpdir=run_tmpdir, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    time.sleep(2 * HEARTBEAT_SECONDS)  # the hanging port holds the run: the heartbeat shows it alive
    process.send_signal(stop)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 128 + stop, out + err
    assert "harness: " in err and " done after 0:1" in err, err
    report = valid_report(json.loads(files["json"].read_text()))
    assert report["interrupted"] == stop.name and report["passed"] is False
    assert {(cell["port"], cell["outcome"]) for cell in report["cells"]} >= {("python", "pass")}
    assert len(report["cells"]) < len(report["plan"]["ports"]) * 5
    suites = {suite.get("name"): suite for suite in ET.parse(files["xml"]).getroot()}
    assert suites["interrupted"].find("testcase/error").get("message").startswith(f"Interrupted by {stop.name} after ")
    assert f"Interrupted by {stop.name} after " in files["md"].read_text()
    assert left_behind(run_tmpdir) is None


def _cells_running(token: str) -> set[str]:
    """The cells (by id) of the port that gets stuck that run now, in any walls: its processes carry
    the run's ``token`` as their next to last argument, and n as their last."""
    found = set()
    for proc in Path("/proc").iterdir():
        with contextlib.suppress(OSError):
            argv = (proc / "cmdline").read_bytes().decode().split("\0")[:-1]
            if argv[:2] == ["bash", "-c"] and argv[-2:-1] == [token]:
                found.add(f"stuck/binary/{argv[-1]}")
    return found


def _stuck(harness: subprocess.Popen, token: str, count: int) -> set[str]:
    """Wait until ``count`` cells of the port that gets stuck run, past their first move (a busy
    machine, a first sandbox or container: up to two minutes); those cells."""
    until = time.monotonic() + 120
    while len(running := _cells_running(token)) < count:
        if harness.poll() is not None or time.monotonic() > until:
            pytest.fail(f"{count} cells did not start: {running}")
        time.sleep(0.05)
    return running


@contextlib.contextmanager
def _stuck_run(tmp_path: Path, run_tmpdir: Path, *options: str, real: tuple[str, ...] = ()) -> Iterator[tuple[subprocess.Popen, str, dict[str, Path]]]:
    """``compare`` of a port that gets stuck (n=0 passes, every other n is stuck after its first
    move), two cells at a time, writing every form of report; the process, the token its port's
    processes carry, and the file of each form. A run the test did not end is stopped."""
    token = f"stuck-{uuid.uuid4().hex}"
    fakes = tmp_path / "fakes"
    shutil.copytree(ISOLATION_PORTS / "stuck", fakes / "stuck")
    manifest = fakes / "stuck" / "language.toml"
    manifest.write_text(manifest.read_text().replace('"stuck", "{n}"', f'"{token}", "{{n}}"'))
    files = {form: tmp_path / f"report.{form}" for form in ("json", "xml", "md", "html")}
    process = harness_process(
        "--root", str(suite(tmp_path, "stuck", real=real, fakes_from=fakes)), "compare", "--n", "0-4", "--method", "binary", "-j", "2",
        "--timeout", "300", "--json", str(files["json"]), "--junit", str(files["xml"]), "--markdown", str(files["md"]), "--html", str(files["html"]),
        *options, tmpdir=run_tmpdir, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    try:
        yield process, token, files
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.communicate()


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_the_cells_a_stop_cuts_short_are_interrupted_in_every_report_never_failed(tmp_path, run_tmpdir, stop, mode):
    with _stuck_run(tmp_path, run_tmpdir, "--isolation", mode) as (process, token, files):
        running = _stuck(process, token, 2)  # n=1 and n=2, while n=0 has passed
        process.send_signal(stop)
        out, err = process.communicate(timeout=60)
    assert process.returncode == 128 + stop, out + err
    report = valid_report(json.loads(files["json"].read_text()))
    outcomes = {cell["id"]: (cell["outcome"], cell["reason"]) for cell in report["cells"]}
    assert outcomes == {"stuck/binary/0": ("pass", None)} | dict.fromkeys(running, ("skipped", "interrupted")), out + err
    cases = {case.get("name"): case for case in ET.parse(files["xml"]).getroot().iter("testcase")}
    for cell in running:
        assert cases[cell.partition("/")[2]].find("skipped").get("type") == "interrupted"
    for shown in (out, files["md"].read_text(), files["html"].read_text()):
        assert "interrupted" in shown.replace("Interrupted by", ""), shown
        assert "fail (" not in shown and "crash" not in shown, shown
    assert left_behind(run_tmpdir) is None


@pytest.mark.parametrize("presses", [2, 100], ids=["twice", "again-and-again"])
def test_ctrl_c_pressed_again_does_not_stop_the_reports_being_written(tmp_path, run_tmpdir, presses):
    """Ctrl-C, then again 0.05 s later, as a user does; and again every 0.05 s until the run ends,
    so that one comes while the reports are being written, whenever that is."""
    with _stuck_run(tmp_path, run_tmpdir, real=("python",)) as (process, token, files):
        _stuck(process, token, 1)
        for _ in range(presses):
            if process.poll() is not None:
                break
            process.send_signal(signal.SIGINT)
            time.sleep(0.05)
        out, err = process.communicate(timeout=60)
    assert process.returncode == 128 + signal.SIGINT, out + err
    assert valid_report(json.loads(files["json"].read_text()))["interrupted"] == "SIGINT", err
    assert ET.parse(files["xml"]).getroot().find("testsuite[@name='interrupted']") is not None
    for page in (files["md"], files["html"]):
        assert "Interrupted by SIGINT after " in page.read_text()
    assert left_behind(run_tmpdir) is None
