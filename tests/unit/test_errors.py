"""Whatever keeps a cell from running is a value on the cell, never an exception out of the run: every
cell error carries its own outcome and reason, a subclass included, and the evaluator catches that
one type."""


import pytest

import harness.gate
from harness.errors import BuildFailed, CellError, ContainerError, Interrupted, StartFailed, Unavailable
from harness.evaluate import evaluate
from harness.model import Outcome, Reason


class SlowCompiler(BuildFailed):
    """A build error of a kind the evaluator has never heard of: a subclass keeps its reason."""


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (BuildFailed("the build failed with exit code 1: cc"), Reason.BUILD),
        (SlowCompiler("the build ran past 300 s: cc"), Reason.BUILD),
        (Unavailable("cannot connect to PostgreSQL"), Reason.DATABASE),
        (ContainerError("no Docker engine answers"), Reason.START),
        (StartFailed("could not start the port's program: no such file"), Reason.START),
        (Interrupted("the run is closing: no port starts now"), Reason.NOT_RUN),
    ],
)
def test_a_cell_error_becomes_the_cells_reason_and_detail(real_ports, monkeypatch, error, reason):
    def refuse(*_args: object) -> None:
        raise error

    monkeypatch.setattr(harness.gate.Gate, "start", refuse)
    cell = evaluate(real_ports["python"], "recursive", 3)
    assert (cell.outcome, cell.reason, cell.detail) == (Outcome.ERROR, reason, str(error))


def test_every_cell_error_names_an_outcome_and_a_reason():
    def subclasses(cls: type[CellError]) -> list[type[CellError]]:
        return [cls, *(sub for direct in cls.__subclasses__() for sub in subclasses(direct))]

    found = subclasses(CellError)
    assert {cls.__name__ for cls in found} >= {"BuildFailed", "Unavailable", "ContainerError", "Interrupted", "Unreadable", "Violation"}
    assert all(isinstance(cls.reason, Reason) and isinstance(cls.outcome, Outcome) for cls in found)


