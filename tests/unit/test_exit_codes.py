"""How the ``harness`` command ends, run in-process: a command returns its exit code, which main exits
with, and an error of the harness exits with its own, said in one line, mapped in one place for every
command."""

from __future__ import annotations

import gc
import re
import shutil
import signal
import sys

import click
import pytest

from conftest import FAKE_PORTS, ROOT
from harness.cli import main
from harness.cli.group import Group, cli
from harness.errors import ExitCode, HarnessError, MergeError, ReportError, ScaffoldError, TranscriptError
from harness.model import Cell, Outcome
from harness.report import PortInfo, Report
from harness.report.json import json_text, to_json
from harness.settings import RunPlan


@pytest.fixture
def in_process(monkeypatch):
    """This process, the tests', does not become the reaper of orphans as the harness's does."""
    monkeypatch.setattr("harness.runners.process.become_subreaper", lambda: None)


@pytest.fixture
def harness_main(in_process, monkeypatch, capsys):
    """Run ``harness ARGS...`` through main in this process: its exit code, standard output and error.
    The signal handlers main installs are put back after, and nothing is frozen from the collector."""
    handlers = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}

    def run(*args: str) -> tuple[int, str, str]:
        monkeypatch.setattr(sys, "argv", ["harness", *args])
        try:
            with pytest.raises(SystemExit) as ended:
                main()
        finally:
            for number, handler in handlers.items():
                signal.signal(number, handler)
            gc.unfreeze()
        out, err = capsys.readouterr()
        return ended.value.code, out, err

    return run


def every_error() -> list[type[HarnessError]]:
    def below(cls: type[HarnessError]) -> list[type[HarnessError]]:
        return [cls, *(sub for direct in cls.__subclasses__() for sub in below(direct))]

    return below(HarnessError)


def usage_line(err: str, command: str, message: str) -> bool:
    """Whether ``err`` is click's one usage line of ``command``: PROG COMMAND: MESSAGE (see PROG COMMAND --help)."""
    return re.fullmatch(rf"(.+ {command}): {re.escape(message)} \(see \1 --help\)\n", err) is not None


def test_every_error_exits_failed_or_as_a_usage_error():
    assert {cls.exit_code for cls in every_error()} == {ExitCode.FAILED, ExitCode.USAGE}
    assert {cls for cls in every_error() if cls.exit_code == ExitCode.USAGE} == {ReportError, MergeError, ScaffoldError}


@pytest.mark.parametrize("error", every_error(), ids=lambda cls: cls.__name__)
def test_each_error_that_ends_a_command_exits_with_its_exit_code(harness_main, monkeypatch, error):
    group = Group()

    @group.command()
    def fail() -> int:
        raise error("why it ended")

    monkeypatch.setattr("harness.cli.cli", group)
    code, out, err = harness_main("fail")
    assert (code, out) == (error.exit_code, "")
    if error.exit_code == ExitCode.USAGE:
        assert usage_line(err, "fail", "why it ended"), err
    else:
        assert err == "Error: why it ended\n"


def test_new_language_into_a_folder_that_exists_is_a_usage_error(harness_main, tmp_path):
    (tmp_path / "perl").mkdir()
    code, out, err = harness_main("--root", str(tmp_path), "new-language", "perl")
    assert (code, out) == (ScaffoldError.exit_code, "")
    assert usage_line(err, "new-language", f"{tmp_path / 'perl'} already exists"), err


def test_merge_of_a_report_that_cannot_be_read_is_a_usage_error(harness_main, tmp_path):
    (tmp_path / "prose.json").write_text("not json")
    code, _, err = harness_main("--root", str(tmp_path), "merge", "--expect", "plan", str(tmp_path / "gone.json"))
    assert code == ReportError.exit_code
    assert usage_line(err, "merge", f"cannot read {tmp_path / 'gone.json'}: No such file or directory"), err
    code, _, err = harness_main("--root", str(tmp_path), "merge", "--expect", "plan", str(tmp_path / "prose.json"))
    assert code == ReportError.exit_code
    assert usage_line(err, "merge", f"{tmp_path / 'prose.json'}: not JSON (Expecting value: line 1 column 1 (char 0))"), err


def test_merge_of_reports_that_hold_one_cell_twice_is_a_usage_error(harness_main, tmp_path):
    cell = Cell("python", "recursive", 2, Outcome.PASS, moves=3, digest="0" * 64, seconds=0.01)
    plan = RunPlan(("python",), ("recursive",), (2,))
    info = PortInfo("python", "the Python port", ("recursive",), {"python3": "3.11"})
    report = Report("compare", "2026-01-01T00:00:00+00:00", "2026-01-01T00:00:01+00:00", "abc1234", plan, {}, {}, [info], ["recursive"], [cell])
    for name in ("one.json", "two.json"):
        (tmp_path / name).write_text(json_text(to_json(report)))
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    code, _, err = harness_main("--root", str(tmp_path), "merge", "--expect", "plan", str(one), str(two))
    assert code == MergeError.exit_code
    assert usage_line(err, "merge", f"the cell python/recursive/2 is in both {one} and {two}: merge the reports of separate shards"), err


def test_a_transcript_that_cannot_be_read_fails_the_command_in_one_line(harness_main, tmp_path):
    (tmp_path / "port").mkdir()
    (tmp_path / "port" / "language.toml").write_text("")  # a port, broken or not, is what transcripts needs under --root
    (tmp_path / "docs" / "transcripts").mkdir(parents=True)
    (tmp_path / "docs" / "transcripts" / "broken.toml").write_text("title = [")
    code, out, err = harness_main("--root", str(tmp_path), "transcripts")
    assert (code, out) == (TranscriptError.exit_code, "")
    assert err.startswith(f"Error: {tmp_path / 'docs' / 'transcripts' / 'broken.toml'}: TOMLDecodeError(") and err.count("\n") == 1, err


def test_a_usage_error_of_clicks_own_is_said_as_before(harness_main, tmp_path):
    code, _, err = harness_main("--root", str(tmp_path), "check", str(tmp_path / "gone"))
    assert code == ExitCode.USAGE == click.UsageError.exit_code
    assert usage_line(err, "check", f"Invalid value for '[PATH]...': Path {str(tmp_path / 'gone')!r} does not exist."), err



def test_a_command_returns_its_exit_code(in_process, tmp_path, capsys):
    shutil.copytree(ROOT / "python", tmp_path / "python")
    (tmp_path / "harness").mkdir()
    shutil.copy2(ROOT / "harness" / "language.schema.json", tmp_path / "harness")  # where the copy's #:schema line finds it
    shutil.copytree(FAKE_PORTS / "broken-manifest", tmp_path / "broken")
    root = ("--root", str(tmp_path))
    assert cli.main([*root, "check", str(tmp_path / "python")], standalone_mode=False) == ExitCode.PASSED
    assert cli.main([*root, "check", str(tmp_path / "broken")], standalone_mode=False) == ExitCode.FAILED
    assert cli.main([*root, "check"], standalone_mode=False) == ExitCode.FAILED
    assert cli.main([*root, "new-language", "perl"], standalone_mode=False) == ExitCode.PASSED
    assert cli.main([*root, "check", str(tmp_path / "perl")], standalone_mode=False) == ExitCode.PASSED
    out, err = capsys.readouterr()
    assert "1 of 2 manifests sound, 1 broken" in err and f"created {tmp_path / 'perl' / 'language.toml'}" in out, out + err


def test_main_exits_with_the_code_the_command_returned(harness_main, tmp_path):
    shutil.copytree(FAKE_PORTS / "broken-manifest", tmp_path / "broken")
    assert harness_main("--root", str(tmp_path), "check")[0] == ExitCode.FAILED
    assert harness_main("--root", str(tmp_path), "new-language", "perl")[0] == ExitCode.PASSED
