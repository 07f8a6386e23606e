"""What a report says of where it was made: the machine and the checkout's commit."""

from __future__ import annotations

import contextlib
import os
import platform
import subprocess
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
    Only read: git takes no lock on the checkout's index for it (GIT_OPTIONAL_LOCKS=0), so a run
    stopped, or short of disk, meanwhile leaves the checkout as it was."""
    reading = {**os.environ, "GIT_OPTIONAL_LOCKS": "0"}
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True, timeout=10, env=reading)
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"], cwd=root, capture_output=True, text=True, timeout=10, env=reading
        ).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return None
    if head.returncode != 0 or not head.stdout.strip():
        return None
    return head.stdout.strip() + (" (with uncommitted changes)" if dirty else "")
