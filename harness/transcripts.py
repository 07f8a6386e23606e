"""Replay the documents' interactive sessions in a real toplevel (swipl, psql, python3 -i) and check
that each answer is still what the transcript records, so the documentation cannot drift from the code.

A transcript is a TOML file in docs/transcripts/, one per session of a document: how to start the
toplevel, what its prompt looks like, and the steps, each a query typed as the document types it
and the answer the toplevel gives. A query of several lines is typed a line at a time, each line
but the last answered by a continuation prompt; a line that is only U+0004 ("\u0004" in TOML)
ends the input, as Ctrl-D does. Answers are compared line by line with line endings and trailing
spaces removed.
"""

from __future__ import annotations

import collections
import difflib
import os
import re
import shutil
import time
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pexpect
from rich.console import Console

from harness.errors import TranscriptError, Unavailable
from harness.model import Outcome
from harness.port import Port
from harness.report.terminal import STYLE, diff_markup, literal
from harness.runners.postgres.connection import psql_executable
from harness.runners.postgres.database import Database

TRANSCRIPTS = Path("docs") / "transcripts"
QUIET_SECONDS = 0.5
CTRL_D = "\x04"


@dataclass(frozen=True)
class Step:
    """One query of a session, typed as the document types it, and the answer the document records."""
    query: str
    answer: str
    note: str = ""


@dataclass(frozen=True)
class Transcript:
    """One document's session: ``command`` runs in ``cwd`` (both relative to the project root);
    ``{psql}`` and ``{dsn}`` in it stand for a psql client and the run's PostgreSQL, where the
    ``postgresql`` port (a folder name) has been loaded."""

    name: str
    title: str
    command: tuple[str, ...]
    cwd: str
    prompt: str
    steps: tuple[Step, ...]
    continuation: str = ""
    pending: str = ""
    env: dict[str, str] = field(default_factory=dict)
    postgresql: str = ""
    install: str = ""


@dataclass
class StepResult:
    """What replaying one step gave: its outcome, what the toplevel answered, and why, where it did not pass."""
    step: Step
    outcome: Outcome
    got: str = ""
    detail: str = ""

    def diff(self) -> list[str]:
        """The recorded answer against the toplevel's, as a unified diff."""
        return list(difflib.unified_diff(
            self.step.answer.splitlines(), self.got.splitlines(), "recorded", "toplevel", lineterm="", n=2,
        ))


def discover(root: Path) -> list[Transcript]:
    """Every transcript in the checkout's docs/transcripts, by name."""
    return [load(path) for path in sorted((root / TRANSCRIPTS).glob("*.toml"))]


def load(path: Path) -> Transcript:
    """One transcript file; :class:`TranscriptError` naming it if it cannot be used."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        steps = tuple(Step(str(s["query"]), str(s["answer"]).strip("\n"), str(s.get("note", ""))) for s in data["step"])
        return Transcript(
            name=path.stem, title=str(data["title"]), command=tuple(data["command"]), cwd=str(data.get("cwd", ".")),
            prompt=str(data["prompt"]), steps=steps, continuation=str(data.get("continuation", "")),
            pending=str(data.get("pending", "")), env={k: str(v) for k, v in data.get("env", {}).items()},
            postgresql=str(data.get("postgresql", "")), install=str(data.get("install", "")),
        )
    except (OSError, tomllib.TOMLDecodeError, KeyError, TypeError) as error:
        raise TranscriptError(f"{path}: {error!r}") from None


def replay(transcript: Transcript, root: Path, database: Database | None, ports: list[Port], timeout: float = 60) -> list[StepResult]:
    """Type each step into a fresh toplevel; one result a step. A toplevel that cannot start, dies or
    goes quiet makes the remaining steps errors; a missing executable skips them."""
    try:
        argv = _argv(transcript, database, ports)
    except Unavailable as error:
        return [StepResult(step, Outcome.ERROR, detail=str(error)) for step in transcript.steps]
    if shutil.which(argv[0]) is None:
        detail = f"{argv[0]} not found on PATH" + (f"; {transcript.install}" if transcript.install else "")
        return [StepResult(step, Outcome.SKIPPED, detail=detail) for step in transcript.steps]
    env = {**os.environ, "TERM": "dumb", "COLUMNS": "200", **transcript.env}
    session = pexpect.spawn(argv[0], argv[1:], cwd=root / transcript.cwd, env=env, encoding="utf-8", timeout=timeout)
    results = []
    try:
        session.expect(transcript.prompt)
        for step in transcript.steps:
            typed, early = _type(session, transcript, step.query)
            if early is not None:
                detail = f"the toplevel answered after the line {typed!r}; the rest of the query was not typed"
                results.append(StepResult(step, Outcome.FAIL, _normalise(early, typed), detail))
                continue
            got = _normalise(_answer(session, transcript, timeout), typed)
            outcome = Outcome.PASS if got == step.answer else Outcome.FAIL
            results.append(StepResult(step, outcome, got))
    except (pexpect.EOF, pexpect.TIMEOUT) as error:
        what = "ended" if isinstance(error, pexpect.EOF) else f"gave no prompt within {timeout:g} s"
        tail = _normalise(session.before or "", "")[-500:]
        detail = f"{transcript.command[0]} {what}" + (f"; it last printed:\n{tail}" if tail else "")
        results += [StepResult(step, Outcome.ERROR, detail=detail) for step in transcript.steps[len(results):]]
    finally:
        session.close(force=True)
    return results


def _argv(transcript: Transcript, database: Database | None, ports: list[Port]) -> list[str]:
    if not transcript.postgresql:
        return list(transcript.command)
    port = next((port for port in ports if port.name == transcript.postgresql and port.query), None)
    if port is None or database is None:
        raise Unavailable(f"the transcript needs the {transcript.postgresql} port, which is not here")
    values = {"{psql}": psql_executable(), "{dsn}": database.port_dsn(port)}
    return [values.get(part, part) for part in transcript.command]


def _type(session: pexpect.spawn, transcript: Transcript, query: str) -> tuple[str, str | None]:
    """Type the query a line at a time; the line typed last, and None once it is all typed or, if
    the toplevel answers with its prompt before the last line, what it printed: the rest is not typed."""
    lines = query.split("\n")
    patterns = [transcript.prompt, *([transcript.continuation] if transcript.continuation else [])]
    for number, line in enumerate(lines, 1):
        if line == CTRL_D:
            session.sendeof()
        else:
            session.sendline(line)
        if number < len(lines) and session.expect(patterns) == 0:
            return line, session.before
    return lines[-1], None


def _answer(session: pexpect.spawn, transcript: Transcript, timeout: float) -> str:
    """Everything the toplevel prints until its next prompt; a continuation prompt is answered with
    an empty line, an answer that waits for the user (``pending``) with Enter."""
    patterns = [transcript.prompt, *([transcript.continuation] if transcript.continuation else []), pexpect.TIMEOUT]
    printed = ""
    deadline = time.monotonic() + timeout
    while True:
        index = session.expect(patterns, timeout=QUIET_SECONDS)
        if patterns[index] is pexpect.TIMEOUT:  # what came so far stays in the buffer, unread
            if transcript.pending and re.search(transcript.pending, session.before):
                session.send("\r")
            elif time.monotonic() > deadline:
                raise pexpect.TIMEOUT(f"no prompt after {timeout:g} s")
            continue
        printed += session.before
        if index == 0:
            return str(printed)
        printed += session.after
        session.sendline("")


def _normalise(text: str, typed: str) -> str:
    """The answer as a document would show it: no carriage returns, no trailing spaces, no echo of
    the line typed, no blank lines around it."""
    lines = [line.rstrip() for line in text.replace("\r", "").split("\n")]
    if lines and lines[0] == typed.rstrip():
        lines = lines[1:]
    return "\n".join(lines).strip("\n")


def render_transcripts(console: Console, replays: Sequence[tuple[Transcript, list[StepResult]]]) -> None:
    """Each document's session, a line a step; the answer's diff where it changed, the reason where
    the session could not run."""
    mark = {Outcome.PASS: "✓", Outcome.FAIL: "✗", Outcome.ERROR: "!", Outcome.SKIPPED: "-"}
    for transcript, results in replays:
        console.print(f"[bold]{literal(transcript.title)}[/] [dim]({transcript.name})[/]")
        for result in results:
            console.print(f"  [{STYLE[result.outcome]}]{mark[result.outcome]}[/] {literal(result.step.query)}")
            if result.step.note:
                console.print(f"      [dim]{literal(result.step.note)}[/]")
            if result.outcome is Outcome.FAIL:
                for line in diff_markup(result.diff()):
                    console.print(f"      {line}")
        details = dict.fromkeys(result.detail for result in results if result.detail)
        for detail in details:
            console.print(f"    {literal(detail)}", style="magenta")
    counts = collections.Counter(result.outcome for _, results in replays for result in results)
    summary = ", ".join(f"{counts[outcome]} {outcome.value}" for outcome in Outcome if counts[outcome])
    console.print(f"\n{len(replays)} transcripts, {sum(counts.values())} steps: {summary or 'none'}.")
