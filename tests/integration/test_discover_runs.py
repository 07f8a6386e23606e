"""Manifests as a run meets them: a cell outside a port's n is skipped saying so, and a manifest too deep
to read is that port's error while every command goes on with the others."""

from __future__ import annotations

import shutil

from conftest import ROOT, harness_here, suite
from harness.discover import load_port
from harness.evaluate import evaluate
from harness.model import Outcome, Reason


def test_every_command_lists_the_other_ports_beside_a_manifest_nested_thousands_deep(tmp_path):
    root = suite(tmp_path, "deep-array", "deep-groups", real=("python",))
    for command in (["list", "--format", "plain"], ["compare", "--n", "2", "--format", "plain"], ["run", "python", "recursive", "--n", "1"]):
        done = harness_here("--root", str(root), *command)
        assert "Traceback" not in done.stderr, done.stderr
        assert done.returncode == (0 if command[0] == "run" else 1), done.stdout + done.stderr
        assert "python" in done.stdout or done.stdout == "1 0 2\n"
    listed = harness_here("--root", str(root), "list", "--format", "plain").stdout
    assert "deep-array: ; manifest problem: " in listed and "arrays or tables nested too deeply to read" in listed


def test_cells_outside_min_n_and_max_n_are_skipped_saying_so(tmp_path):
    folder = tmp_path / "bounded"
    folder.mkdir()
    shutil.copy(ROOT / "python" / "hanoi.py", folder / "hanoi.py")
    (folder / "language.toml").write_text(
        'methods = ["recursive"]\ncommand = ["python3", "hanoi.py", "{method}", "{n}"]\nmin_n = 1\nmax_n = 3\n'
        "[output]\npatterns = ['Move disk of size (?P<disk>\\d+) from position (?P<src>\\d) to position (?P<dst>\\d)']\npegs = ['0', '1', '2']\n"
    )
    port = load_port(folder / "language.toml")
    assert port.manifest_error is None, port.manifest_error
    cells = [evaluate(port, "recursive", n) for n in range(5)]
    assert [(cell.outcome, cell.reason, cell.detail) for cell in cells] == [
        (Outcome.SKIPPED, Reason.OUT_OF_RANGE, "the program takes n ≥ 1"),
        (Outcome.PASS, None, ""), (Outcome.PASS, None, ""), (Outcome.PASS, None, ""),
        (Outcome.SKIPPED, Reason.OUT_OF_RANGE, "the program takes n ≤ 3"),
    ]
