"""The manifest's keys for programs written for no harness: where the moves are written, names of
discs, a fixed n and n's other forms; each fault named with its line, as ``harness check`` says it."""

from __future__ import annotations

import pytest

from harness.discover import load_port

BASE = """\
methods = ["recursive"]
command = ["prog", "{n}"]
[output]
patterns = ['(?P<disk>\\d+) (?P<src>\\d) (?P<dst>\\d)']
pegs = ["0", "1", "2"]
"""


def port_from(tmp_path, text: str):
    folder = tmp_path / "lang"
    folder.mkdir(exist_ok=True)
    (folder / "language.toml").write_text(text)
    return load_port(folder / "language.toml")


def error_of(tmp_path, text: str) -> str:
    port = port_from(tmp_path, text)
    assert port.manifest_error is not None
    return port.manifest_error.removeprefix(str(tmp_path / "lang" / "language.toml"))


@pytest.mark.parametrize("stream", ["stdout", "stderr", "both"])
def test_the_moves_may_be_read_from_either_stream_or_both(tmp_path, stream):
    port = port_from(tmp_path, BASE + f'stream = "{stream}"\n')
    assert port.manifest_error is None
    assert port.program("recursive").output.stream == stream


def test_the_moves_are_read_from_standard_output_by_default(tmp_path):
    assert port_from(tmp_path, BASE).program("recursive").output.stream == "stdout"


def test_a_stream_the_harness_does_not_know_is_named_with_its_line(tmp_path):
    assert error_of(tmp_path, BASE + 'stream = "stdin"\n') == ":6: 'output.stream' is where the moves are written: one of stdout, stderr, both"


def test_a_query_reads_no_stream(tmp_path):
    (tmp_path / "lang").mkdir()
    (tmp_path / "lang" / "hanoi.sql").write_text("")
    text = BASE.replace('command = ["prog", "{n}"]', '[postgresql]\nload = ["hanoi.sql"]\nquery = "SELECT {method}({n})"') + 'stream = "stderr"\n'
    assert "'output.stream' is for a program's streams" in error_of(tmp_path, text)


@pytest.mark.parametrize(
    "argument, n, given",
    [
        ("{n}", 3, "3"),
        ("{n:unary}", 3, "111"),
        ("{n:unary:+}", 3, "+++"),
        ("-n={n:unary:ab}", 2, "-n=abab"),
        ("{n:unary}", 0, ""),
        ("{n:discs}", 4, "1 2 3 4"),
        ("[{n:discs:, }]", 3, "[1, 2, 3]"),
        ("({n:discs:)(})", 2, "(1)(2)"),
        ("{n:discs}", 0, ""),
        ("{n}/{n:unary}", 2, "2/11"),
    ],
)
def test_n_is_written_in_the_form_the_command_names(tmp_path, argument, n, given):
    port = port_from(tmp_path, BASE.replace('"{n}"', f'"{argument}"'))
    assert port.manifest_error is None, port.manifest_error
    assert port.program("recursive").argv("recursive", n) == ["prog", given]


def test_n_given_as_text_is_written_as_it_is_in_a_form_it_cannot_count(tmp_path):
    """harness smoke spells n otherwise (+3, 0x3): a form that counts writes what it cannot count as it is."""
    port = port_from(tmp_path, BASE.replace('"{n}"', '"{n:unary}"'))
    assert port.program("recursive").argv("recursive", "+3") == ["prog", "+3"]
    assert port.program("recursive").argv("recursive", "3") == ["prog", "111"]


def test_a_program_of_one_fixed_n_needs_no_n(tmp_path):
    port = port_from(tmp_path, BASE.replace(', "{n}"', "").replace("[output]", "min_n = 4\nmax_n = 4\n[output]"))
    assert port.manifest_error is None, port.manifest_error
    assert port.program("recursive").argv("recursive", 4) == ["prog"]
    assert not port.program("recursive").takes_n


def test_a_program_of_several_n_must_be_given_n(tmp_path):
    problem = error_of(tmp_path, BASE.replace(', "{n}"', "").replace("[output]", "min_n = 3\nmax_n = 4\n[output]"))
    assert problem.startswith(": 'command', 'build' or 'stdin' must use {n}, the number of discs, unless min_n = max_n"), problem


@pytest.mark.parametrize("placeholder", ["{n:roman}", "{n:unary:}", "{n:discs:{}", "{n:}", "{n:Unary}"])
def test_a_form_of_n_the_harness_does_not_know_is_named_with_its_line(tmp_path, placeholder):
    problem = error_of(tmp_path, BASE.replace('command = ["prog", "{n}"]', f'command = [\n  "prog",\n  "{{n}}",\n  "-x{placeholder}",\n]'))
    assert problem.startswith(":5: 'command' uses {"), problem
    assert "which the harness does not fill in; it fills in {method}, {n}, {n:unary}, {n:unary:TEXT}, {n:discs}, {n:discs:SEP}" in problem
