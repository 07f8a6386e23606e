"""What a user gives the harness that a run cannot take: a report it cannot write fails the run in
one line naming the file; a broken DSN is the SQL cells' error only, never its password."""

from __future__ import annotations

import json
import re

import pytest
from unit.test_cli_input import PASSWORD, one_clean_line

from conftest import harness_here, suite, valid_report
from harness.report import WRITERS


@pytest.mark.parametrize("name", list(WRITERS))
def test_a_report_that_cannot_be_written_fails_the_run_naming_the_file(name):
    done = harness_here("compare", "--n", "2", "--lang", "python", "--method", "binary", f"--{name}", "/dev/full")
    line = one_clean_line(done, 1)
    assert line == f"harness: cannot write the {WRITERS[name].what} to /dev/full: No space left on device"
    assert "All 1 cells that ran pass and agree" in done.stdout


def test_a_broken_dsn_in_the_environment_does_not_fail_a_run_without_sql():
    done = harness_here("compare", "--n", "3", "--lang", "python", env={"HANOI_PG_DSN": "garbage"})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stderr


def test_a_broken_dsn_in_the_environment_is_the_sql_cells_error_only(tmp_path):
    env = {"HANOI_PG_DSN": f"postgresql://u:{PASSWORD}@[::1/db"}
    done = harness_here("compare", "--n", "2", "--lang", "python,sql", "--method", "binary", env=env)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr and PASSWORD not in done.stdout + done.stderr
    assert re.search(r"^python +pass · 3 moves$", done.stdout, re.M), done.stdout
    assert "sql: error (database) binary n=2: the DSN given for PostgreSQL is not a PostgreSQL connection string" in done.stdout


def test_list_exits_1_for_a_broken_manifest(tmp_path):
    root = suite(tmp_path, "broken-manifest", real=("python",))
    done = harness_here("--root", str(root), "list")
    assert done.returncode == 1 and "manifest problem" in done.stdout


def test_fail_fast_starts_no_cell_after_a_failure(tmp_path):
    root = suite(tmp_path, "crash", real=("python",))
    done = harness_here("--root", str(root), "compare", "-n", "2,3", "-m", "binary", "-j", "1", "-x", "--json", str(tmp_path / "r.json"))
    assert done.returncode == 1
    cells = {cell["id"]: cell for cell in valid_report(json.loads((tmp_path / "r.json").read_text()))["cells"]}
    assert cells["crash/binary/2"]["reason"] == "crash"
    assert [cells[id]["reason"] for id in ("python/binary/2", "crash/binary/3", "python/binary/3")] == ["not-run"] * 3


def test_one_exit_code_policy_a_skipped_cell_is_no_failure(tmp_path):
    root = suite(tmp_path, "hang", "missing-interpreter", real=())
    not_offered = harness_here("--root", str(root), "run", "hang", "recursive", "-n", "2")
    assert not_offered.returncode == 0 and "skipped: hang does not offer the recursive method" in not_offered.stderr
    assert harness_here("--root", str(root), "list", "-l", "missing-interpreter").returncode == 0
    assert harness_here("--root", str(root), "list", "-l", "missing-interpreter", "--strict").returncode == 1
