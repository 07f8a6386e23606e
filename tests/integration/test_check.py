"""``harness check`` as a commit hook: the real pre-commit, in a scratch repository of two ports,
passes with the hook and fails once a manifest is broken. (What check finds is tests/unit/test_check.py.)"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT
from integration.conftest import checkout_copy, git


def pre_commit(repository: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", *(args or ["--all-files"]), "--color", "never"], cwd=repository, capture_output=True, text=True,
        timeout=900, env={**os.environ, "PRE_COMMIT_HOME": str(home)},
    )


def megabytes(folder: Path) -> float:
    """What a folder's files take on disk, as du counts it."""
    return sum(path.lstat().st_blocks * 512 for path in folder.rglob("*") if not path.is_symlink()) / 2**20


HOOK_SECONDS = 10
"""The most the hook's first run may take, its environment built included: in processor time, what
the run itself costs (its wall time on a busy machine is that of everything else running too)."""
HOOK_MEGABYTES = 20
"""The most its environment may take: a plain install of the harness, no extra."""


@pytest.mark.slow
def test_the_commit_hook_is_light_passes_sound_ports_and_fails_a_broken_manifest_or_a_deleted_program(tmp_path):
    """The hook as another repository uses it: pre-commit installs the harness from this repository
    (a commit of its files as they are now) into an environment of its own, then runs it on the
    ports of a scratch repository with two. Its first run, that environment built, is quick and
    small; a commit that only deletes a port's program, which names no file to a hook, fails it."""
    hooks = checkout_copy(tmp_path / "hooks")
    git("init", "-q", cwd=hooks)
    git("add", "-A", cwd=hooks)
    git("commit", "-q", "-m", "the hook", cwd=hooks)
    scratch = tmp_path / "scratch"
    for name in ("python", "bash"):
        shutil.copytree(ROOT / name, scratch / name)
        copied = scratch / name / "language.toml"  # its #:schema line names the copy beside the ports, as new-language's do
        copied.write_text(copied.read_text().replace("../harness/language.schema.json", "../schemas/language.schema.json", 1))
    (scratch / "schemas").mkdir()
    shutil.copy2(ROOT / "harness" / "language.schema.json", scratch / "schemas")
    (scratch / "README.md").write_text("Two ports.\n")
    (scratch / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {hooks}\n    rev: {git('rev-parse', 'HEAD', cwd=hooks)}\n    hooks:\n      - id: harness-check\n"
    )
    git("init", "-q", cwd=scratch)
    git("add", "-A", cwd=scratch)
    home = tmp_path / "pre-commit-home"

    started, used = time.monotonic(), resource.getrusage(resource.RUSAGE_CHILDREN)
    passed = pre_commit(scratch, home)
    first_run, spent = time.monotonic() - started, resource.getrusage(resource.RUSAGE_CHILDREN)
    seconds = spent.ru_utime - used.ru_utime + spent.ru_stime - used.ru_stime
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "harness check (the ports' manifests)" in passed.stdout and "Passed" in passed.stdout
    (environment,) = home.glob("repo*/py_env-*")
    size = megabytes(environment)
    assert size <= HOOK_MEGABYTES, f"the hook's environment takes {size:.1f} MB"
    assert seconds <= HOOK_SECONDS, f"the hook's first run took {seconds:.1f} s of processor time ({first_run:.1f} s wall)"

    git("commit", "-q", "-m", "two ports", cwd=scratch)
    program = scratch / "python" / "hanoi.py"
    kept = program.read_bytes()
    git("rm", "-q", "python/hanoi.py", cwd=scratch)
    deleted = pre_commit(scratch, home)  # as at a commit: the staged changes, which name no file that exists
    assert deleted.returncode == 1, deleted.stdout + deleted.stderr
    assert "python/language.toml:" in deleted.stdout and "names 'hanoi.py', which is not in the port's folder" in deleted.stdout, deleted.stdout
    program.write_bytes(kept)
    git("add", "-A", cwd=scratch)

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
