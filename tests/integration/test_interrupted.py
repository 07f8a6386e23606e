"""A long run off a terminal says it is alive, and one stopped by SIGTERM or Ctrl-C (a job's timeout,
a cancel) still writes every report it was asked for, whole, of the cells that finished, marked
interrupted, and exits as the signal says."""

from __future__ import annotations

import json
import signal
import subprocess
import time
import xml.etree.ElementTree as ET

import pytest

from conftest import left_behind, suite, valid_report
from harness.cli.session import HEARTBEAT_SECONDS
from integration.conftest import harness_process


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
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
