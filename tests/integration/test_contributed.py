"""Programs written the way contributors write them, in languages the project does not ship, each
read through its manifest alone: a title and a total around the moves, several moves a line, n on
standard input, n written in the source, a compiled program, the board after each move, a program
that refuses n = 0, a target peg chosen by peg order. Each runs where its interpreter is installed;
where it is not, the test is skipped saying how to install it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import FAKE_PORTS, harness_here
from harness.discover import discover, load_port
from harness.evaluate import evaluate
from harness.model import METHODS, Outcome
from harness.settings import Settings
from integration.conftest import harness, harness_measured, reference_digest

CONTRIBUTED = Path(__file__).resolve().parent.parent / "contributed"
PORTS = {port.name: port for port in discover(CONTRIBUTED)}
NS = range(11)
SHELLS = ("sh", "bash", "dash", "zsh")


def runnable(port):
    """The port, or a skip that says what to install."""
    assert port.manifest_error is None, port.manifest_error
    missing = [requirement for requirement in port.requires if not requirement.found]
    if missing:
        pytest.skip("; ".join(f"{req.executable} is not installed ({req.advice})" for req in missing))
    return port


@pytest.mark.parametrize("name, method", [(name, method) for name, port in PORTS.items() for method in port.methods])
def test_each_program_passes_through_its_manifest_alone(name, method):
    port = runnable(PORTS[name])
    program = port.program(method)
    assert program.command[0] not in SHELLS and "-c" not in program.command, "no wrapper script: the program runs itself"
    for n in NS:
        cell = evaluate(port, method, n, Settings(timeout=60))
        if n < program.min_n:
            assert (cell.outcome, cell.detail) == (Outcome.SKIPPED, f"the program takes n ≥ {program.min_n}")
            continue
        assert (cell.outcome, cell.detail) == (Outcome.PASS, ""), cell.label
        assert (cell.moves, cell.digest) == (METHODS[method].optimal_count(n), reference_digest(n, method)), cell.label


def test_the_programs_cover_every_output_style_the_docs_walk_through():
    programs = [port.program(method) for port in PORTS.values() for method in port.methods]
    outputs = [program.output for program in programs]
    assert any(output.ignore for output in outputs), "a title and a summary around the moves"
    assert any(output.separator and output.format == "lines" for output in outputs), "several moves a line"
    assert any(program.stdin_template for program in programs), "n on standard input"
    assert any(program.min_n > 0 for program in programs), "a program that refuses n = 0"
    assert any(output.format == "states" for output in outputs), "the board after each move"
    assert any(output.pegs[2] != sorted(output.pegs)[2] for output in outputs), "a target peg named by peg order"
    assert any(output.pegs[0] != "0" for output in outputs), "pegs named other than 0, 1, 2"
    assert any("disk" not in pattern.groupindex for output in outputs for pattern in output.patterns), "moves without discs"
    compiled = [program for program in programs if program.build]
    assert any(program.command[0] == "{binary}" for program in compiled), "a compiled program"
    assert any(program.command[0] != "{binary}" for program in compiled), "n written in the source, rewritten by a build"
    assert len({port.requires[0].executable for port in PORTS.values()}) >= 5


def test_the_seed_i_toh_as_printed_is_read_from_its_rods_and_caught_for_even_n():
    port = runnable(load_port(FAKE_PORTS / "seed-i_toh" / "language.toml"))
    assert port.program("iterative").output.format == "states"
    assert evaluate(port, "iterative", 5).outcome is Outcome.PASS
    cell = evaluate(port, "iterative", 4)
    assert (cell.outcome, cell.moves) == (Outcome.FAIL, 15)
    assert cell.detail == "after 15 moves the discs are not all on peg 2: peg 0: []; peg 1: [4, 3, 2, 1]; peg 2: []"


def test_a_program_with_n_on_stdin_refuses_what_is_not_a_number_and_the_harness_says_so(tmp_path):
    port = runnable(PORTS["awk-stdin"])
    folder = tmp_path / "awk-words"
    folder.mkdir()
    for name in ("hanoi.awk", "language.toml"):
        (folder / name).write_text((port.folder / name).read_text().replace('stdin = "{n}\\n"', 'stdin = "{n} discs\\n"'))
    done = harness_here("--root", str(tmp_path), "run", "awk-words", "iterative", "--n", "3")
    assert done.returncode == 1
    assert "awk-words/iterative n=3: error: exited with code 2 after 0 moves" in done.stderr
    assert "usage: echo N | awk -f hanoi.awk" in done.stderr


@pytest.mark.parametrize("name", ["awk-stdin", "node-board", "perl-summary"])
def test_bench_times_a_program_fed_on_stdin_or_read_as_states_or_with_lines_skipped(tmp_path, name):
    port = runnable(PORTS[name])
    [method] = port.methods
    report = tmp_path / "bench.json"
    done = harness("--root", str(CONTRIBUTED), "bench", "--lang", name, "--method", method, "--n", "6", "--repeat", "1", "--json", str(report))
    assert done.returncode == 0, done.stdout + done.stderr
    [cell] = [cell for cell in json.loads(report.read_text())["cells"] if cell["n"] == 6]
    assert (cell["status"], cell["moves"]) == ("timed", METHODS[method].optimal_count(6)), cell
    assert [run["moves"] for run in cell["runs"]] == [cell["moves"]]


def test_every_move_on_one_line_is_read_in_bounded_memory_at_n_20(tmp_path, run_tmpdir):
    """A 13 MB line, read in pieces cut at its separator: the cell passes and the harness stays small."""
    runnable(PORTS["python-one-line"])
    report = tmp_path / "report.json"
    done, _, peak = harness_measured(
        "--root", str(CONTRIBUTED), "compare", "--n", "20", "--lang", "python-one-line", "--method", "recursive",
        "--json", str(report), env={}, tmpdir=run_tmpdir,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    [cell] = [cell for cell in json.loads(report.read_text())["cells"] if cell["method"] == "recursive"]
    assert (cell["outcome"], cell["digest"]) == ("pass", reference_digest(20)), cell
    assert peak < 200 << 20, f"the harness reached {peak >> 20} MiB"
