"""The life every running cell shares, whatever runs it (a subprocess, a sandbox, a container, a
query in PostgreSQL): a deadline, a time-out, an early stop, and nothing left behind.

A runner is started by making it; then the caller iterates :meth:`Runner.output` (stdout in
blocks) and calls :meth:`Runner.finish` for the facts of how it ended. It is a context manager,
so nothing of it outlives the cell, whatever happens to the caller. Each kind of runner says only
how to halt its program, how to read it and how to tell how it ended.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator
from typing import Self

from harness.model import Finish


class Runner(ABC):
    """One cell's program running, with the cell's deadline on :func:`time.monotonic`'s clock."""

    def __init__(self, timeout: float) -> None:
        self.deadline = time.monotonic() + timeout
        """When the cell's time is up: the reading's limit too."""
        self._timed_out = threading.Event()  # set from a timer's thread as well as the reader's
        self._stopped = False

    @property
    def timed_out(self) -> bool:
        """Whether the deadline stopped the program."""
        return self._timed_out.is_set()

    @property
    def stopped(self) -> bool:
        """Whether the caller stopped the program early."""
        return self._stopped

    @abstractmethod
    def output(self) -> Iterator[bytes]:
        """The program's standard output in blocks as it prints them, until it ends or is stopped."""

    @abstractmethod
    def finish(self) -> Finish:
        """How the program ended, once it has: the facts for the judge. Safe to call more than once."""

    @abstractmethod
    def _halt(self) -> None:
        """End the program now, whatever it is doing: kill its processes, or cancel its query."""

    def processes(self) -> list[int]:
        """The program's processes as this machine numbers them, for what they hold open: none where
        another machine runs them or none is in view (a container's engine, a server's query)."""
        return []

    def expired(self) -> bool:
        """Whether the deadline has passed; if it has, the program is stopped as timed out."""
        if time.monotonic() >= self.deadline and not self.timed_out:
            self._expire()
        return self.timed_out

    def _expire(self) -> None:
        self._timed_out.set()
        self._halt()

    def stop(self, halt: bool = True) -> None:
        """End the program early: the caller has read all it needs, or the run is closing. Without
        ``halt``, the caller ends its processes itself (a run's all at once)."""
        self._stopped = True
        if halt:
            self._halt()

    def head(self, most: int) -> tuple[bytes, Finish]:
        """The program's output up to its first ``most`` bytes, the program stopped once they are
        read (a version command's first line, a refusal that should print nothing), and how it ended;
        nothing of it is left behind."""
        read = bytearray()
        with self:
            for block in self.output():
                read += block
                if len(read) >= most:
                    self.stop()
                    break
            return bytes(read), self.finish()

    def close(self) -> None:
        """Leave nothing of the program behind; by default, finishing it does that."""
        self.finish()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: type[BaseException] | None, *exc_info: object) -> None:
        if kind is not None and not (self.stopped or self.timed_out):
            self.stop()  # the caller gave up reading (it has all it needs, or failed): no use waiting for the program
        self.close()


class Waits:
    """What the run waits on outside itself right now (a server, the Docker engine), each named, so
    that a run told to stop which cannot, because one of them does not answer, says which."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._numbers = itertools.count()
        self._waits: dict[int, str] = {}

    @contextlib.contextmanager
    def on(self, what: str) -> Iterator[None]:
        """Name ``what`` as waited on while the block runs."""
        with self._lock:
            number = next(self._numbers)
            self._waits[number] = what
        try:
            yield
        finally:
            with self._lock:
                del self._waits[number]

    def names(self) -> list[str]:
        """What is waited on now, each once."""
        with self._lock:
            return list(dict.fromkeys(self._waits.values()))


WAITS = Waits()
"""This harness process's waits."""
