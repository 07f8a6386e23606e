"""The manifest's keys for programs written for no harness, each in every mode: moves
read from standard error or from both streams in the order written, discs named by a map, n fixed
or written in other forms, and the port's own peg names in what the harness says."""

from __future__ import annotations

import shutil

import pytest

from conftest import FAKE_PORTS, harness_here, suite
from integration.conftest import compare_json, usable

MODES = ["subprocess", "sandbox", pytest.param("container", marks=pytest.mark.docker)]


def cells_of(tmp_path, fake: str, isolation: str, *args: str) -> dict[tuple[str, int], dict]:
    """One compare of a fake port, its cells by method and n."""
    root = suite(tmp_path, fake, real=())
    _, report = compare_json(tmp_path, *args, "--isolation", isolation, root=root, run=harness_here)
    return {(cell["method"], cell["n"]): cell for cell in report["cells"]}


@pytest.mark.parametrize("isolation", MODES)
def test_moves_are_read_from_standard_error_or_from_both_streams_in_the_order_written(request, tmp_path, isolation):
    """recursive writes its moves on standard error, iterative a move on each stream in turn: each
    passes at every n, the moves of both streams read in the order they were written."""
    usable(request, isolation)
    cells = cells_of(tmp_path, "streams", isolation, "--n", "0-7", "--method", "recursive,iterative")
    assert {(cell["outcome"], cell["moves"]) for key, cell in cells.items()} == {("pass", 2 ** n - 1) for n in range(8)}, cells


@pytest.mark.parametrize("isolation", MODES)
def test_a_cell_whose_moves_are_missing_from_standard_output_says_standard_error_has_lines(request, tmp_path, isolation):
    """binary writes its moves on standard error, and its manifest reads standard output: the cell
    fails as it must, and says where the moves went and how the manifest reads them there."""
    usable(request, isolation)
    cells = cells_of(tmp_path, "streams", isolation, "--n", "0-3", "--method", "binary")
    assert cells[("binary", 0)]["outcome"] == "pass"
    cell = cells[("binary", 3)]
    assert (cell["outcome"], cell["reason"]) == ("fail", "violation")
    assert cell["detail"].startswith("after 0 moves the discs are not all on peg 2")
    assert "standard output was empty, while standard error has 7 lines" in cell["detail"]
    assert '[output] stream = "stderr"' in cell["detail"]


def test_a_refusal_of_a_program_whose_moves_are_on_standard_error_is_held_to_its_exit_alone(tmp_path):
    """Its usage message is where its moves would be: smoke holds it to exit code 2, not to silence."""
    root = suite(tmp_path, "streams", real=())
    done = harness_here("--root", str(root), "smoke", "--port", "streams", "--method", "recursive")
    assert done.returncode == 0, done.stdout


@pytest.mark.parametrize("isolation", MODES)
def test_n_reaches_a_program_in_unary_as_a_list_of_its_discs_or_not_at_all_where_it_is_fixed(request, tmp_path, isolation):
    """recursive takes n in unary, iterative as the list of its discs, binary is built for n = 4 and
    takes none: each passes where it runs, and binary is skipped at every other n."""
    usable(request, isolation)
    cells = cells_of(tmp_path, "n-forms", isolation, "--n", "0-6", "--method", "binary,recursive,iterative")
    for n in range(7):
        assert (cells[("recursive", n)]["outcome"], cells[("iterative", n)]["outcome"]) == ("pass", "pass"), cells
        assert cells[("binary", n)]["outcome"] == ("pass" if n == 4 else "skipped"), cells[("binary", n)]
    assert cells[("iterative", 6)]["moves"] == cells[("recursive", 6)]["moves"] == 63


def test_smoke_spells_n_otherwise_only_for_a_program_that_takes_it_in_decimal(tmp_path):
    root = suite(tmp_path, "n-forms", real=())
    done = harness_here("--root", str(root), "smoke", "--port", "n-forms")
    assert done.returncode == 0, done.stdout
    assert "n = '+3'" not in done.stdout


@pytest.mark.parametrize("isolation", MODES)
def test_a_program_that_draws_its_discs_as_rings_is_read_by_the_disc_map_in_every_format(request, tmp_path, isolation):
    """Rings °, o, O and ( ) for discs 1 to 4: the board after each move (states), each move (lines)
    and the cyclic article's drawings all read, at every n the map names."""
    usable(request, isolation)
    cells = cells_of(tmp_path, "rings", isolation, "--n", "0-5", "--method", "recursive,iterative,cyclic")
    for method in ("recursive", "iterative", "cyclic"):
        assert [cells[(method, n)]["outcome"] for n in range(6)] == ["pass"] * 5 + ["skipped"], cells
    assert cells[("cyclic", 4)]["moves"] == 43


@pytest.mark.parametrize("isolation", MODES)
def test_a_diagnosis_names_the_pegs_as_the_port_does(request, tmp_path, isolation):
    """rings' binary method moves its discs to the middle peg: the diagnosis, in every form of the
    report, names the pegs left, middle and right, each with its canonical number beside it."""
    usable(request, isolation)
    root = suite(tmp_path, "rings", real=())
    markdown = tmp_path / "report.md"
    done, report = compare_json(
        tmp_path, "--n", "3", "--method", "binary", "--isolation", isolation, "--markdown", str(markdown), root=root, run=harness_here,
    )
    wrong = "after 7 moves the discs are not all on peg right (2): peg left (0): []; peg middle (1): [3, 2, 1]; peg right (2): []"
    assert [cell["detail"] for cell in report["cells"]] == [wrong]
    assert [cell["pegs"] for cell in report["cells"]] == [["left", "middle", "right"]]
    assert wrong in done.stdout
    assert wrong in markdown.read_text()


def test_show_draws_the_pegs_under_the_ports_own_names(tmp_path):
    root = suite(tmp_path, "rings", real=())
    done = harness_here("--root", str(root), "show", "rings", "recursive", "-n", "2")
    assert done.returncode == 0, done.stderr
    assert "peg left (0)   peg middle (1)  peg right (2)" in done.stdout
    assert "move 1 of 3: disc 1 from peg left (0) to peg middle (1)" in done.stdout
    assert "the start, 2 discs on peg left (0)" in done.stdout


def builds_after_runs(tmp_path, isolation: str, runs: int, between=lambda folder: None) -> list[str]:
    """The cache entries of seed-writer's builds after ``runs`` compares at n = 3, each cell passing,
    ``between`` changing the port's folder after each run."""
    root = tmp_path / "ports"
    # without the seed a run of the whole fakes (test_faults) leaves in the folder they are linked from
    shutil.copytree(FAKE_PORTS / "seed-writer", root / "seed-writer", ignore=shutil.ignore_patterns(".Random.seed"))
    cache = tmp_path / "cache"
    for number in range(runs):
        _, report = compare_json(
            tmp_path, "--n", "3", "--isolation", isolation, root=root, run=harness_here, env={"HANOI_CACHE": str(cache)},
        )
        assert [cell["outcome"] for cell in report["cells"] if cell["method"] == "recursive"] == ["pass"], report["cells"]
        if number < runs - 1:
            between(root / "seed-writer")
    return sorted(path.name for path in (cache / "builds" / "seed-writer").iterdir() if path.is_dir())


@pytest.mark.parametrize("isolation", MODES)
def test_what_a_program_leaves_in_its_folder_does_not_change_its_build(request, tmp_path, isolation):
    """The program writes a fresh .Random.seed into its folder on every run (where it may): its
    build, which read hanoi.py alone, is made once and found again by each later run."""
    usable(request, isolation)
    assert len(builds_after_runs(tmp_path, isolation, 3)) == 1
    assert (tmp_path / "ports" / "seed-writer" / ".Random.seed").exists() == (isolation == "subprocess")


@pytest.mark.parametrize(
    "change",
    [
        lambda folder: (folder / "hanoi.py").write_text((folder / "hanoi.py").read_text() + "\n# changed\n"),
        lambda folder: (folder / "helper.py").write_text("# a new source beside hanoi.py\n"),
    ],
    ids=["a-file-it-read-changes", "a-file-of-its-kind-is-added"],
)
def test_a_change_to_what_a_build_reads_makes_a_new_build(tmp_path, change):
    assert len(builds_after_runs(tmp_path, "subprocess", 2, change)) == 2
