"""The shell's completion offers the ports by name, where the harness would find them: a PORT argument
and each item of a --lang list."""

from __future__ import annotations

import pytest
from click.shell_completion import ShellComplete

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
