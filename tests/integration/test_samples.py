"""What README shows the harness printing is what it prints: each sample of a command and its
output (a ``text`` block whose first line is ``$ harness ...``) is run here, and its output held to
the sample's shape, line by line: the table's borders and columns, each cell's words and figures,
the footer word for word. Only what differs from machine to machine is left out: the version each
port's tools report, and the width of the column that holds them."""

from __future__ import annotations

import re
import shlex

import pytest

from conftest import HEADLINE, ROOT, harness_here

SAMPLE = re.compile(r"^```text\n\$ (harness .+?)\n(.*?)^```$", re.M | re.S)
VERTICAL = re.compile(r"[│┃]")
BORDER = re.compile(r"^[━─┏┓┗┛┡┩└┘┳┻╇╈┼┬┴═]+$")


def samples(page: str) -> list[tuple[str, str]]:
    return SAMPLE.findall((ROOT / page).read_text())


def shape(output: str) -> list[str]:
    """The lines of a table and what follows it, as they must match: a border as the corners and
    joints it has (not how long its runs are), a row as its cells' words, and the row under a port's
    name, which holds its tools' version, as the cells it has."""
    lines, after_port = [], False
    for line in output.rstrip("\n").splitlines():
        line = line.rstrip()
        if BORDER.match(line):
            lines.append(re.sub(r"([━─])\1*", r"\1", line))
        elif VERTICAL.search(line):
            cells = [cell.strip() for cell in VERTICAL.split(line)[1:-1]]
            if after_port:
                cells[0] = "VERSION"
            after_port = bool(cells[1])
            lines.append(" | ".join(cells))
        else:
            after_port = False
            lines.append(line)
    return lines


def test_the_readme_has_a_sample_of_make_compare():
    [(command, _)] = samples("README.md")
    assert shlex.split(command) == ["harness", "compare", "--n", "5", "--lang", ",".join(HEADLINE)], "the sample is what make compare runs"


@pytest.mark.parametrize("command, printed", samples("README.md"), ids=lambda value: value.splitlines()[0][:40])
def test_a_readme_sample_is_what_the_harness_prints(command, printed):
    done = harness_here(*shlex.split(command)[1:], "--format", "pretty")
    missing = sorted(set(re.findall(r"│ (\S+)\s+│ not installed", done.stdout)))
    if missing:
        pytest.skip(f"the sample's ports need their tools here: {', '.join(missing)} (make tools installs them)")
    assert done.returncode == 0, done.stdout + done.stderr
    assert shape(done.stdout) == shape(printed)


def test_the_shape_tells_a_footer_or_a_cell_that_differs():
    """The comparison above can fail: the footer README had, and a cell that says another thing."""
    [(_, printed)] = samples("README.md")
    footer = printed.rstrip("\n").splitlines()[-1]
    earlier = "All 20 cells that ran pass and agree: one sequence for each n and puzzle (classic, cyclic) (20 pass)."
    assert shape(printed.replace(footer, earlier)) != shape(printed)
    assert shape(printed.replace("pass · 119 moves", "fail · 118 moves", 1)) != shape(printed)
    assert shape(printed.replace("Python 3.11.7", "Python 3.13.1      ")) == shape(printed)
