"""``harness completion SHELL``: the script with which a shell completes the harness's commands,
options and ports, as click writes it."""

from __future__ import annotations

import click

from harness.cli.group import cli, examples
from harness.cli.session import Session
from harness.errors import ExitCode

SHELLS = ("bash", "zsh", "fish")
COMPLETE_VARIABLE = "_HARNESS_COMPLETE"
"""The variable the script sets when it asks the harness for completions, as click names it for ``harness``."""


@cli.command(epilog=examples("harness completion bash", "harness completion fish"))
@click.argument("shell", type=click.Choice(SHELLS))
@click.pass_obj
def completion(session: Session, /, shell: str) -> int:
    """Print the script that has SHELL complete harness's commands, options and ports (Tab after
    --lang offers the ports under --root). To turn it on for every new shell:

    \b
      bash (4.4 or later), in ~/.bashrc:  eval "$(harness completion bash)"
      zsh, in ~/.zshrc:                   eval "$(harness completion zsh)"
      fish:                               harness completion fish > ~/.config/fish/completions/harness.fish
    """
    from click.shell_completion import BashComplete, FishComplete, ZshComplete

    complete = {"bash": BashComplete, "zsh": ZshComplete, "fish": FishComplete}[shell]
    click.echo(complete(cli, {}, "harness", COMPLETE_VARIABLE).source())
    return ExitCode.PASSED
