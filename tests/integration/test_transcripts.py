"""The documents' sessions replayed in real toplevels; and the replay itself, shown to catch an answer
that changed, a toplevel that dies, and a missing interpreter."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import ROOT, harness_here
from harness.discover import discover
from harness.model import Outcome
from harness.transcripts import TRANSCRIPTS, load, replay
from harness.transcripts import discover as discover_transcripts

TRANSCRIPT_FILES = sorted((ROOT / TRANSCRIPTS).glob("*.toml"))


def test_every_document_has_its_transcript():
    assert [path.stem for path in TRANSCRIPT_FILES] == [
        "comp9021", "simply-logical",
        "tower-of-hanoi-notes-bash", "tower-of-hanoi-notes-postgresql", "tower-of-hanoi-notes-python",
    ]


@pytest.mark.parametrize("path", TRANSCRIPT_FILES, ids=lambda path: path.stem)
def test_transcript_replays_in_a_real_toplevel(path, database):
    transcript = load(path)
    results = replay(transcript, ROOT, database, discover(ROOT))
    assert len(results) == len(transcript.steps) > 0
    for result in results:
        assert result.outcome is Outcome.PASS, (result.step.query, result.detail, result.diff())


def scratch_root(tmp_path: Path, name: str, text: str) -> Path:
    """A project root with one transcript and the real Prolog port beside it."""
    (tmp_path / TRANSCRIPTS).mkdir(parents=True)
    (tmp_path / TRANSCRIPTS / f"{name}.toml").write_text(text)
    (tmp_path / "prolog").symlink_to(ROOT / "prolog")
    return tmp_path


def test_an_answer_that_changed_fails_with_a_diff(tmp_path, database):
    """The post's own two-disc answer, recorded as it prints it, is caught."""
    text = (ROOT / TRANSCRIPTS / "simply-logical.toml").read_text()
    wrong = text.replace(
        'note = "The post\'s answer ends with middle to left, a slip: the code gives middle to right."\n'
        'answer = """\nN = 2,\nMoves = [left to middle, left to right, middle to right] .',
        'answer = """\nN = 2,\nMoves = [left to middle, left to right, middle to left] .',
    )
    assert wrong != text
    root = scratch_root(tmp_path, "simply-logical", wrong)
    [transcript] = discover_transcripts(root)
    results = replay(transcript, root, database, [])
    assert [result.outcome for result in results] == [Outcome.PASS] * 5 + [Outcome.FAIL] + [Outcome.PASS] * 3
    assert results[5].diff()[-2:] == [
        "-Moves = [left to middle, left to right, middle to left] .",
        "+Moves = [left to middle, left to right, middle to right] .",
    ]


def replay_in_swipl(tmp_path: Path, database, steps: str) -> list:
    """The steps, in TOML, replayed at a real SWI-Prolog toplevel with the Prolog port loaded."""
    root = scratch_root(tmp_path, "session", """
title = "a session at the Prolog toplevel"
command = ["swipl", "-q", "-l", "hanoi.pl"]
cwd = "prolog"
prompt = '\\d+ \\?- '
continuation = '\\|: '
""" + steps)
    [transcript] = discover_transcripts(root)
    return replay(transcript, root, database, [])


def test_a_toplevel_that_dies_is_an_error_on_the_remaining_steps(tmp_path, database):
    results = replay_in_swipl(tmp_path, database, """
[[step]]
query = "X = 1."
answer = "X = 1."

[[step]]
query = "halt."
answer = ""

[[step]]
query = "X = 2."
answer = "X = 2."
""")
    assert [result.outcome for result in results] == [Outcome.PASS, Outcome.ERROR, Outcome.ERROR]
    assert results[1].detail.startswith("swipl ended")


def test_a_query_the_toplevel_answers_before_its_last_line_fails_untyped(tmp_path, database):
    """A query of several lines waits for a continuation prompt after each; a prompt instead means
    the toplevel took the query as ended, and the rest is not typed."""
    results = replay_in_swipl(tmp_path, database, '''
[[step]]
query = """
X = 1.
Y = 2."""
answer = "Y = 2."

[[step]]
query = "Z = 3."
answer = "Z = 3."
''')
    assert [result.outcome for result in results] == [Outcome.FAIL, Outcome.PASS]
    assert results[0].got == "X = 1."
    assert results[0].detail == "the toplevel answered after the line 'X = 1.'; the rest of the query was not typed"


def test_a_missing_interpreter_skips_with_how_to_install(tmp_path, database):
    root = scratch_root(tmp_path, "missing", """
title = "an interpreter that is not installed"
command = ["no-such-prolog-here"]
install = "apt-get install no-such-prolog"
prompt = '\\?- '

[[step]]
query = "true."
answer = "true."
""")
    [transcript] = discover_transcripts(root)
    [result] = replay(transcript, root, database, [])
    assert (result.outcome, result.detail) == (
        Outcome.SKIPPED, "no-such-prolog-here not found on PATH; apt-get install no-such-prolog"
    )


def test_transcripts_command():
    done = harness_here("transcripts", "simply-logical")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "9 steps: 9 pass" in done.stdout
    assert "a slip: the code gives middle to right" in done.stdout
    unknown = harness_here("transcripts", "no-such-document")
    assert unknown.returncode == 2
    assert "unknown transcript 'no-such-document'" in unknown.stderr
