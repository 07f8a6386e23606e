"""``harness list``: the ports, their methods and whether what they need is here, from the manifests and
the version commands; it starts no server unless --verbose asks what one says."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import click

from harness.cli.group import EXIT_CODES, cli, finish
from harness.cli.options import DATABASE, ISOLATION, chosen, options, settings_from
from harness.cli.session import open_gate, terminal
from harness.errors import Unavailable

if TYPE_CHECKING:
    from harness.discover import Port


@cli.command(name="list", epilog=EXIT_CODES)
@options("port", "strict", "format", *DATABASE, *ISOLATION)
@click.option("--verbose", "-v", is_flag=True, help="Also say what each port follows (its [[source]]), and why a version could not be read.")
@click.pass_obj
def list_ports(ports: list[Port], /, verbose: bool, **given: Any) -> None:
    """Show each port, its methods, and whether its interpreter is here, with its version (for the
    SQL port, the PostgreSQL server it runs on; in containers, the port's image's). --format json is
    what CI builds its jobs from; --format markdown is README.md's table of ports, from the
    manifests alone."""
    from harness.report.listing import render_list
    from harness.report.terminal import literal

    settings = settings_from(ports, given)
    ports = chosen(ports, settings)
    missing = {}
    with open_gate(settings, given["dsn"], ports) as gate:
        for port in ports:
            requirement = next((req for program in port.programs.values() if (req := gate.missing(program))), None)
            if requirement:
                missing[port.name] = f"{requirement.executable}; {requirement.advice}".rstrip("; ")
            elif port.query and gate.database is not None:  # there is one, as there is a port that needs it
                try:
                    gate.database.version()
                except Unavailable as error:
                    missing[port.name] = str(error)
        answers = gate.versions(ports)
        versions = {name: {executable: said for executable, (said, _) in asked.items()} for name, asked in answers.items()}
        form = given["form"] or ("pretty" if sys.stdout.isatty() else "plain")
        console = terminal()
        render_list(console, form, ports, versions, missing)
        if verbose:
            for port in ports:
                for source in port.sources:
                    console.print(literal(f"{port.name} follows {source.cite()}; for {', '.join(source.methods)}"))
                if not port.sources and not port.manifest_error:
                    console.print(literal(f"{port.name} names no source: its manifest has no [[source]]"))
                for requirement in (req for req in port.requires if versions[port.name].get(req.executable) is None):
                    reason = answers[port.name][requirement.executable][1]
                    console.print(literal(f"{port.name}: {requirement.executable} version unknown: {reason}"))
    broken = any(port.manifest_error for port in ports) or (settings.strict and bool(missing))
    finish(not broken)
