"""``harness doctor``: what the ports need, what is missing here and how to get it; whether the sandbox can run."""

from __future__ import annotations

import click

from harness.cli.group import cli, examples
from harness.cli.options import options
from harness.cli.session import Session, parsed, tmpdir_problem
from harness.errors import DoctorError, ExitCode
from harness.model import visible
from harness.run import RunOptions


@cli.command(epilog=examples("harness doctor", "harness doctor --install --lang prolog"))
@options("port")
@click.option("--install", "install_missing", is_flag=True, help="Install what is missing, where this machine can (apt-get as root or with sudo, or brew).")
@click.pass_obj
@parsed
def doctor(session: Session, /, install_missing: bool, options: RunOptions) -> int:
    """Say what each port needs, what is missing here and how to get it, as the manifests' [[requires]] say;
    with --install, install only what is missing (nothing for a port whose interpreter is on PATH),
    and, where the sandbox works here, a system copy of what is on PATH only where the sandbox does
    not look (a toolchain in a home: rustup's, pyenv's). Then whether --isolation sandbox can run
    here, and if not, why and what to do.
    Exit 0 when everything the ports need is here, 1 when something is still missing."""
    from harness.doctor import install, needs
    from harness.runners.modes.sandbox import hidden, sandbox_problem, sandbox_user

    ports = session.chosen(options.settings)
    problem = tmpdir_problem() or sandbox_problem()
    found = needs(ports)
    wanted = [need.requirement for need in found if not need.found or (problem is None and hidden(need.requirement))]
    if wanted and install_missing:
        try:
            install(wanted)
        except DoctorError as error:
            click.echo(visible(f"cannot install {', '.join(req.executable for req in wanted)}: {error}"), err=True)
        found = needs(ports)
    for need in found:
        advice = need.requirement.advice or "the manifest does not say how to install it"
        state = f"MISSING: {advice}" if not need.found else "found"
        unseen = need.found and hidden(need.requirement)
        if unseen:
            state = f"{unseen} ({advice})"
        click.echo(visible(f"{need.requirement.executable:<12} {state}  (needed by {', '.join(need.ports)})"))
    works = f"bubblewrap works here; ports run as {sandbox_user()}"
    click.echo(visible(f"{'sandbox':<12} {f'UNAVAILABLE: {problem}' if problem else works}  (for --isolation sandbox)"))
    still = [need.requirement.executable for need in found if not need.found]
    if still:
        click.echo(visible(f"missing: {', '.join(still)}: the cells of the ports that need them are skipped"))
    return ExitCode.of(not still)
