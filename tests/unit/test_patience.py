"""A wait for something to start holds on a busy machine: its bound stretches with the load, and
says so when it ends the wait."""

from types import SimpleNamespace

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


def test_a_busy_machine_gives_the_docker_engine_longer_for_each_call(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each call into the engine has its own bound, stretched as the machine is busy when it is made:
    an engine slow under load is waited for, one that does not answer is still named."""
    import requests

    from harness.errors import ContainerError
    from harness.runners import images

    class Client:
        api = SimpleNamespace(timeout=0.0)

    monkeypatch.setattr(images, "engine", lambda timeout: Client())
    monkeypatch.setattr(patience, "load", lambda: 4.0)
    engine = images.Engine(10.0)

    def slow() -> None:
        raise requests.exceptions.ReadTimeout(f"read timed out after {Client.api.timeout:g} s")

    with pytest.raises(ContainerError) as raised:
        engine.call("starting a container", slow)
    assert Client.api.timeout == 40.0
    assert str(raised.value) == "the Docker engine did not answer within 10 s, stretched to 40 s while the machine was busy, starting a container"
