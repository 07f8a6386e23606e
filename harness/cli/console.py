"""The harness's console: lines said to the user (through rich where it is installed, fitted to the
terminal, with what a port said shown as typed), text written as it is for a log or a pipe, and
what stands for a run's progress: a bar on a terminal, a heartbeat off one."""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, TextIO, cast

import click

from harness.extras import lacking
from harness.model import visible

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress, TaskID

    from harness.model import Cell
    from harness.run import CellSink


HEARTBEAT_SECONDS = 10.0
"""How often a run off a terminal says it is alive."""


def say(text: str, stderr: bool = False) -> None:
    """A line of the harness's, with what a port said in it shown as typed: through rich, which
    fits it to the terminal, where rich is installed; as it is where it is not."""
    if lacking("pretty"):
        click.echo(visible(text), err=stderr)
        return
    from harness.report.terminal import literal

    terminal(stderr).print(literal(text))


def pretty_on(stream: TextIO) -> bool:
    """Whether ``stream`` gets the drawn forms (the pretty table, the progress bar): a terminal, where
    rich (the ``pretty`` extra) is installed."""
    return stream.isatty() and not lacking("pretty")


def write(text: str, stderr: bool = False, end: str = "\n") -> None:
    """Text the harness made for a log or a pipe (the plain table, a written form), as it is: through
    rich's console where rich is installed, as it always was, else as click writes it."""
    if lacking("pretty"):
        click.echo(text + end, nl=False, err=stderr)
    else:
        terminal(stderr).out(text, highlight=False, end=end)


def terminal(stderr: bool = False) -> Console:
    """Where a command shows what it found: text from ports may look like rich's emoji codes
    (``:smile:``), which are shown as typed; nothing is coloured that the harness did not mean."""
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, emoji=False)


class _Heartbeat:
    """What stands for the progress bar off a terminal (a CI log, a file): a line on standard error
    every HEARTBEAT_SECONDS while cells run, saying how many are done, so that a long run is seen to
    be alive; a run shorter than that prints none. rich is not even loaded."""

    def __init__(self) -> None:
        self._total = self._done = 0
        self._last = ""
        self._started = time.monotonic()
        self._stopped = threading.Event()
        self._beat = threading.Thread(target=self._beating, name="heartbeat", daemon=True)

    def __enter__(self) -> _Heartbeat:
        self._beat.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stopped.set()

    def add_task(self, description: str, total: int) -> TaskID:
        self._total = total
        return cast("TaskID", 0)

    def update(self, task: TaskID, *, advance: int, description: str) -> None:
        self._done += advance
        self._last = description

    def _beating(self) -> None:
        while not self._stopped.wait(HEARTBEAT_SECONDS):
            elapsed = int(time.monotonic() - self._started)
            last = f"; last: {self._last}" if self._last else ""
            with contextlib.suppress(OSError, ValueError):
                sys.stderr.write(f"harness: {self._done} of {self._total} done after {elapsed // 60}:{elapsed % 60:02d}{last}\n")
                sys.stderr.flush()


def load_writer() -> None:
    """Start loading rich's console (where rich, the ``pretty`` extra, is installed), through which
    :func:`write` and the pretty table write the report, on a thread that nothing waits for: a
    command that writes the report then finds it loaded, or waits only for what is left of it."""
    if not lacking("pretty"):
        threading.Thread(target=_load_console, name="load-writer", daemon=True).start()


def _load_console() -> None:
    import rich.console  # noqa: F401  (an import statement, which -X importtime records as the harness's own)


def progress_bar() -> Progress | _Heartbeat:
    """A progress bar on stderr that leaves no trace when it is done, and off a terminal a heartbeat.
    Its descriptions are shown as typed: text from a port is no markup. Without rich (the ``pretty``
    extra), the heartbeat on a terminal too."""
    if not pretty_on(sys.stderr):
        return _Heartbeat()
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(
        TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=terminal(stderr=True), transient=True,
    )


@contextlib.contextmanager
def cells_progress(total: int) -> Iterator[CellSink]:
    """A run's progress over its ``total`` cells (:func:`progress_bar`), each finished cell named as
    the last done; rich's console, which writes the report, is loaded meanwhile on a thread of its own
    (:func:`load_writer`), so that a run's short last cell is not followed by that wait."""
    load_writer()
    with progress_bar() as progress:
        task = progress.add_task("cells", total=total)

        def done(cell: Cell) -> None:
            progress.update(task, advance=1, description=visible(cell.label))

        yield done
