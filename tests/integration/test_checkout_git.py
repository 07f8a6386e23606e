"""What a report says of the checkout it was made in, asked of real git without running anything
the checkout's own git folder names: a contributor's tree may carry a ``.git/config`` whose
``core.fsmonitor`` is a command, and a ``.gitattributes`` whose filter is one, and the harness is
often root."""

from __future__ import annotations

import subprocess
from pathlib import Path

from harness.report.about import commit

QUIET = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}


def git(folder: Path, *args: str) -> str:
    environment = {"PATH": "/usr/bin:/bin", "HOME": str(folder), **QUIET}
    return subprocess.run(["git", *args], cwd=folder, check=True, capture_output=True, text=True, env=environment).stdout


def hostile_checkout(tmp_path: Path) -> tuple[Path, Path]:
    """A checkout of one port whose git folder runs a command that writes a file (``marker``) for any
    git that reads its config and looks at the work tree: as a file system monitor, and as the clean
    filter of every file."""
    root, marker = tmp_path / "checkout", tmp_path / "written-by-the-checkout"
    port = root / "quiet"
    port.mkdir(parents=True)
    (port / "hanoi.sh").write_text("exit 0\n")
    (port / "language.toml").write_text(
        'summary = "prints nothing"\ncommand = ["sh", "hanoi.sh", "{n}"]\nmethods = ["recursive"]\n\n'
        '[[requires]]\nexecutable = "sh"\ndebian = "dash"\n\n[output]\n'
        "patterns = ['(?P<disk>\\d+) (?P<src>\\d) (?P<dst>\\d)']\npegs = [\"0\", \"1\", \"2\"]\n"
    )
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "one port")
    hook = tmp_path / "hook"
    hook.write_text(f"#!/bin/sh\necho \"$0 $*\" >> {marker}\ncat\n")
    hook.chmod(0o755)
    (root / ".gitattributes").write_text("* filter=evil\n")
    with (root / ".git" / "config").open("a") as config:
        config.write(f"[core]\n\tfsmonitor = {hook}\n[filter \"evil\"]\n\tclean = {hook}\n\tsmudge = {hook}\n\trequired = false\n")
    (port / "hanoi.sh").write_text("exit 0 # changed\n")
    return root, marker


def test_a_checkouts_git_config_runs_nothing_of_its_own(tmp_path):
    """The commit a report names is the harness's checkout's, which in CI is the contributor's tree."""
    root, marker = hostile_checkout(tmp_path)
    head = git(root, "-c", "core.fsmonitor=false", "rev-parse", "--short", "HEAD").strip()
    marker.unlink(missing_ok=True)
    said = commit(root)
    assert not marker.exists(), marker.read_text()
    assert said == f"{head} (with uncommitted changes)", said
