"""Output the Docker engine loses is never a verdict. The engine's stream of a short program's output
sometimes comes empty, or without its end, on a busy machine (moby/moby#27289): a cell of the
stdin-reading port at n = 1 once ended with exit code 0 and no output, and was judged a fail. The
engine's loss is made here at will, by cutting the stream the engine hands the harness."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import docker
import pytest

from conftest import ROOT
from harness.discover import MANIFEST, load_port
from harness.evaluate import evaluate
from harness.limits import Limits
from harness.model import OUTPUT_ATTEMPTS, Outcome, Reason
from harness.runners.modes.container import ContainerCell, PortContainers
from harness.settings import Settings

pytestmark = pytest.mark.docker

STDIN_READER = ROOT / "tests" / "isolation_ports" / "stdin-reader"
Blocks = Iterator[tuple[bytes | None, bytes | None]]


def cut(monkeypatch: pytest.MonkeyPatch, how: Callable[[Blocks], Blocks], times: float = float("inf")) -> list[int]:
    """Every exec's stream handed on as ``how`` makes it, the first ``times`` of them; the list
    counts the streams started."""
    real, started = docker.APIClient.exec_start, []

    def exec_start(api: docker.APIClient, exec_id: str, *args: object, **kwargs: object) -> object:
        stream = real(api, exec_id, *args, **kwargs)
        started.append(exec_id)
        return how(stream) if kwargs.get("stream") and len(started) <= times else stream

    monkeypatch.setattr(docker.APIClient, "exec_start", exec_start)
    return started


def lost_whole(stream: Blocks) -> Blocks:
    for _ in stream:  # read, as the engine reads it, and handed on to no one
        pass
    return
    yield


def lost_last_bytes(stream: Blocks) -> Blocks:
    blocks = [out or b"" for out, _ in stream]
    yield b"".join(blocks)[:-3], None


def byte_by_byte(stream: Blocks) -> Blocks:
    for out, err in stream:
        for byte in (out or b""):
            yield bytes([byte]), None
        if err:
            yield None, err


def cell_output(program: str, stream: str = "stdout", stdin: bytes | None = None) -> tuple[bytes, ContainerCell]:
    with PortContainers(Limits()) as containers:
        container = containers.start(load_port(STDIN_READER / MANIFEST))
        with ContainerCell(container, ["sh", "-c", program], timeout=30, done=lambda: None, stdin=stdin, stream=stream) as cell:
            printed = b"".join(cell.output())
            cell.finish()
    return printed, cell


@pytest.mark.parametrize(
    ("program", "stream", "stdin", "printed"),
    [
        ("printf '1 0 2'", "stdout", None, b"1 0 2"),
        ("cat; printf 'end'", "stdout", b"1 0 2\n", b"1 0 2\nend"),
        ("printf 'a' >&2; printf 'b'", "both", None, b"ab"),
        ("printf 'a'; printf '1 0 2\\n' >&2", "stderr", None, b"1 0 2\n"),
        ("true", "stdout", None, b""),
    ],
)
def test_output_split_anywhere_comes_whole_without_its_end_mark(docker_engine, monkeypatch, program, stream, stdin, printed):
    """The end mark the container's shell writes is found, and taken out, however the stream is cut
    into blocks, one byte each at the most; what the program printed comes as it printed it."""
    cut(monkeypatch, byte_by_byte)
    output, cell = cell_output(program, stream, stdin)
    assert (output, cell.finish().lost) == (printed, None)


def test_a_process_left_writing_after_its_program_ended_is_still_read(docker_engine):
    """What a program's leftover writes after the end mark is its output too, and the output whole."""
    output, cell = cell_output("(sleep 0.5; echo late) & echo early; wait")
    assert (output, cell.finish().lost) == (b"early\nlate\n", None)


@pytest.mark.parametrize("how", [lost_whole, lost_last_bytes])
def test_output_that_comes_without_its_end_is_lost_not_printed(docker_engine, monkeypatch, how):
    cut(monkeypatch, how)
    _, cell = cell_output("echo 1 0 2")
    finish = cell.finish()
    assert finish.failure is None and finish.lost, finish
    assert "ended with exit code 0, but its output came without the end" in finish.lost


def test_a_cell_whose_output_the_engine_loses_is_run_again(docker_engine, monkeypatch, run_tmpdir):
    """Lost once, the cell is run again and passes, as the stdin reader does at n = 1; before, the
    empty output was the fail ``expected 1 moves, got 0``."""
    started = cut(monkeypatch, lost_whole, times=1)
    cell = evaluate(load_port(STDIN_READER / MANIFEST), "recursive", 1, Settings(isolation="container"))
    assert (cell.outcome, cell.moves) == (Outcome.PASS, 1), cell.detail
    assert len(started) >= 2  # the lost run, then the one that passed (a kill may come between)


def test_a_cell_whose_output_the_engine_always_loses_is_the_engines_error_not_a_fail(docker_engine, monkeypatch, run_tmpdir):
    started = cut(monkeypatch, lost_whole)
    cell = evaluate(load_port(STDIN_READER / MANIFEST), "recursive", 1, Settings(isolation="container"))
    assert (cell.outcome, cell.reason) == (Outcome.ERROR, Reason.ENGINE), cell.detail
    assert "moby/moby#27289" in cell.detail and "(read: 0 moves)" in cell.detail
    assert len(started) >= OUTPUT_ATTEMPTS


def test_output_lost_with_no_exit_code_is_lost_too(docker_engine, monkeypatch):
    """The engine that loses the output may not have the exit code either: the cell is run again all the same."""
    cut(monkeypatch, lost_whole)
    inspect = docker.APIClient.exec_inspect
    monkeypatch.setattr(docker.APIClient, "exec_inspect", lambda api, exec_id: {**inspect(api, exec_id), "ExitCode": None})
    _, cell = cell_output("echo 1 0 2")
    finish = cell.finish()
    assert finish.lost and "ended with no exit code from the engine, but its output came without the end" in finish.lost, finish
