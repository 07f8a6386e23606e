"""``harness schema``: the JSON Schemas the installed harness holds, for an editor or a check that
has no network, or a repository that keeps its own copy."""

from __future__ import annotations

import click

from harness import SCHEMAS, schema_file
from harness.cli.group import cli, examples
from harness.errors import ExitCode


@cli.command(epilog=examples("harness schema language", "harness schema report"))
@click.argument("name", type=click.Choice(SCHEMAS), default="language")
def schema(name: str) -> int:
    """Print the JSON Schema NAME that this harness holds: language (a port's language.toml, the
    default), report (the JSON report), list (harness list --format json) or bench (harness bench's
    JSON figures). Each is also published at the address its $id gives; the one printed is this
    version's, which reads offline."""
    click.echo(schema_file(name).read_text(encoding="utf-8"), nl=False)
    return ExitCode.PASSED
