"""Manifests: what a port may say about how it runs, and a clear message for what it may not."""

from __future__ import annotations

import pytest

from harness.discover import load_port

GOOD = """\
methods = ["binary", "recursive", "cyclic"]
build = ["cc", "-o", "{binary}", "hanoi.c"]
command = ["{binary}", "{method}", "{n}"]
[output]
patterns = ['(?P<src>\\d) (?P<dst>\\d)']
pegs = ["0", "1", "2"]
[method.cyclic]
build = ["cc", "-DN={n}", "-o", "{binary}", "cyclic.c"]
command = ["{binary}"]
[method.cyclic.output]
format = "drawings"
pegs = ["A", "B", "C"]
"""


def port_from(tmp_path, text: str):
    folder = tmp_path / "lang"
    folder.mkdir(exist_ok=True)
    (folder / "language.toml").write_text(text)
    return load_port(folder / "language.toml")


def test_a_method_table_replaces_only_the_keys_it_gives(tmp_path):
    port = port_from(tmp_path, GOOD)
    assert port.problem is None
    binary, cyclic = port.program("binary"), port.program("cyclic")
    assert (binary.output.format, binary.command) == ("lines", ("{binary}", "{method}", "{n}"))
    assert binary.argv("binary", 4, tmp_path / "built") == [str(tmp_path / "built"), "binary", "4"]
    assert (cyclic.output.format, cyclic.output.pegs, cyclic.output.patterns) == ("drawings", ("A", "B", "C"), ())
    assert cyclic.build == ("cc", "-DN={n}", "-o", "{binary}", "cyclic.c")


@pytest.mark.parametrize(
    "change, problem",
    [
        (("[method.cyclic]", "[method.iterative]"), "[method.iterative] is for a method the port does not list in 'methods'"),
        (('command = ["{binary}"]', 'command = ["./cyclic"]'), "[method.cyclic] with 'build', both it and 'command' use {binary}"),
        (('"-DN={n}", ', ""), "[method.cyclic] 'command' (or 'build') must use {n}"),
        (('"{method}", ', ""), "'command' (or 'build') must use {method}, to tell the program which method to run"),
        (('format = "drawings"', 'format = "pictures"'), "'output.format' must be one of lines, drawings, not 'pictures'"),
        (('format = "drawings"', "format = \"drawings\"\npatterns = ['(?P<src>A) (?P<dst>B)']"), "and none for drawings"),
        (('"recursive", ', '"spiral", '), "unknown: spiral"),
    ],
)
def test_a_manifest_that_cannot_be_used_says_why(tmp_path, change, problem):
    old, new = change
    assert old in GOOD
    port = port_from(tmp_path, GOOD.replace(old, new, 1))
    assert port.problem is not None and problem in port.problem, port.problem
