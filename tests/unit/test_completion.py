"""The shell's completion offers the ports by name, where the harness would find them: a PORT argument
and each item of a --lang list."""

from __future__ import annotations

import pytest
from click.shell_completion import ShellComplete

from conftest import harness_here
from harness.cli import cli


def offered(root, *words: str, typed: str) -> list[str]:
    """What completion offers for ``typed`` after ``harness --root ROOT WORDS``, as bash would ask."""
    completion = ShellComplete(cli, {}, "harness", "_HARNESS_COMPLETE")
    return [item.value for item in completion.get_completions(["--root", str(root), *words], typed)]


@pytest.fixture
def root(tmp_path):
    for name in ("bash", "basic", "python", "no-manifest"):
        (tmp_path / name).mkdir()
        if name != "no-manifest":
            (tmp_path / name / "language.toml").write_text("not even TOML [")  # found, never read
    return tmp_path


@pytest.mark.parametrize("command", ["run", "show"])
def test_a_port_argument_completes_to_the_ports_that_begin_with_what_is_typed(root, command):
    assert offered(root, command, typed="ba") == ["bash", "basic"]
    assert offered(root, command, typed="") == ["bash", "basic", "python"]


def test_a_list_of_ports_completes_its_last_item(root):
    assert offered(root, "compare", "--lang", typed="python,ba") == ["python,bash", "python,basic"]
    assert offered(root, "bench", "--port", typed="p") == ["python"]


@pytest.mark.parametrize(("shell", "hook"), [
    ("bash", "complete -o nosort -F _harness_completion harness"),
    ("zsh", "compdef _harness_completion harness"),
    ("fish", "complete --no-files --command harness --arguments"),
])
def test_completion_prints_the_shells_script(shell, hook):
    """``harness completion SHELL`` prints click's script for that shell, which asks ``harness`` itself
    (by _HARNESS_COMPLETE) for what to offer; it needs no ports, and runs none."""
    done = harness_here("--root", "/", "completion", shell)
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    assert hook in done.stdout and "_HARNESS_COMPLETE=" in done.stdout.replace("_HARNESS_COMPLETE ", "_HARNESS_COMPLETE="), done.stdout


def test_completion_of_another_shell_is_a_usage_error():
    done = harness_here("completion", "powershell")
    assert done.returncode == 2 and "'powershell' is not one of 'bash', 'zsh', 'fish'" in done.stderr, done.stderr
