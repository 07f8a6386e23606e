"""What a user types that the harness cannot take: each is one line on stderr and exit 2 (exit 1,
naming the file, for a report it cannot write), never a traceback, never a password."""

from __future__ import annotations

import json
import re

import pytest

from conftest import harness_here, suite, valid_report

PASSWORD = "secretpw"


def one_clean_line(done, code: int) -> str:
    assert done.returncode == code, done.stdout + done.stderr
    assert "Traceback" not in done.stderr and PASSWORD not in done.stderr + done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--n", "99999999999999999999", "--method", "cyclic"], "99999999999999999999 discs is too many: at most 64"),
        (["--n", "15000"], "15000 discs is too many: at most 64"),
        (["--n", "0-100000000"], "100000000 discs is too many: at most 64"),
        (["--n", "65"], "65 discs is too many: at most 64"),
        (["--n", "١"], "is not a number of discs"),
        (["--n", "3", "--timeout", "nan"], "'nan' is not a number of seconds more than 0"),
        (["--n", "3", "--timeout", "inf"], "'inf' is not a number of seconds more than 0"),
        (["--n", "3", "--timeout", "1e300"], "is not a number of seconds more than 0 and at most 604800"),
        (["--n", "3", "--shard", "4/3"], "'4/3' is not a share such as 1/3"),
        (["--n", "3", "--shard", "0/3"], "'0/3' is not a share such as 1/3"),
        (["--n", "3", "--format", "html"], "'html' is not one of 'pretty', 'plain', 'markdown', 'json'"),
        (["--n", "3", "--dsn", f"postgresql://u:{PASSWORD}@[::1/db"], "not a PostgreSQL connection string"),
        (["--n", "3", "--dsn", f"host=[ password={PASSWORD} port"], "not a PostgreSQL connection string"),
        (["--n", "3", "--junit", "/no/such/folder/j.xml"], "No such file or directory"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, message):
    line = one_clean_line(harness_here("compare", "--lang", "python", *args), 2)
    assert message in line


@pytest.mark.parametrize("option", ["--json", "--junit", "--markdown"])
def test_a_report_that_cannot_be_written_fails_the_run_naming_the_file(option):
    done = harness_here("compare", "--n", "2", "--lang", "python", "--method", "binary", option, "/dev/full")
    line = one_clean_line(done, 1)
    assert line.startswith("harness: cannot write the ") and line.endswith(" report to /dev/full: No space left on device")
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


def test_run_takes_one_n():
    assert "run takes one n" in one_clean_line(harness_here("run", "python", "binary", "--n", "2,3"), 2)


def test_merge_of_what_is_not_a_report_is_one_line(tmp_path):
    (tmp_path / "x.json").write_text('{"schema_version": 99}')
    (tmp_path / "y.json").write_text("not json")
    assert "schema version 99; this harness reads version 3" in one_clean_line(harness_here("merge", str(tmp_path / "x.json")), 2)
    assert "not JSON" in one_clean_line(harness_here("merge", str(tmp_path / "y.json")), 2)
    assert "cannot read" in one_clean_line(harness_here("merge", str(tmp_path / "z.json")), 2)


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
