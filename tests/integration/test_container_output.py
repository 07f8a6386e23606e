"""Output the Docker engine loses is never a verdict. The engine's stream of a short program's output
sometimes comes empty, or without its end, on a busy machine (moby/moby#27289): a cell of the
stdin-reading port at n = 1 once ended with exit code 0 and no output, and was judged a fail. The
engine's loss is made here at will, by cutting the stream the engine hands the harness."""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import docker
import pytest

from conftest import ROOT
from harness.discover import MANIFEST, load_port
from harness.evaluate import evaluate
from harness.limits import Limits
from harness.model import OUTPUT_ATTEMPTS, Outcome, Reason
from harness.runners.modes.container import ContainerCell, PortContainers
from harness.settings import Settings
from integration.conftest import compare_json

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


MOVES = 'move() { (($1)) || return 0; move $(($1 - 1)) "$2" "$4" "$3"; echo "$1 $2 $4"; move $(($1 - 1)) "$3" "$2" "$4"; }'
"""The optimal moves, as DISC FROM TO: ``move N 0 1 2``."""


def bash_port(root: Path, name: str, script: str, output: str = "") -> Path:
    """A port at root/name whose program is the Bash ``script`` (n is $1), with MOVES defined."""
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "hanoi.sh").write_text(f"{MOVES}\n{script}\n")
    (folder / "language.toml").write_text(textwrap.dedent(f"""\
        command = ["bash", "hanoi.sh", "{{n}}"]
        methods = ["recursive"]
        [[requires]]
        executable = "bash"
        debian = "bash"
        [output]
        patterns = ['(?P<disk>\\d+) (?P<src>\\d) (?P<dst>\\d)']
        pegs = ["0", "1", "2"]
        {output}
    """))
    return folder


HOSTILE_ENDINGS = {
    "wrong-then-kills-its-shell": ('echo "2 0 2"; move "$1" 0 1 2; [ "$(cat /proc/$PPID/comm)" != sh ] || kill -TERM $PPID', "", ("fail", "violation")),
    "right-then-kills-its-group": ('move "$1" 0 1 2; trap "" TERM; kill 0', "", ("pass", None)),
    "segfaults-after-moves-on-stderr": ('move "$1" 0 1 2 >&2; kill -SEGV $$', 'stream = "stderr"', ("error", "crash")),
    "segfaults-after-moves-on-both": ('move "$1" 0 1 2; kill -SEGV $$', 'stream = "both"', ("error", "crash")),
    "engines-words-first": ('echo "OCI runtime exec failed: not a move"; move "$1" 0 1 2', "", ("error", "unreadable")),
}
"""Ports that end their output in ways a shell around them might get wrong, and their verdicts:
that of subprocess mode, where nothing stands between the harness and the program."""


@pytest.mark.parametrize("mode", ["subprocess", "container"])
def test_what_a_program_does_to_the_shell_around_it_changes_no_verdict(tmp_path, docker_engine, run_tmpdir, mode):
    """The shell that writes the end mark outlives the program's signals and keeps its own words out
    of the output: a program that ends it was `error (engine)` after three runs, a wrong one too; a
    segfault's ``Segmentation fault`` was read as a line of moves; the engine's words at the start
    were taken out of the output, and a port passed with a line that is no move."""
    root = tmp_path / "ports"
    for name, (script, output, _) in HOSTILE_ENDINGS.items():
        bash_port(root, name, script, output)
    _, report = compare_json(tmp_path, "--n", "2", "--method", "recursive", "--isolation", mode, "--jobs", "2", root=root, tmpdir=run_tmpdir)
    verdicts = {cell["port"]: (cell["outcome"], cell["reason"]) for cell in report["cells"]}
    assert verdicts == {name: verdict for name, (_, _, verdict) in HOSTILE_ENDINGS.items()}, report["cells"]


def test_a_program_that_hangs_after_its_moves_has_printed_them_all(tmp_path, docker_engine, run_tmpdir):
    """What a program printed before it hung is read whole: a wrong last move is the cell's fail, not
    its time-out (the bytes that might begin the end mark were held back, and lost with the time-out)."""
    root = tmp_path / "ports"
    bash_port(root, "hangs", 'move "$1" 0 1 2; echo "1 0 1"; sleep 600')
    _, report = compare_json(tmp_path, "--n", "2", "--method", "recursive", "--isolation", "container", "--timeout", "10", root=root, tmpdir=run_tmpdir)
    [cell] = report["cells"]
    assert (cell["outcome"], cell["reason"]) == ("fail", "violation"), cell


def test_a_port_reading_stdin_has_the_whole_process_limit(tmp_path, docker_engine, run_tmpdir):
    """The shell that feeds a program its standard input took one of the cell's processes: the
    stdin reader failed at ``--processes 1`` in a container, and passed beside it in a subprocess."""
    root = tmp_path / "ports"
    root.mkdir()
    (root / "stdin-reader").symlink_to(STDIN_READER)
    _, report = compare_json(tmp_path, "--n", "1-3", "--method", "recursive", "--isolation", "container", "--processes", "1", root=root, tmpdir=run_tmpdir)
    assert {cell["outcome"] for cell in report["cells"]} == {"pass"}, report["cells"]


def test_a_shown_cell_whose_output_is_lost_is_run_once(docker_engine, monkeypatch, run_tmpdir):
    """Moves already shown cannot be taken back: run again, a cell showed the lost run's moves and
    then the next run's after them, and harness smoke failed a right port on that list."""
    started = cut(monkeypatch, lost_last_bytes)
    shown: list[object] = []
    cell = evaluate(load_port(STDIN_READER / MANIFEST), "recursive", 3, Settings(isolation="container"), on_move=shown.append)
    assert (cell.outcome, cell.reason, len(started)) == (Outcome.ERROR, Reason.ENGINE, 1), cell.detail
    assert len(shown) == cell.moves  # each shown once
