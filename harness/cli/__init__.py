"""The ``harness`` command: compare every port, run one, list them, merge reports from several runs.

Every command is a module of this package that is given the session the group makes (the ports and
their folder), reads its options, opens the session's gate (walls, PostgreSQL, secrets), publishes
what it found and returns its exit code, which main exits with. All share one set of options
(options.py) and one exit-code policy (ExitCode, said in every --help by group.py):
0 when every cell that ran passed and the ports agree (a skipped cell is no failure unless --strict),
1 when a cell failed or errored, the ports disagree, a manifest is broken, a report could not be
written or a merge lacks the report of a port, shard or cell of its run, 2 for a usage error, and
128 + the signal's number when interrupted (130 for Ctrl-C).
"""

from __future__ import annotations

import contextlib
import functools
import gc
import io
import os
import signal
import sys
import threading
import time

import click

from harness.cli import bench, check, compare, completion, doctor, gallery, list_ports, merge, new_language, run, schema, show, smoke, transcripts
from harness.cli.group import Terminated, cli
from harness.cli.publish import WRITING
from harness.errors import ExitCode
from harness.model import visible
from harness.runners.base import WAITS

COMMANDS = (compare, merge, run, show, list_ports, doctor, transcripts, bench, check, gallery, new_language, smoke, completion, schema)
"""The commands, a module each: importing one adds it to the ``harness`` group (its ``@cli.command``)."""


STOPPING = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)
"""The signals that stop a run: SIGQUIT (Ctrl-\\) too, whose default would dump core and write no report."""
STOP_SECONDS = 4.0
"""How long a stopped run may take to end its ports and servers before it gives up on them."""
REPORT_SECONDS = 60.0
"""How long a stopped run that gives up waits for the reports it is writing: long enough for the
largest report on a busy machine, never for ever."""


def _stopped_by(number: int) -> str:
    return "interrupted" if number == signal.SIGINT else f"stopped by {signal.Signals(number).name}"


class _Stop:
    """The handler of Ctrl-C, SIGTERM, SIGHUP and SIGQUIT. The first ends the run: it cleans up and
    ends, within STOP_SECONDS whatever a server or the Docker engine does (the next run sweeps what
    could not be removed). Any later one is let go: the run is already ending, writing its reports, which a second
    Ctrl-C must not cut short; it exits as the first signal says."""

    def __init__(self) -> None:
        self.first: int | None = None

    def __call__(self, number: int, _frame: object) -> None:
        if self.first is not None:
            return
        self.first = number
        _give_up_after(STOP_SECONDS, number)
        if number == signal.SIGINT:
            raise KeyboardInterrupt
        raise Terminated(number)


@functools.cache
def _give_up_after(seconds: float, number: int) -> None:
    """End the process in ``seconds``, naming what it still waited on, if it has not ended by then."""

    def give_up() -> None:
        time.sleep(seconds)
        if WRITING.locked():  # the reports are being written: they end first, within REPORT_SECONDS
            WRITING.acquire(timeout=REPORT_SECONDS)
        waited = WAITS.names()
        on = f"; gave up after {seconds:g} s waiting for {', '.join(waited)}" if waited else ""
        with contextlib.suppress(OSError, ValueError):
            sys.stderr.write(f"harness: {_stopped_by(number)}{on}\n")
            sys.stderr.flush()
        os._exit(ExitCode.SIGNALLED + number)

    threading.Thread(target=give_up, name="give-up", daemon=True).start()


def main() -> None:
    """The console command: it exits with the code :func:`invoke` returns. Ctrl-C, SIGTERM, SIGHUP and
    SIGQUIT end every port and server the run started, then exit 128 + the signal."""
    stop = _Stop()
    for handled in STOPPING:
        signal.signal(handled, stop)
    try:
        code = invoke()
    finally:
        # Whatever the run leaves is freed with the process: no last collection walks it first,
        # which took longer than writing the report (two or three hundredths of a second).
        gc.freeze()
    for handled in STOPPING:  # the run is over: Python, ending, would restore the default, and a late Ctrl-C kill it
        signal.signal(handled, signal.SIG_IGN)
    sys.exit(code)


def invoke(args: list[str] | None = None, prog_name: str | None = None) -> int:
    """``harness ARGS...`` (the process's own arguments if none are given), its exit code returned:
    click's own handling, but a usage error is one line on stderr and exit 2, and a run stopped by a
    signal says so and exits 128 + the signal. What main does for the whole process (signals, the
    collector) is left to it, so that a command can also be run in a process that goes on.
    What standard output and error cannot encode (PYTHONIOENCODING=ascii, LC_ALL=C) is written as
    ``\\u2014``: a report is never lost to the terminal's encoding."""
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")
    try:
        code: int = cli.main(args, prog_name, standalone_mode=False)
    except click.UsageError as error:
        where = error.ctx.command_path if error.ctx else "harness"
        click.echo(f"{where}: {visible(error.format_message())} (see {where} --help)", err=True)
        return ExitCode.USAGE
    except click.ClickException as error:
        error.show()
        return error.exit_code
    except (click.Abort, KeyboardInterrupt) as error:
        cause = error.__cause__ if isinstance(error, click.Abort) else error
        number = cause.number if isinstance(cause, Terminated) else signal.SIGINT
        click.echo(f"harness: {_stopped_by(number)}", err=True)
        return ExitCode.SIGNALLED + number
    except SystemExit as ended:
        # click's own ends: a completion answered for the shell (0), or what reads standard output
        # has gone (EPIPE: | head -2), the streams quieted
        return ExitCode.PASSED if ended.code == 0 else ExitCode.SIGNALLED + signal.SIGPIPE
    return code
