"""What a fresh machine has that the developer's may not: a toolchain only in a home folder, first on
PATH (rustup's ``~/.cargo/bin``, pyenv's shims), which the sandbox does not show; and a port that
opens its own standard streams by name (``/dev/stdout``, ``/dev/stderr``), which the sandbox as root
must let it do as every other mode does."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness.port import Requirement
from harness.runners.modes.sandbox import hidden
from integration.conftest import compare_json, harness, needs_bubblewrap

HANOI_SH = """\
# The recursive method in POSIX sh: each call's positional parameters are its own.
hanoi() {
  if [ "$1" -gt 0 ]; then
    hanoi $(($1 - 1)) "$2" "$4" "$3"
    echo "$1 $2 $3"
    hanoi $(($1 - 1)) "$4" "$3" "$2"
  fi
}
"""
NAMED_STREAMS = HANOI_SH + """\
hanoi "$1" 0 2 1 > /dev/stdout
echo "moved $1 discs" > /dev/stderr
echo "and said so" > /proc/self/fd/2
"""
TOOL = "hanoi-home-sh"
SYSTEM_COPY = "hanoi-home-sh-system"
OUTPUT = r"""
[output]
patterns = ['(?P<disk>\d+) (?P<src>\d) (?P<dst>\d)']
pegs = ["0", "1", "2"]
"""


def port(folder: Path, name: str, command: str, script: str, executable: str = "sh", debian: str = "dash") -> Path:
    """A one-method port in ``folder/name`` whose program is ``script``, run by ``command`` (which
    requires ``executable``, from the Debian package ``debian``)."""
    where = folder / name
    where.mkdir(parents=True)
    (where / "hanoi.sh").write_text(script)
    (where / "language.toml").write_text(
        f'summary = "{name}"\ncommand = ["{command}", "hanoi.sh", "{{n}}"]\nmethods = ["recursive"]\n\n'
        f'[[requires]]\nexecutable = "{executable}"\ndebian = "{debian}"\n'
        + OUTPUT
    )
    return folder


@pytest.fixture
def home_tool(tmp_path: Path) -> dict[str, str]:
    """A shell only in a home folder's ``.cargo/bin``, first on PATH, as rustup puts rustc: the PATH to run with."""
    binary = tmp_path / "home" / ".cargo" / "bin"
    binary.mkdir(parents=True)
    (binary / TOOL).write_text('#!/bin/sh\nexec sh "$@"\n')
    (binary / TOOL).chmod(0o755)
    return {"PATH": f"{binary}{os.pathsep}{os.environ['PATH']}"}


def test_a_tool_in_a_home_runs_as_a_plain_subprocess(tmp_path: Path, home_tool: dict[str, str]) -> None:
    root = port(tmp_path / "ports", "homely", TOOL, HANOI_SH + 'hanoi "$1" 0 2 1\n', executable=TOOL, debian=SYSTEM_COPY)
    done, report = compare_json(tmp_path, "--n", "0-3", "--method", "recursive", root=root, env=home_tool)
    assert done.returncode == 0, done.stdout + done.stderr
    assert [cell["outcome"] for cell in report["cells"]] == ["pass"] * 4


@needs_bubblewrap
def test_a_tool_the_sandbox_cannot_see_is_named_with_its_fix(tmp_path: Path, home_tool: dict[str, str]) -> None:
    root = port(tmp_path / "ports", "homely", TOOL, HANOI_SH + 'hanoi "$1" 0 2 1\n', executable=TOOL, debian=SYSTEM_COPY)
    done, report = compare_json(tmp_path, "--n", "1-2", "--method", "recursive", "--isolation", "sandbox", "--strict", root=root, env=home_tool)
    assert done.returncode != 0
    found = f"{tmp_path}/home/.cargo/bin/{TOOL}"
    for cell in report["cells"]:
        assert (cell["outcome"], cell["reason"]) == ("error", "missing-interpreter"), cell
        assert "not installed in the sandbox" in cell["detail"] and found in cell["detail"], cell["detail"]
        assert "harness doctor --install --lang homely" in cell["detail"] and f"apt-get install {SYSTEM_COPY}" in cell["detail"]
        assert "failed to execute" not in cell["detail"]
    doctor = harness("--root", str(root), "doctor", env=home_tool)
    line = next(line for line in doctor.stdout.splitlines() if line.startswith(TOOL))
    assert "not installed in the sandbox" in line and found in line, doctor.stdout


def test_the_sandbox_finds_a_system_copy_behind_a_home_one(home_tool: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """pyenv's shims put a python3 first on PATH; the sandbox runs /usr/bin's, which it shows."""
    monkeypatch.setenv("PATH", home_tool["PATH"])
    assert hidden(Requirement(TOOL)) is not None
    assert hidden(Requirement("sh")) is None
    assert hidden(Requirement("hanoi-nowhere")) is None  # not on PATH at all: missing, not hidden


@pytest.mark.docker
def test_a_port_may_open_its_own_streams_by_name_in_every_mode(tmp_path: Path, mode: str) -> None:
    root = port(tmp_path / "ports", "named-streams", "sh", NAMED_STREAMS)
    done, report = compare_json(tmp_path, "--n", "0-4", "--method", "recursive", "--isolation", mode, root=root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert [(cell["n"], cell["outcome"]) for cell in report["cells"]] == [(n, "pass") for n in range(5)]
