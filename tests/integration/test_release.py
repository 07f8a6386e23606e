"""A release as a stranger takes it: README's install line installs the tagged version from the
repository's address, and ``pre-commit autoupdate`` moves a hook pinned to a commit onto the tag.
The repository here is a local copy of this checkout, tagged as the release procedure tags main; the
line is README's own with the local repository for the address."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from harness import SOURCE, __version__
from integration.conftest import checkout_copy, git

pytestmark = pytest.mark.slow
TAG = f"v{__version__}"


@pytest.fixture(scope="module")
def released(tmp_path_factory) -> tuple[Path, str]:
    """A copy of this checkout, committed and tagged as a release is; the commit before the tag."""
    repository = checkout_copy(tmp_path_factory.mktemp("released") / "hanoi-polyglot")
    git("init", "-q", "-b", "main", cwd=repository)
    (repository / "NOTES").write_text("before the release\n")
    git("add", "NOTES", cwd=repository)
    git("commit", "-q", "-m", "before", cwd=repository)
    earlier = git("rev-parse", "HEAD", cwd=repository)
    git("add", "-A", cwd=repository)
    git("commit", "-q", "-m", "the release", cwd=repository)
    git("tag", "-a", TAG, "-m", f"hanoi-polyglot {__version__}", cwd=repository)
    return repository, earlier


def test_the_readmes_install_line_installs_the_tagged_release(released, tmp_path):
    repository, _ = released
    [line] = re.findall(r"^pip install '(hanoi-polyglot\[all\] @ git\+\S+)'$", (ROOT / "README.md").read_text(), re.M)
    assert line == f"hanoi-polyglot[all] @ git+{SOURCE}@{TAG}"
    # A plain install: what the extras bring is the packaging tests' (tests/integration/test_packaging.py).
    requirement = line.replace("[all]", "").replace(SOURCE, f"file://{repository}")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    installed = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "--no-compile", "--quiet", requirement],
        capture_output=True, text=True, timeout=600,
    )
    assert installed.returncode == 0, installed.stderr
    said = subprocess.run([str(venv / "bin" / "harness"), "--version"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert said.stdout == f"harness, version {__version__}\n", said.stdout + said.stderr


def test_pre_commit_autoupdate_moves_the_hook_to_the_tag(released, tmp_path):
    repository, earlier = released
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    config = scratch / ".pre-commit-config.yaml"
    config.write_text(f"repos:\n  - repo: {repository}\n    rev: {earlier}\n    hooks:\n      - id: harness-check\n")
    git("init", "-q", cwd=scratch)
    done = subprocess.run(
        [sys.executable, "-m", "pre_commit", "autoupdate", "--color", "never"], cwd=scratch, capture_output=True, text=True, timeout=300,
        env={**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "home")},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"    rev: {TAG}\n" in config.read_text(), done.stdout + config.read_text()
