"""The ``harness`` group: finding the ports, the exit-code policy every --help states, and the one
place an error of the harness that ends a command becomes its exit."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import click

from harness import __version__
from harness.cli.session import Session
from harness.errors import ExitCode, HarnessError

ROOT_VARIABLE = "HANOI_ROOT"


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP: stop as for Ctrl-C, cleaning up, but exit as that signal says."""

    def __init__(self, number: int) -> None:
        super().__init__(number)
        self.number = number


def signal_name(stopped: KeyboardInterrupt) -> str:
    """The signal that stopped a run, by name: SIGINT for Ctrl-C."""
    return signal.Signals(stopped.number).name if isinstance(stopped, Terminated) else "SIGINT"


EXIT_CODES = """Exit codes, the same for every command: 0 when every cell that ran passed and the ports agree
(a skipped cell is no failure unless --strict); 1 when a cell failed or errored, the ports disagree,
a manifest is broken, a report could not be written, the system is not Linux (for a command that
runs ports) or a merge lacks a report of part of its run; 2 for a usage error; 128 + the signal's
number when stopped by one (130 for Ctrl-C, 143 for SIGTERM, 141 for a closed pipe)."""




def examples(*lines: str) -> str:
    """A command's epilog: a few real examples, each one line as typed, kept as they are by click's
    wrapping (``\\b``), then the exit codes."""
    return "\b\nExamples:\n" + "\n".join(f"  {line}" for line in lines) + "\n\n" + EXIT_CODES


class Command(click.Command):
    """A ``harness`` command. A HarnessError that ends one is mapped here, and nowhere else: it exits
    with the error's exit code, said as click says its own errors (a usage error names the command
    and its --help, any other is one line), so that no command turns one into a click error by hand.
    Here, not in main, because the usage line names the command, which only its context knows."""

    def invoke(self, ctx: click.Context) -> Any:
        """Run the command; a HarnessError ends it with its exit code and message."""
        try:
            return super().invoke(ctx)
        except HarnessError as error:
            if error.exit_code == ExitCode.USAGE:
                raise click.UsageError(str(error), ctx) from None
            click.echo(f"Error: {error}", err=True)
            ctx.exit(error.exit_code)


class Group(click.Group):
    """The ``harness`` group, whose every command is a :class:`Command`."""

    command_class = Command


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]}, epilog=EXIT_CODES)
@click.version_option(__version__, prog_name="harness")
@click.option(
    "--root", type=click.Path(exists=True, file_okay=False, path_type=Path), envvar=ROOT_VARIABLE,
    show_default=f"${ROOT_VARIABLE}, else the current folder or the nearest parent with a */language.toml",
    help="Folder whose subfolders hold the ports, one language.toml each.",
)
@click.pass_context
def cli(ctx: click.Context, root: Path | None) -> None:
    """Run every Tower of Hanoi port, verify its moves, and check that all agree."""
    from harness.discover import find_root, manifests
    from harness.runners.process import become_subreaper

    become_subreaper()
    found = find_root(root)
    needs_ports = ctx.invoked_subcommand not in ("new-language", "merge", "check", "completion", "schema")
    if found is None and needs_ports:
        raise click.UsageError(
            "no ports here: run inside a checkout (a folder whose subfolders hold language.toml files), or give --root or HANOI_ROOT"
        )
    folder = found or Path.cwd()
    session = Session(folder, str(root) if root is not None else os.path.relpath(folder), manifests(folder))
    if not session.manifests and needs_ports:
        raise click.UsageError(f"no ports under {folder}: a port is a folder with a language.toml (harness new-language NAME starts one)")
    ctx.obj = session
