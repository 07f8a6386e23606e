"""Every error the harness raises on purpose, in one place, each saying what went wrong in a line or
a few.

A :class:`CellError` is a port's trouble, or its server's or engine's: it carries the
:class:`~harness.model.Reason` (and the outcome) its cell ends with, so the evaluator catches that
one type and turns any of them, subclasses included, into a value on the cell; nothing of a port's
making ever ends a run. The others are the user's or the checkout's: a manifest, a report, a merge,
an install, a new port's folder, a transcript. Each error says how the harness exits when it ends a
command (its ``exit_code``): the command line maps that, and its message, in one place.
"""

from __future__ import annotations

import enum
from typing import ClassVar

from harness.model import Outcome, Reason


class ExitCode(enum.IntEnum):
    """How every command exits; a signal's is SIGNALLED + its number."""

    PASSED = 0
    FAILED = 1
    USAGE = 2
    SIGNALLED = 128

    @classmethod
    def of(cls, passed: bool) -> ExitCode:
        """The one policy: PASSED when all went well, FAILED otherwise."""
        return cls.PASSED if passed else cls.FAILED


def first_line(error: BaseException) -> str:
    """An error's message in one line: its first line that says something, else the error's type."""
    return next((line.strip() for line in str(error).splitlines() if line.strip()), type(error).__name__)


class HarnessError(Exception):
    """The base of every error here. One that ends a command exits with ``exit_code``: FAILED, or
    USAGE for the user's mistake in what was asked (a report, a merge, a new port's name)."""

    exit_code: ClassVar[int] = ExitCode.FAILED


class CellError(HarnessError):
    """What keeps a cell from passing, as the cell's outcome and reason; the message is its detail."""

    reason: ClassVar[Reason] = Reason.START
    outcome: ClassVar[Outcome] = Outcome.ERROR


class StartFailed(CellError):
    """The port's program could not be started (not found, not executable, a folder that is gone)."""


class ReadRefused(CellError):
    """What a manifest's ``reads`` names leads, on this machine, to a place no port may read (a link
    into a home, the checkout, a key's folder): the sandbox is not made, and the cell says why."""

    reason = Reason.MANIFEST


class BuildFailed(CellError):
    """The build command failed or ran too long; the message says how, with the compiler's first words."""

    reason = Reason.BUILD


class Unavailable(CellError):
    """PostgreSQL, or a port's schema in it, cannot be had; the message says why in one line."""

    reason = Reason.DATABASE


class ContainerError(CellError):
    """No engine answers, or a port's image or container cannot be made; the message says why."""


class ImageBuildFailed(ContainerError):
    """A port's image could not be built: its recipe failed, or ran past its time; the message says
    how, with the build's last words."""

    reason = Reason.BUILD


class Interrupted(CellError):
    """The run is closing: nothing new starts."""

    reason = Reason.NOT_RUN


class Unreadable(CellError, ValueError):
    """Output that is not in the port's dialect: a line no pattern reads, a peg the port does not
    have, a malformed drawing, a line with no end."""

    reason = Reason.UNREADABLE


class Violation(CellError, ValueError):
    """A move, a drawing or the end of a run that breaks the rules; the message names where and which rule."""

    reason = Reason.VIOLATION
    outcome = Outcome.FAIL


class OutOfTime(CellError):
    """The cell's time ran out while a line was being read: a timeout, not a fault of the line."""

    reason = Reason.TIMEOUT


class ManifestError(HarnessError, ValueError):
    """A manifest that says something the harness cannot use. So that its line can be found, ``key``
    names the key it is about, ``value`` the text it quarrels with (a pattern), and ``table`` the
    table they are in (``method.cyclic``), where these are known."""

    def __init__(self, message: str, key: str | None = None, value: str | None = None, table: str | None = None) -> None:
        super().__init__(message)
        self.key = key
        self.value = value
        self.table = table


class ManifestFaults(HarnessError, ValueError):
    """Every fault found in one manifest, or one part of it, in the order they were found: a manifest
    is read whole, each part that stands alone checked on its own, so that one reading names them all."""

    def __init__(self, *faults: ManifestError) -> None:
        super().__init__("; ".join(map(str, faults)))
        self.faults = faults


class ReportError(HarnessError, ValueError):
    """A report that cannot be read, or is of another schema version; the message says which and why."""

    exit_code = ExitCode.USAGE


class MergeError(HarnessError):
    """Reports that cannot be merged into one verdict: from different commits, or holding one cell twice."""

    exit_code = ExitCode.USAGE


class DoctorError(HarnessError):
    """The missing tools cannot be installed from here; the message says why."""


class ScaffoldError(HarnessError, ValueError):
    """The port cannot be started as asked; the message says why."""

    exit_code = ExitCode.USAGE


class TranscriptError(HarnessError, ValueError):
    """A transcript file that cannot be used."""


class BenchError(HarnessError):
    """A timed run that went wrong: the message says how."""
