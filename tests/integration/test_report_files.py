"""Report files are written whole or not at all: each goes to a new file beside its target, which
takes the target's place only once it is complete, so a run killed while it writes, or a disk that
fills, leaves the report that was there before, and the error names the file. Standard output
that refuses the table is one line on standard error and exit 1."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT, left_behind, run_folder, suite
from harness.cli import publish
from harness.report import WRITERS
from integration.conftest import harness

PREVIOUS = '{"the report": "of the run before"}\n'
MANY_CELLS = ("--n", "0-64", "--max-moves", "0", "--method", "recursive,iterative,binary,cyclic")
"""260 cells of the Python port, all but n = 0 skipped at once: a report of 120 KB in a second."""


def test_a_table_written_to_a_full_standard_output_is_one_line_on_standard_error(tmp_path):
    report = tmp_path / "report.json"
    with Path("/dev/full").open("w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "harness", "compare", "--n", "2", "--port", "python", "--json", str(report)],
            cwd=ROOT, stdout=full, stderr=subprocess.PIPE, text=True, timeout=120,
        )
    assert done.returncode == 1
    assert done.stderr == "harness: cannot write the report to standard output: No space left on device\n"
    assert '"outcome": "pass"' in report.read_text()


def fsize_limit(limit: int):
    return lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


@pytest.fixture
def small_disk(tmp_path):
    """A folder on a tmpfs of 64 KiB of its own, where this machine lets the tests mount one."""
    folder = tmp_path / "disk"
    folder.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(folder)], capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    yield folder
    subprocess.run(["umount", str(folder)], check=True)


@pytest.mark.parametrize("full", ["tmpfs", "file-size-limit"])
def test_a_disk_that_fills_leaves_the_previous_report_and_names_the_file(tmp_path, full, request):
    """On a tmpfs of 64 KiB, or with files limited to 64 KiB (RLIMIT_FSIZE), the 120 KB JSON report
    does not fit: the report before it is there as it was, nothing else is left beside it, the error
    names the file, and the Markdown report, which fits, is written."""
    folder = request.getfixturevalue("small_disk") if full == "tmpfs" else tmp_path / "disk"
    folder.mkdir(exist_ok=True)
    (folder / "report.json").write_text(PREVIOUS)
    markdown = tmp_path / "summary.md"
    tmpdir = run_folder()
    done = subprocess.run(
        [sys.executable, "-m", "harness", "compare", *MANY_CELLS, "--port", "python", "--format", "plain",
         "--json", str(folder / "report.json"), "--markdown", str(markdown)],
        cwd=ROOT, capture_output=True, text=True, timeout=120, env={**os.environ, "TMPDIR": str(tmpdir)},
        preexec_fn=fsize_limit(64 << 10) if full == "file-size-limit" else None,
    )
    assert left_behind(tmpdir) is None
    assert done.returncode == 1, done.stdout + done.stderr
    why = "No space left on device" if full == "tmpfs" else "File too large"
    assert done.stderr == f"harness: cannot write the JSON report to {folder / 'report.json'}: {why}\n"
    assert (folder / "report.json").read_text() == PREVIOUS
    assert sorted(path.name for path in folder.iterdir()) == ["report.json"]
    assert markdown.read_text().startswith("### ✅ Tower of Hanoi, n = 0-64")


def test_a_run_killed_while_it_writes_its_report_leaves_the_previous_one(tmp_path):
    """A report of 9 MB (100 ports' 25,600 cells), and the harness killed (SIGKILL) once it holds a
    file open in the report's folder: the report before is whole, and nothing else is there."""
    root = tmp_path / "ports"
    root.mkdir()
    for number in range(100):
        (root / f"port{number}").symlink_to(ROOT / "python")
    folder = tmp_path / "reports"
    folder.mkdir()
    (folder / "report.json").write_text(PREVIOUS)
    tmpdir = run_folder()
    process = subprocess.Popen(
        [sys.executable, "-m", "harness", "--root", str(root), "compare", "--n", "1-64", "--max-moves", "0", "--format", "plain",
         "--json", str(folder / "report.json")],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env={**os.environ, "TMPDIR": str(tmpdir)},
    )
    writing = False
    deadline = time.monotonic() + 120
    while not writing and process.poll() is None and time.monotonic() < deadline:
        writing = any(str(folder) in target for target in open_files(process.pid))
    process.kill()
    process.wait()
    assert writing, f"the harness ended before it wrote its report: {process.stderr.read() if process.stderr else ''}"
    process.stderr.close()
    assert (folder / "report.json").read_text() == PREVIOUS
    assert sorted(path.name for path in folder.iterdir()) == ["report.json"]
    assert left_behind(tmpdir) is None


def open_files(pid: int) -> list[str]:
    """Where each of a process's file descriptors leads, as far as it can be read now."""
    found = []
    for descriptor in Path(f"/proc/{pid}/fd").glob("*"):
        try:
            found.append(str(descriptor.readlink()))
        except OSError:
            continue
    return found


@pytest.mark.parametrize("unnamed", [True, False], ids=["O_TMPFILE", "named-beside"])
def test_a_report_that_fails_halfway_leaves_the_previous_one_and_nothing_beside_it(tmp_path, monkeypatch, unnamed):
    """Whichever way the new file is made (with no name until it is complete, or, where the system
    cannot, a hidden one beside the target), a write that fails halfway leaves the target as it was."""
    if not unnamed:
        monkeypatch.delattr(os, "O_TMPFILE", raising=False)
    target = tmp_path / "report.json"
    target.write_text(PREVIOUS)

    def half(handle) -> None:
        handle.write(b"{half of a report")
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space left"):
        publish.replace_whole(target, half)
    assert target.read_text() == PREVIOUS
    publish.replace_whole(target, lambda handle: handle.write(b"{}\n"))
    assert target.read_text() == "{}\n"
    assert oct(target.stat().st_mode & 0o777) == oct(0o666 & ~current_umask())
    assert sorted(path.name for path in tmp_path.iterdir()) == ["report.json"]


def current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_a_report_to_a_device_is_written_there(tmp_path):
    done = harness("compare", "--n", "1", "--port", "python", "--json", "/dev/stdout", "--format", "plain")
    assert done.returncode == 0, done.stderr
    assert '"schema_version": 3' in done.stdout


def test_every_report_file_and_the_page_is_written_in_place(tmp_path):
    root = suite(tmp_path, real=("python",))
    files = {kind: tmp_path / f"r.{kind}" for kind in WRITERS}
    for path in files.values():
        path.write_text(PREVIOUS)
    done = harness("--root", str(root), "compare", "--n", "2", *(part for kind, path in files.items() for part in (f"--{kind}", str(path))))
    assert done.returncode == 0, done.stdout + done.stderr
    assert all(path.read_text() != PREVIOUS for path in files.values())
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted(["ports", *(path.name for path in files.values())])
