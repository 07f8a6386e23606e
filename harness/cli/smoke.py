"""``harness smoke``: each port's contract probed before its compare is trusted (harness/smoke.py)."""

from __future__ import annotations

import click

from harness.cli.console import say
from harness.cli.group import cli, examples
from harness.cli.options import DATABASE, ISOLATION, options
from harness.cli.session import Session, parsed
from harness.errors import ExitCode
from harness.run import RunOptions


@cli.command(epilog=examples("harness smoke --lang python,bash", "harness smoke --isolation sandbox"))
@options("port", "method", "jobs", "timeout", "build_timeout", "strict", *DATABASE, *ISOLATION)
@click.pass_obj
@parsed
def smoke(session: Session, /, options: RunOptions) -> int:
    """Probe each port's contract (docs/SPEC.md, The program) before trusting its compare: n spelled
    any way but ASCII decimal digits (+3, 3.0, 1e1, 0x3, ...), an unknown method and max_n + 1 are
    refused with a usage message and exit code 2, printing nothing; n = 0 passes; the first moves at
    max_n are the reference's. One line for each probe that fails or is skipped, one for each port.
    A broken manifest fails its port's every probe. Exit 1 when a probe fails (or, with --strict,
    is skipped).

    \b
    Examples:
      harness smoke --port awk
      harness smoke --isolation sandbox --jobs 4"""
    from harness.smoke import smoke as run_probes

    settings = options.settings
    ports = session.chosen(settings)
    with session.gate(options, ports) as gate:
        findings = run_probes(ports, settings, gate)
    for finding in findings:
        if finding.problem or finding.skipped:
            say(finding.line())
    bad = [finding for finding in findings if finding.problem or (settings.strict and finding.skipped)]
    for port in ports:
        own = [finding for finding in findings if finding.port == port.name]
        failed = sum(1 for finding in own if finding.problem)
        skipped = sum(1 for finding in own if finding.skipped)
        said = f"{failed} of {len(own)} probes fail" if failed else f"{len(own) - skipped} probes pass"
        say(f"{port.name}: {said}" + (f", {skipped} skipped" if skipped else ""))
    return ExitCode.of(not bad)
