"""What a report says of where it was made: the machine and the checkout's commit."""

from __future__ import annotations

import contextlib
import os
import platform
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any


def machine() -> dict[str, Any]:
    """Where a run happened: the CPU, the cores, the OS, the Python."""
    model = None
    with contextlib.suppress(OSError):
        model = next(
            (line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("model name")),
            None,
        )
    return {
        "cpu": model or platform.processor() or None,
        "cores": os.cpu_count(),
        "os": platform.platform(),
        "python": platform.python_version(),
    }


def commit(root: Path) -> str | None:
    """The checkout's commit, marked when files differ from it; None where ``root`` is no checkout.
    A checkout's git folder is a contributor's as much as its ports are, and the harness is often
    root: its config may name a command (``core.fsmonitor``, a filter's ``clean``) that any git
    reading it runs. So git is never pointed at it: it is given a git folder of the harness's own,
    in a temporary folder, that shares the checkout's objects, references and a copy of its index,
    and no config but its own (no system's, no user's), and it only reads: it takes no lock on the
    index (GIT_OPTIONAL_LOCKS=0), so a run stopped meanwhile leaves the checkout as it was."""
    found = _git_folder(root)
    if found is None:
        return None
    with tempfile.TemporaryDirectory(prefix="hanoi-git-") as scratch:
        own = Path(scratch)
        try:
            _borrow(found, own)
        except OSError:
            return None
        reading = {
            **{name: value for name, value in os.environ.items() if not name.startswith("GIT_")},
            "GIT_DIR": str(own), "GIT_WORK_TREE": str(root.absolute()), "GIT_OPTIONAL_LOCKS": "0", "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull, "GIT_ATTR_NOSYSTEM": "1",
        }
        quiet = ["git", "-c", "core.fsmonitor=false", "-c", f"core.hooksPath={os.devnull}", "-c", f"core.attributesFile={os.devnull}"]
        try:
            head = subprocess.run([*quiet, "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True, timeout=10, env=reading)
            dirty = subprocess.run(
                [*quiet, "status", "--porcelain", "--untracked-files=no"], cwd=root, capture_output=True, text=True, timeout=10, env=reading
            ).stdout.strip()
        except (OSError, subprocess.TimeoutExpired):
            return None
    if head.returncode != 0 or not head.stdout.strip():
        return None
    return head.stdout.strip() + (" (with uncommitted changes)" if dirty else "")


def _git_folder(root: Path) -> tuple[Path, Path] | None:
    """The checkout's git folder and the folder it shares objects and references with (the same,
    but for a linked work tree, whose ``.git`` is a file naming its folder); None where ``root``
    holds none."""
    dot = root / ".git"
    try:
        if dot.is_file():
            named = dot.read_text(encoding="utf-8").strip().removeprefix("gitdir:").strip()
            folder = (root / named).resolve()
        else:
            folder = dot
        common = folder / "commondir"
        shared = (folder / common.read_text(encoding="utf-8").strip()).resolve() if common.is_file() else folder
    except (OSError, ValueError):
        return None
    return (folder, shared) if (folder / "HEAD").is_file() and (shared / "objects").is_dir() else None


def _borrow(found: tuple[Path, Path], own: Path) -> None:
    """Make ``own`` a git folder of the checkout's (``found``) commits, references and index, with
    the harness's own config: the checkout's HEAD and index copied, its objects and references
    linked, read only. (A checkout of SHA-256 objects then has no commit said.)"""
    folder, shared = found
    (own / "config").write_text("[core]\n\trepositoryformatversion = 0\n")
    shutil.copyfile(folder / "HEAD", own / "HEAD")
    for name in ("index", *(path.name for path in folder.glob("sharedindex.*"))):
        if (folder / name).is_file():
            shutil.copyfile(folder / name, own / name)
    for name in ("objects", "refs", "packed-refs"):
        if (shared / name).exists():
            (own / name).symlink_to((shared / name).absolute())

