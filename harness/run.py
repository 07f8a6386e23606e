"""Run a port as a subprocess and stream its output, line by line, with a deadline.

Nothing here judges the output: a crash, a timeout or a missing interpreter is reported
as facts on a :class:`~harness.model.Finish` for the caller to turn into an outcome.
"""

from __future__ import annotations

import collections
import os
import shutil
import signal
import subprocess
import threading
import weakref
from pathlib import Path
from typing import Iterator

from harness.discover import Port, Requirement
from harness.model import Finish

STDERR_TAIL_LINES = 12
VERSION_TIMEOUT = 10.0


def missing_requirement(port: Port) -> Requirement | None:
    """The first executable the port needs that is not on PATH."""
    return next((req for req in port.requires if shutil.which(req.executable) is None), None)


def version(requirement: Requirement) -> str | None:
    """The first line an executable prints when asked its version, or None if it cannot say."""
    if not requirement.version or shutil.which(requirement.executable) is None:
        return None
    try:
        done = subprocess.run(
            requirement.version, capture_output=True, text=True, timeout=VERSION_TIMEOUT, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = [line.strip() for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    return lines[0] if lines else None


def kill_group(pid: int) -> None:
    """Kill a port started in a session of its own, and every process it started; gone already is fine."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


class PortProcess:
    """One running port. Iterate :meth:`lines`, then call :meth:`finish`; use it as a context manager
    so that the process is never left behind, whatever happens to the caller."""

    _running: weakref.WeakSet[PortProcess] = weakref.WeakSet()

    @classmethod
    def stop_all(cls) -> None:
        """End every port still running, as when the user interrupts the harness."""
        for process in list(cls._running):
            process.stop()

    def __init__(self, argv: list[str], folder: Path, timeout: float):
        self._process = subprocess.Popen(
            argv,
            cwd=folder,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        self._stderr: collections.deque[bytes] = collections.deque(maxlen=STDERR_TAIL_LINES)
        self._stderr_reader = threading.Thread(target=self._stderr.extend, args=(self._process.stderr,), daemon=True)
        self._stderr_reader.start()
        self._timed_out = threading.Event()
        self._stopped = False
        self._deadline = threading.Timer(timeout, self._expire)
        self._deadline.daemon = True
        self._deadline.start()
        self._running.add(self)

    def lines(self) -> Iterator[str]:
        """The port's stdout, one line at a time without its line ending, as it is printed."""
        assert self._process.stdout is not None
        for raw in self._process.stdout:
            yield raw.decode("utf-8", "replace").rstrip("\r\n")

    def stop(self) -> None:
        """End the port early: the caller has read all it needs."""
        self._stopped = True
        self._kill()

    def finish(self) -> Finish:
        returncode = self._process.wait()
        self._kill()  # a port's stray children would otherwise hold its pipes open
        self._stderr_reader.join()
        self._deadline.cancel()
        self._running.discard(self)
        tail = b"".join(self._stderr).decode("utf-8", "replace").rstrip()
        return Finish(
            failure=f"exited with code {returncode}" if returncode else None,
            timed_out=self._timed_out.is_set(),
            stopped=self._stopped,
            evidence=f"stderr ends:\n{tail}" if tail else "stderr was empty",
        )

    def _expire(self) -> None:
        self._timed_out.set()
        self._kill()

    def _kill(self) -> None:
        kill_group(self._process.pid)

    def __enter__(self) -> PortProcess:
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._process.poll() is None:
            self._kill()
        self.finish()
        for stream in (self._process.stdout, self._process.stderr):
            if stream is not None:
                stream.close()
