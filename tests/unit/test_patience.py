"""A wait for something to start holds on a busy machine: its bound stretches with the load, and
says so when it ends the wait."""

import pytest

from harness import patience
from harness.patience import MOST_STRETCH, Patience


def test_an_idle_machine_waits_the_bound_and_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(patience, "load", lambda: 0.2)
    wait = Patience(10.0, started=100.0)
    monkeypatch.setattr(patience.time, "monotonic", lambda: 109.9)
    assert not wait.over()
    monkeypatch.setattr(patience.time, "monotonic", lambda: 110.0)
    assert wait.over()
    assert wait.bound() == "10 s"


def test_a_busy_machine_stretches_the_bound_and_it_never_shrinks(monkeypatch: pytest.MonkeyPatch) -> None:
    loads = iter([6.0, 0.5])
    monkeypatch.setattr(patience, "load", lambda: next(loads))
    monkeypatch.setattr(patience.time, "monotonic", lambda: 150.0)
    wait = Patience(10.0, started=100.0)
    assert not wait.over()  # 50 s of 60
    assert not wait.over()  # the load fell; the bound stays 60 s
    assert wait.bound() == "10 s, stretched to 60 s while the machine was busy"


def test_a_stuck_start_still_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(patience, "load", lambda: 1000.0)
    monkeypatch.setattr(patience.time, "monotonic", lambda: 100.0 + 10.0 * MOST_STRETCH)
    assert Patience(10.0, started=100.0).over()
