"""``harness smoke`` holds a port to the program's contract (docs/SPEC.md): a port that keeps it
passes every probe; one that takes n spelled otherwise, or more discs than its max_n, or prints a
wrong first move, fails, and the line names the probe."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import harness_here
from harness.discover import load_port
from harness.gate import Gate
from harness.settings import Settings

KEEPS = r"""# The recursive method in POSIX sh, after a usage check that takes n as ASCII digits alone.
usage() { echo "usage: sh hanoi.sh recursive N (0 to 10)" >&2; exit 2; }
[ "$1" = recursive ] || usage
case "$2" in ''|*[!0-9]*) usage ;; esac
[ "$2" -le 10 ] || usage
hanoi() {
  if [ "$1" -gt 0 ]; then
    hanoi $(($1 - 1)) "$2" "$4" "$3"
    echo "$1 $2 $3"
    hanoi $(($1 - 1)) "$4" "$3" "$2"
  fi
}
hanoi "$2" 0 2 1
"""
USAGE = 'usage() { echo "usage: sh hanoi.sh recursive N (0 to 10)" >&2; exit 2; }'
MANIFEST = r"""summary = "sh"
command = ["sh", "hanoi.sh", "{method}", "{n}"]
methods = ["recursive"]
max_n = 10

[[requires]]
executable = "sh"

[output]
patterns = ['(?P<disk>\d+) (?P<src>\d) (?P<dst>\d)']
pegs = ["0", "1", "2"]
"""


def suite_of(tmp_path: Path, script: str, manifest: str = MANIFEST) -> Path:
    folder = tmp_path / "ports" / "sh"
    folder.mkdir(parents=True)
    (folder / "hanoi.sh").write_text(script)
    (folder / "language.toml").write_text(manifest)
    return folder.parent


def test_a_port_that_keeps_the_contract_passes_every_probe(tmp_path: Path) -> None:
    done = harness_here("--root", str(suite_of(tmp_path, KEEPS)), "smoke")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().splitlines()[-1] == "sh: 19 probes pass", done.stdout


@pytest.mark.parametrize(
    ("sloppy", "probe", "problem"),
    [
        (KEEPS.replace("case \"$2\" in ''|*[!0-9]*) usage ;; esac\n", ""), "n = '+3'", "printed '1 0 2'"),
        (KEEPS.replace('[ "$2" -le 10 ] || usage\n', ""), "n = 11 (max_n + 1)", "printed '1 0 2'"),
        (KEEPS.replace(USAGE, "usage() { exit 1; }"), "n = '3.0'", "exited with code 1"),
        (KEEPS.replace(USAGE, "usage() { exit 2; }"), "method 'no-such-method'", "said nothing on standard error"),
        (
            KEEPS.replace('echo "$1 $2 $3"', '[ "$1" = 4 ] && echo "4 0 1" || echo "$1 $2 $3"'),
            "the first 100 moves at n = 10 (max_n)", "fail: line 8: move 8 (disc 4 from peg 0 to peg 1)",
        ),
    ],
    ids=["sign", "above-max", "exit-code", "silent", "wrong-move"],
)
def test_a_port_that_breaks_the_contract_fails_naming_the_probe(tmp_path: Path, sloppy: str, probe: str, problem: str) -> None:
    done = harness_here("--root", str(suite_of(tmp_path, sloppy)), "smoke")
    assert done.returncode == 1, done.stdout + done.stderr
    assert any(line.startswith(f"sh recursive {probe}: FAIL: {problem}") for line in done.stdout.splitlines()), done.stdout


class _Enough(Exception):
    """What smoke's sink raises once it has the first moves it reads."""


def test_a_port_left_with_more_to_print_is_stopped_not_waited_for_in_every_mode(tmp_path: Path, mode: str, run_tmpdir: Path) -> None:
    """The probe of the first moves at max_n stops reading, by an exception from its sink, while the
    port has thousands of lines to go: its program is stopped at once, in every mode. In a container it
    was waited for until its time was up (the stream's reader held a block no one would take), and
    the engine, its output unread, could leave the cell's end hanging."""
    manifest = MANIFEST.replace("max_n = 10", "max_n = 16").replace('executable = "sh"', 'executable = "sh"\ndebian = "dash"')
    suite = suite_of(tmp_path, KEEPS.replace("-le 10", "-le 16"), manifest)
    port = load_port(suite / "sh" / "language.toml")
    settings = Settings(isolation=mode, timeout=300)  # type: ignore[arg-type]
    with Gate(settings, ports=[port], parent=run_tmpdir) as gate:
        process = gate.start(port, "recursive", 16, settings)
        with pytest.raises(_Enough), process:
            for _block in process.output():
                raise _Enough
        finish = process.finish()
    assert process.stopped and not process.timed_out and finish.stopped, finish
