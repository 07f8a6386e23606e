"""The harness runs ports on Linux alone, and says so where it is started elsewhere: its walls read
/proc and make control groups and namespaces, which elsewhere would do nothing, saying nothing. What
runs nothing of a port's works on any system. Another system is simulated (sys.platform)."""

from __future__ import annotations

import pytest

from conftest import harness_here, project_ports


@pytest.fixture
def elsewhere(monkeypatch):
    monkeypatch.setattr("sys.platform", "darwin")


@pytest.mark.parametrize("args", [
    ("run", "python", "recursive", "-n", "2"),
    ("compare", "-n", "2", "--lang", "python"),
    ("list",),
    ("smoke", "--lang", "python"),
])
def test_what_runs_a_port_refuses_another_system_in_one_line(elsewhere, args):
    done = harness_here(*args)
    assert (done.returncode, done.stdout) == (1, ""), done.stdout
    assert done.stderr.startswith("Error: the harness runs ports on Linux alone, and this is darwin: its walls"), done.stderr
    assert len(done.stderr.splitlines()) == 1 and "docs/isolation.md" in done.stderr, done.stderr


def test_what_runs_no_port_works_on_another_system(elsewhere):
    checked = harness_here("check")
    assert (checked.returncode, checked.stdout) == (0, f"{len(project_ports())} of {len(project_ports())} manifests sound\n")
    assert harness_here("completion", "zsh").returncode == 0
