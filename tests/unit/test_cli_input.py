"""What a user types that the harness cannot take, before anything runs: each is one line on stderr
and exit 2, never a traceback, never a password."""

from __future__ import annotations

import pytest

from conftest import harness_here
from harness.report import writing
from harness.settings import SCREENS

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
        (["--n", "3", "--format", "xml"], f"'xml' is not one of {', '.join(map(repr, (*SCREENS, *writing('report'))))}"),
        (["--n", "3", "--dsn", f"postgresql://u:{PASSWORD}@[::1/db"], "not a PostgreSQL connection string"),
        (["--n", "3", "--dsn", f"host=[ password={PASSWORD} port"], "not a PostgreSQL connection string"),
        (["--n", "3", "--junit", "/no/such/folder/j.xml"], "No such file or directory"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, message):
    line = one_clean_line(harness_here("compare", "--lang", "python", *args), 2)
    assert message in line


def test_run_takes_one_n():
    assert "run takes one n" in one_clean_line(harness_here("run", "python", "binary", "--n", "2,3"), 2)


def test_merge_of_what_is_not_a_report_is_one_line(tmp_path):
    (tmp_path / "x.json").write_text('{"schema_version": 99}')
    (tmp_path / "y.json").write_text("not json")
    assert "schema version 99; this harness reads version 3" in one_clean_line(harness_here("merge", str(tmp_path / "x.json")), 2)
    assert "not JSON" in one_clean_line(harness_here("merge", str(tmp_path / "y.json")), 2)
    assert "cannot read" in one_clean_line(harness_here("merge", str(tmp_path / "z.json")), 2)
