"""Each command's --help ends with a few real examples, each one line as typed, and each of them
parses: its command exists and takes every option and argument the example gives it."""

from __future__ import annotations

import contextlib
import shlex

import click
import pytest

from conftest import ROOT, harness_here
from harness.cli import cli


def examples(command: click.Command) -> list[str]:
    """The examples an epilog gives: the lines below 'Examples:', up to the first blank one."""
    lines = (command.epilog or "").splitlines()
    assert "Examples:" in lines, f"{command.name}'s --help gives no examples"
    given = lines[lines.index("Examples:") + 1 :]
    return [line.strip() for line in given[: given.index("")]]


@pytest.mark.parametrize("name", sorted(cli.commands))
def test_each_commands_help_shows_its_examples(name):
    done = harness_here(name, "--help")
    assert done.returncode == 0, done.stderr
    shown = examples(cli.commands[name])
    assert shown and all(example.startswith(f"harness {name}") for example in shown), shown
    assert all(f"    {example}\n" in done.stdout for example in shown), done.stdout  # as typed, not rewrapped


def parsed(words: list[str]) -> click.Context:
    """``harness WORDS``, parsed by its command as the harness parses it, from the checkout (where
    an example's paths are), without running it."""
    name, *rest = words
    with contextlib.chdir(ROOT), cli.commands[name].make_context(name, rest, parent=click.Context(cli, info_name="harness")) as context:
        return context


@pytest.mark.parametrize("example", [example for command in cli.commands.values() for example in examples(command)])
def test_each_example_parses(example):
    """Every option known, every value of the right type, nothing left over."""
    assert not parsed(shlex.split(example)[1:]).args, example


def test_a_mistyped_example_would_not_parse():
    """The test above can fail: an option the command does not take is refused, and so is a value of the wrong type."""
    with pytest.raises(click.UsageError, match="No such option '--rwa'"):
        parsed(["run", "python", "recursive", "-n", "4", "--rwa"])
    with pytest.raises(click.BadParameter, match="'4.5' is not a number of discs"):
        parsed(["compare", "-n", "4.5"])
