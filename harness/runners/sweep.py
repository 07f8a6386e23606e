"""What an earlier run that was killed outright (SIGKILL) left behind, found and removed by the
next: its ports' processes and its PostgreSQL servers, and only those of a run provably gone."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import tempfile
from pathlib import Path

from harness.runners.process import (
    CELL_MARKER,
    OWNER_FILE,
    SERVER_FILE,
    SERVER_FOLDER_PREFIX,
    alive,
    command_lines,
    environments,
    identity,
    server_parent,
)


def sweep_orphans() -> int:
    """Kill the ports an earlier harness run left running, because that run was killed before it could
    end them (they carry its marker, and it is gone). Only ports that shared this run's temporary
    folder count: another checkout's runs are their own business. Returns how many were killed."""
    if not Path("/proc").is_dir():
        return 0
    ours = f"TMPDIR={os.environ.get('TMPDIR', '')}".encode()
    prefix = f"{CELL_MARKER}=".encode()
    killed = 0
    for pid, variables in environments():
        marker = next((v[len(prefix):].decode() for v in variables if v.startswith(prefix)), None)
        tmpdir = next((v for v in variables if v.startswith(b"TMPDIR=")), b"TMPDIR=")
        if marker and tmpdir == ours and not alive(marker.rpartition(":")[0]):
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except ProcessLookupError:
                pass
    return killed


def sweep_servers(parent: Path | None = None) -> list[Path]:
    """End and remove the servers that earlier harness runs left in this temporary folder (or in the
    shared one their server used instead, :func:`server_parent`) because they were killed before
    they could (their owner is gone): the process the harness wrote down for each, if it still runs
    as that very process, never a number the server's own files name. Returns their folders."""
    removed = []
    own, shared = Path(parent or tempfile.gettempdir()), server_parent(parent)
    places = [own, *([shared] if shared is not None and shared != own else [])]
    for folder in (found for place in places for found in place.glob(f"{SERVER_FOLDER_PREFIX}*")):
        try:
            owner = (folder / OWNER_FILE).read_text().strip()
        except OSError:
            continue  # not one of ours, or being made right now
        if alive(owner):
            continue
        for pid in _left_servers(folder):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(folder, ignore_errors=True)
        removed.append(folder)
    return removed


def _left_servers(folder: Path) -> list[int]:
    """The server a killed run left in its folder: the process the run wrote down, if it still runs
    as that very process; where the run was killed before it could write it down, the server
    processes whose command line (the kernel's, never the server's files) runs on the folder's data."""
    try:
        started = (folder / SERVER_FILE).read_text().strip()
    except OSError:
        started = ""
    if started:
        pid = started.partition("-")[0]
        return [int(pid)] if pid.isdigit() and identity(int(pid)) == started else []
    data = str(folder / "data").encode()
    return [pid for pid, argv in command_lines() if argv[0].endswith(b"/postgres") and data in argv[1:] and b"-D" in argv]
