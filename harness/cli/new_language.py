"""``harness new-language``: a new port's folder, manifest and stub program."""

from __future__ import annotations

import click

from harness.cli.group import cli, examples
from harness.cli.session import Session
from harness.errors import ExitCode


@cli.command(name="new-language", epilog=examples("harness new-language awk", "harness new-language zig --build --comment //"))
@click.argument("name")
@click.option("--interpreter", help="The command that runs the program (default: NAME); with --build, the compiler.")
@click.option("--program", help="The program's file name (default: hanoi.NAME).")
@click.option("--comment", default="#", show_default=True, help="How a comment line starts in the language: //, --, ;, %...")
@click.option("--version-flag", default="--version", show_default=True, help="What asks the interpreter or compiler its version: -v, -version, version...")
@click.option("--build", is_flag=True, help="A compiled language: the manifest builds the program with --interpreter, then runs what it built.")
@click.pass_obj
def new_language_command(
    session: Session, name: str, interpreter: str | None, program: str | None, comment: str, version_flag: str, build: bool
) -> int:
    """Start a port: a folder NAME with a language.toml and a stub program, ready for compare."""
    from harness.scaffold import new_language

    try:
        made = new_language(session.root, name, interpreter or name, program or f"hanoi.{name}", comment, version_flag, build)
    except OSError as error:
        raise click.ClickException(str(error)) from None
    for path in made:
        click.echo(f"created {path}")
    click.echo(
        f"next: write the program, then run harness run {name} recursive --n 3 --raw, and harness compare --n 0-10 --lang {name}"
        " (docs/ADDING_A_LANGUAGE.md walks through it)"
    )
    return ExitCode.PASSED
