"""``harness transcripts``: the documents' interactive sessions replayed in real interpreters."""

from __future__ import annotations

import click

from harness.cli.console import terminal
from harness.cli.group import cli, examples
from harness.cli.options import DATABASE, choose, options
from harness.cli.session import Session, parsed
from harness.errors import ExitCode
from harness.extras import require
from harness.model import Outcome
from harness.run import RunOptions


@cli.command(epilog=examples("harness transcripts"))
@click.argument("names", nargs=-1)
@options(*DATABASE)
@click.pass_obj
@parsed
def transcripts(session: Session, /, names: tuple[str, ...], options: RunOptions) -> int:
    """Replay the documents' interactive sessions (docs/transcripts/*.toml) in a real swipl, psql or
    python3 -i, and check that every answer is still the one recorded."""
    require("harness transcripts", "transcripts", "postgres")
    from harness.transcripts import discover as discover_transcripts
    from harness.transcripts import render_transcripts, replay

    found = discover_transcripts(session.root)
    chosen = choose(",".join(names) if names else None, [t.name for t in found], "transcript", "'NAMES'")
    with session.gate(options) as gate:
        replays = [(t, replay(t, session.root, gate.database, session.ports)) for t in found if t.name in chosen]
    render_transcripts(terminal(), replays)
    return ExitCode.of(all(result.outcome in (Outcome.PASS, Outcome.SKIPPED) for _, results in replays for result in results))
