"""``harness list``: the ports, their methods and whether what they need is here, from the manifests and
PATH; it runs a port's version commands, or starts a server, only when --verbose asks what they say."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from harness.cli.console import pretty_on, say, terminal, write
from harness.cli.group import cli, examples
from harness.cli.options import DATABASE, ISOLATION, Outputs, options
from harness.cli.session import Session, parsed
from harness.errors import ExitCode
from harness.gate import NOT_ASKED
from harness.model import visible
from harness.run import RunOptions
from harness.runners.postgres import SERVERS

if TYPE_CHECKING:
    from harness.port import Port
    from harness.report import Listing


@cli.command(name="list", epilog=examples("harness list", "harness list --verbose --lang python,bash", "harness list --format markdown"))
@options("port", "strict", "listing_format", *DATABASE, *ISOLATION)
@click.option(
    "--verbose", "-v", is_flag=True,
    help=(
        "Also ask each interpreter's version (the port's version command, run in --isolation's walls),"
        " say why one could not be read, and what each port follows (its [[source]])."
    ),
)
@click.pass_obj
@parsed
def list_ports(session: Session, /, verbose: bool, options: RunOptions, outputs: Outputs) -> int:
    """Show each port, its methods, and whether its interpreter is here; with --verbose, its version,
    asked by the port's version command in the run's walls (--isolation), as compare asks it (for the
    SQL port, the PostgreSQL server it runs on; in containers, the port's image's). Without, no
    port's code runs. --format json is what CI builds its jobs from; --format markdown is README.md's
    table of ports, from the manifests alone."""
    from harness.report import WRITERS, Listing, versions_said

    settings = options.settings
    ports = session.chosen(settings)
    form: str = outputs.form or ("pretty" if pretty_on(sys.stdout) else "plain")
    missing = {}
    with session.gate(options, ports) as gate:
        # Markdown is the manifests alone; the rest ask versions, running a version command or
        # starting a server only for --verbose.
        answers = {} if form == "markdown" else gate.versions(ports, start=verbose)
        for port in ports:
            lacking = next((found for program in port.programs.values() if (found := gate.missing(program))), None)
            server = answers.get(port.name, {}).get("postgresql") if port.query else None
            if lacking:
                requirement, _ = lacking
                missing[port.name] = f"{requirement.executable}; {requirement.advice}".rstrip("; ")
            elif server and server[0] is None and (verbose or SERVERS[settings.backend].version_without_starting):
                missing[port.name] = server[1]
        versions = versions_said(answers)
        render_list(form, Listing(ports, versions, missing, asked=verbose))
        if verbose:  # beside a written form, on standard error, so that standard output is that form alone
            aside = form in WRITERS
            for port in ports:
                for source in port.sources:
                    say(f"{port.name} follows {source.cite()}; for {', '.join(source.methods)}", aside)
                if not port.sources and not port.manifest_error:
                    say(f"{port.name} names no source: its manifest has no [[source]]", aside)
                for requirement in (req for req in port.requires if versions[port.name].get(req.executable) is None):
                    reason = answers[port.name][requirement.executable][1]
                    say(f"{port.name}: {requirement.executable} version unknown: {reason}", aside)
    broken = any(port.manifest_error for port in ports) or (settings.strict and bool(missing))
    return ExitCode.of(not broken)


def render_list(form: str, listing: Listing) -> None:
    """The ports, with their methods and what they need, in one of the --format forms: a writer's,
    or a table of this command's own, pretty or plain."""
    from harness.report import WRITERS
    from harness.report.summary import one_line

    if form in WRITERS:
        write(WRITERS[form].listing_text(listing), end="")
        return
    ports, versions, missing = listing.ports, listing.versions, listing.missing

    def found(port: Port) -> str:
        if port.manifest_error:
            return f"manifest problem: {port.manifest_error}"
        if port.name in missing:
            return f"missing: {missing[port.name]}"
        unknown = "version unknown" if listing.asked else NOT_ASKED
        return "found " + ", ".join(v or f"{k} ({unknown})" for k, v in versions[port.name].items())

    if form == "plain":
        for port in ports:
            write(f"{visible(port.name)}: {', '.join(port.methods)}; {one_line(found(port))}")
    else:
        from rich.table import Table

        from harness.report.terminal import literal

        table = Table(title="Ports", title_justify="left")
        for column in ("port", "methods", "interpreter"):
            table.add_column(column)
        for port in ports:
            style = "magenta" if port.manifest_error else "yellow" if port.name in missing else "green"
            table.add_row(f"{literal(port.name)}\n[dim]{literal(port.summary)}[/]", ", ".join(port.methods), f"[{style}]{literal(found(port))}[/]")
        terminal().print(table)


