"""The documents' errata that no replayed session shows, each checked by running code (docs/ERRATA.md
lists them all, with the transcript step or test that shows each); and the Bash port's listings,
mended, doing what the notes meant."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from conftest import FAKE_PORTS, ROOT

BASH_LISTING_B_TOH = ROOT / "benchmarks" / "seed-listings" / "bash-b_toh" / "b_toh.sh"
BASH_LISTING_I_TOH = FAKE_PORTS / "seed-i_toh" / "i_toh.sh"


def i_toh_as_printed(n: int) -> str:
    """The notes' i_toh run for n disks: the listing ends in `i_toh 3`, so n goes in its place, as
    the fake port's build does."""
    return f"source <(sed 's/^i_toh 3$/i_toh {n}/' {BASH_LISTING_I_TOH.name})"


def bash(script: str, cwd=ROOT / "bash", trace: bool = False) -> subprocess.CompletedProcess:
    """Bash running a script; traced, each command is shown on stderr after the id of the process
    that runs it (PS4 is set in the script, as Bash ignores it in the environment of root)."""
    prologue = "PS4='+$BASHPID '; set -x\n" if trace else ""
    return subprocess.run(["bash", "-c", prologue + script], cwd=cwd, capture_output=True, text=True, timeout=60)


def processes(trace: str) -> int:
    """How many processes ran traced commands: the shell, and each subshell it forked."""
    return len(set(re.findall(r"^\++(\d+) ", trace, re.MULTILINE)))


def test_the_bash_listings_fork_on_every_move_and_the_port_does_not():
    """docs/ports.md: the notes' Bash b_toh and i_toh fork a subshell for every move ($(w_num ...),
    $(legal ...)). The port's methods run in one process; its mended b_toh and i_toh fork once (seq)."""
    for listing, script in ((BASH_LISTING_B_TOH, f"source {BASH_LISTING_B_TOH.name} binary 4"), (BASH_LISTING_I_TOH, i_toh_as_printed(4))):
        done = bash(script, cwd=listing.parent, trace=True)
        assert processes(done.stderr) > 15, (listing, done.stderr[-500:])
    for method in ("binary", "recursive", "iterative", "cyclic"):
        done = bash(f"source hanoi.sh; main {method} 4", trace=True)
        assert done.returncode == 0 and processes(done.stderr) == 1, (method, done.stderr[-500:])
    for call in ("b_toh 4", "i_toh 4"):
        done = bash(f"source hanoi.sh; {call}", trace=True)
        assert processes(done.stderr) == 2, (call, done.stderr[-500:])


def calls(trace: str, *functions: str) -> int:
    """How many times a traced script called any of the functions."""
    return len(re.findall(rf"^\++\d+ (?:{'|'.join(functions)}) ", trace, re.MULTILINE))


def cyclic_transfers(n: int) -> int:
    """The calls the cyclic article's transfers make to take n discs to the adjacent rod: the direct
    one calls the indirect one twice, the indirect one itself twice and the direct one once, down to
    one disc."""
    direct = indirect = 1
    for _ in range(n - 1):
        direct, indirect = 1 + 2 * indirect, 1 + 2 * indirect + direct
    return direct


def test_the_bash_ports_methods_make_every_move_as_their_documents_do():
    """No run of moves is kept and replayed: at n = 10 (more discs than the runs the port once kept),
    recursive calls the notes' r_toh 2^(n+1) - 1 times, iterative asks legal once a move, binary
    works out each move's line from its own number, and cyclic's two transfers call each other as
    often as the article's templates do."""
    n = 10
    expected = {
        "recursive": (("r_toh",), 2 ** (n + 1) - 1), "iterative": (("legal",), 2**n - 1), "binary": (("move",), 2**n - 1),
        "cyclic": (("transfer_direct", "transfer_indirect"), cyclic_transfers(n)),
    }
    for method, (functions, count) in expected.items():
        done = bash(f"source hanoi.sh; main {method} {n}", trace=True)
        assert done.returncode == 0, (method, done.stderr[-500:])
        assert calls(done.stderr, *functions) == count, method


def rods_after_each_move(out: str) -> list[list[str]]:
    return [block.splitlines() for block in out.split("\n\n") if block.strip()]


@pytest.mark.parametrize("function", ["b_toh", "i_toh"])
def test_the_bash_listings_mended_end_on_rod_2_for_every_n(function):
    """The notes' b_toh formula, and their i_toh's 3 % 2, end on rod 1 for an even number of disks;
    the port's b_toh and i_toh end on rod 2, after 2^n - 1 moves, and for n = 0 make none."""
    for n in range(7):
        done = bash(f"source hanoi.sh; {function} {n}; echo \"end: ${{C[*]}}\"")
        assert done.returncode == 0 and done.stderr == "", (n, done.stderr)
        out, _, end = done.stdout.rpartition("end: ")
        states = rods_after_each_move(out)
        assert len(states) == 2**n - 1, (function, n)
        assert end.split() == [str(d) for d in range(n, 0, -1)], (function, n)
        if states:
            assert states[-1] == ["0: ", "1: ", f"2: {end.strip()}"]


def test_the_bash_listings_i_toh_0_moves_from_an_empty_rod():
    """The notes' Bash i_toh checks for the end only after a move: with no disks it moves from an
    empty rod, and Bash complains. The port's i_toh checks first (above: no move, no complaint)."""
    done = bash(i_toh_as_printed(0), cwd=BASH_LISTING_I_TOH.parent)
    assert "bad array subscript" in done.stderr


def test_sourcing_the_bash_port_defines_the_listings_and_runs_nothing():
    done = bash("source hanoi.sh; echo \"sourced: $?\"; declare -F")
    assert done.stderr == ""
    assert done.stdout.startswith("sourced: 0\n")
    assert {"w_num", "b_toh", "r_toh", "legal", "i_toh"} <= set(re.findall(r"declare -f (\w+)", done.stdout))


def inferences_per_move(predicate: str, n: int) -> float:
    goal = (
        f"{predicate}(2, a, b, c, _), statistics(inferences, I0), {predicate}({n}, left, middle, right, _),"
        " statistics(inferences, I1), I is I1 - I0, print(I), nl"
    )
    done = subprocess.run(["swipl", "-q", "-l", "hanoi.pl", "-g", goal, "-t", "halt"], cwd=ROOT / "prolog",
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return int(done.stdout) / (2**n - 1)


def test_simply_logicals_hanoi5_copies_its_moves_at_every_level():
    """docs/ports.md: the book's hanoi/5 builds its list with append/3, which copies the moves so far at
    every level: its work per move grows with n, where the difference list's stays the same."""
    book = [inferences_per_move("hanoi", n) for n in (8, 16)]
    twin = [inferences_per_move("hanoi_moves", n) for n in (8, 16)]
    assert book[1] - book[0] == pytest.approx((16 - 8) / 2, abs=0.5), book  # half a step a move, a disc
    assert twin[1] == pytest.approx(twin[0], rel=0.1), twin


def article_rows() -> list[str]:
    """The rows the cyclic article draws, as quoted in the header of cpp/cyclic.cpp."""
    header = (ROOT / "cpp" / "cyclic.cpp").read_text().split("The article's own drawing")[1]
    return re.findall(r"^//     (-[-0-9]*\|[ABC])$", header, re.MULTILINE)[:3]


def first_lines(tmp_path, discs: int, count: int) -> list[str]:
    program = tmp_path / f"cyclic-{discs}"
    subprocess.run(["c++", "-std=c++20", "-O2", f"-DDISCS={discs}", "-o", program, ROOT / "cpp" / "cyclic.cpp"],
                   check=True, timeout=300)
    with subprocess.Popen([program], stdout=subprocess.PIPE, text=True) as running:
        lines = [running.stdout.readline().rstrip("\n") for _ in range(count)]
        running.kill()
    return lines


def test_the_cyclic_header_draws_what_the_program_prints(tmp_path):
    header = (ROOT / "cpp" / "cyclic.cpp").read_text().split("The article's own drawing")[0]
    drawn = re.findall(r"^//     (-[-0-9]*\|[ABC])$", header, re.MULTILINE)
    assert drawn == [line for line in first_lines(tmp_path, 4, 8) if line]


def test_the_cyclic_articles_drawing_is_of_16_discs_where_its_listing_has_12(tmp_path):
    """The article's tower array holds 12 discs, so its program draws rows 38 characters wide; the
    rows it shows are 50 wide, as the program draws 16 discs."""
    rows = article_rows()
    assert [row[-2:] for row in rows] == ["|A", "|B", "|C"]
    assert {len(row) for row in rows} == {len(line) for line in first_lines(tmp_path, 16, 3)} == {50}
    assert {len(line) for line in first_lines(tmp_path, 12, 3)} == {38}


@pytest.mark.skipif(shutil.which("strace") is None, reason="needs strace to count the write calls")
def test_the_cyclic_articles_std_endl_writes_every_row_where_the_port_writes_in_blocks(tmp_path):
    """docs/ports.md: the article ends each row with std::endl, which flushes: one write call a row, four a
    move. Its listing, made to compile (main calls transfer<...>::disc()) and given 6 discs rather
    than 12, against the port with 6 discs."""
    listing = (FAKE_PORTS / "seed-cyclic" / "cyclic.cpp").read_text()
    mended = listing.replace("transfer<DISCS, A, B>()();", "transfer<DISCS, A, B>::disc();").replace(
        "int tower[3][12] = {{1,2,3,4,5,6,7,8,9,10,11,12}, {0}, {0}};", "int tower[3][6] = {{1,2,3,4,5,6}, {0}, {0}};")
    assert mended.count("::disc();") > listing.count("::disc();") and "tower[3][6]" in mended
    (tmp_path / "article.cpp").write_text(mended)
    writes = {}
    for name, source, flags in (("article", tmp_path / "article.cpp", []), ("port", ROOT / "cpp" / "cyclic.cpp", ["-DDISCS=6"])):
        subprocess.run(["c++", "-std=c++20", "-O2", *flags, "-o", tmp_path / name, source], check=True, timeout=300)
        done = subprocess.run(["strace", "-f", "-e", "trace=write", "-o", tmp_path / f"{name}.trace", tmp_path / name],
                              capture_output=True, text=True, timeout=120)
        writes[name] = (tmp_path / f"{name}.trace").read_text().count("write(1,"), done.stdout.count("\n")
    rows = 4 * (327 + 1)  # 327 moves for 6 discs; three rows and a blank line for each drawing
    assert writes["article"] == (rows, rows)
    assert writes["port"][1] == rows and writes["port"][0] < rows // 100, writes
