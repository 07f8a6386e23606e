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
