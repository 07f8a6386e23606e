"""``harness check`` as a commit hook: the real pre-commit, in a scratch repository of two ports,
passes with the hook and fails once a manifest is broken. (What check finds is tests/unit/test_check.py.)"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from integration.conftest import checkout_copy


def git(*args: str, cwd: Path) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True, timeout=60).stdout.strip()


def pre_commit(repository: Path, home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--all-files", "--color", "never"], cwd=repository, capture_output=True, text=True, timeout=900,
        env={**os.environ, "PRE_COMMIT_HOME": str(home)},
    )


@pytest.mark.slow
def test_the_commit_hook_passes_sound_manifests_and_fails_a_broken_one(tmp_path):
    """The hook as another repository uses it: pre-commit installs the harness from this repository
    (a commit of its files as they are now) into an environment of its own, then runs it on the
    manifests of a scratch repository with two ports."""
    hooks = checkout_copy(tmp_path / "hooks")
    git("init", "-q", cwd=hooks)
    git("add", "-A", cwd=hooks)
    git("commit", "-q", "-m", "the hook", cwd=hooks)
    scratch = tmp_path / "scratch"
    for name in ("python", "bash"):
        shutil.copytree(ROOT / name, scratch / name)
    (scratch / "README.md").write_text("Two ports.\n")
    (scratch / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {hooks}\n    rev: {git('rev-parse', 'HEAD', cwd=hooks)}\n    hooks:\n      - id: harness-check\n"
    )
    git("init", "-q", cwd=scratch)
    git("add", "-A", cwd=scratch)
    home = tmp_path / "pre-commit-home"

    passed = pre_commit(scratch, home)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "harness check (the ports' manifests)" in passed.stdout and "Passed" in passed.stdout

    manifest = scratch / "python" / "language.toml"
    text = manifest.read_text()
    manifest.write_text(text.replace("\npegs = ", "\npeg = "))
    line = text.splitlines().index(next(line for line in text.splitlines() if line.startswith("pegs = "))) + 1
    git("add", "-A", cwd=scratch)
    failed = pre_commit(scratch, home)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "Failed" in failed.stdout and f"python/language.toml:{line}: [output] unknown key 'peg'" in failed.stdout, failed.stdout
    assert "1 of 2 manifests sound, 1 broken" in failed.stdout

    (scratch / "README.md").write_text("Two ports, one broken, and a change elsewhere.\n")
    manifest.write_text(text)
    git("add", "-A", cwd=scratch)
    mended = pre_commit(scratch, home)
    assert mended.returncode == 0, mended.stdout + mended.stderr
