"""The report: one run (or several merged) as data, whatever form it is written in, and the
registry of the forms it is written in. Each writer is a module of this package with a function
that makes its text (:class:`ReportForm`); adding a form is one module and one line in
:data:`WRITERS`, which also makes its command-line option (``--NAME FILE``), a choice of
``--format``, and has it published."""

from __future__ import annotations

import datetime
import importlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from harness import __version__
from harness.compare import Agreement, agreements, succeeded
from harness.model import Cell
from harness.settings import RunPlan

if TYPE_CHECKING:
    from collections.abc import Sequence

    from harness.port import Port, Source


Versions = dict[str, dict[str, str | None]]
"""Each port's interpreters' versions, by port and executable: None where a version cannot be read."""


def versions_said(answers: dict[str, dict[str, tuple[str | None, str]]]) -> Versions:
    """The versions of a gate's answers (``Gate.versions``), without why one says nothing."""
    return {name: {executable: said for executable, (said, _) in asked.items()} for name, asked in answers.items()}


def now() -> str:
    """The time now, as the report writes it: UTC, ISO 8601, to the second."""
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class PortInfo:
    """What a report records of a port: enough to show it without its manifest."""

    name: str
    summary: str
    methods: tuple[str, ...]
    versions: dict[str, str | None]
    manifest_error: str | None = None
    sources: tuple[Source, ...] = ()
    """The documents the port follows, as its manifest names them."""


@dataclass
class Report:
    """One run of ``compare`` (or several merged): when, where, with what plan and options, and every cell."""

    command: str
    started: str
    finished: str
    commit: str | None
    plan: RunPlan
    options: dict[str, Any]
    machine: dict[str, Any]
    ports: list[PortInfo]
    methods: list[str]
    cells: list[Cell]
    harness: str = __version__
    sources: list[dict[str, Any]] = field(default_factory=list)
    """For a merged report, the runs it was made from (each one's times, commit, plan, options, machine)."""
    missing: list[str] = field(default_factory=list)
    """For a merged report, each part of the plans that no report holds: a port, a shard, a cell."""
    interrupted: str | None = None
    """What stopped the run before its plan was done (``SIGTERM``), if anything: its cells are those that finished."""

    @property
    def agreement(self) -> list[Agreement]:
        """For each n and puzzle, which cells printed which digest."""
        return agreements(self.cells)

    @property
    def passed(self) -> bool:
        """Whether nothing planned is missing, every cell that ran passed and the ports agree."""
        return not self.missing and not self.interrupted and succeeded(self.cells, self.agreement)


def port_info(port: Port, versions: Versions) -> PortInfo:
    """What the report records of a port: its summary, methods, versions, manifest error and sources."""
    return PortInfo(port.name, port.summary, tuple(port.methods), dict(versions.get(port.name, {})), port.manifest_error, port.sources)


@dataclass(frozen=True)
class Listing:
    """What ``harness list`` shows: the ports, each one's interpreters' versions, and, by port, what
    it lacks here."""

    ports: Sequence[Port]
    versions: Versions
    missing: dict[str, str]


@runtime_checkable
class ReportForm(Protocol):
    """A writer's module: it makes its form's text of a report."""

    def report_text(self, report: Report) -> str:
        """The report in this form."""


@runtime_checkable
class ListingForm(ReportForm, Protocol):
    """A writer's module that also writes ``harness list``'s ports in its form."""

    def listing_text(self, listing: Listing) -> str:
        """The listed ports in this form."""


@dataclass(frozen=True)
class Writer:
    """A form a report is written in: ``--NAME FILE`` writes it to a file (``-``: to standard output,
    the table then going to standard error), as ``--format NAME`` does. ``module`` makes its text
    (:class:`ReportForm`, and :class:`ListingForm` where ``lists``), loaded only by a run that asks
    for it."""

    name: str
    module: str
    what: str
    help: str
    lists: bool = False
    """Whether ``harness list --format NAME`` writes the ports in this form."""

    def text(self, report: Report) -> str:
        """The report in this form."""
        module = importlib.import_module(self.module)
        if not isinstance(module, ReportForm):
            raise TypeError(f"{self.module} has no report_text(report), which a writer's module holds")
        text: str = module.report_text(report)
        return text

    def listing_text(self, listing: Listing) -> str:
        """The ports ``harness list`` shows, in this form (a writer that ``lists``)."""
        module = importlib.import_module(self.module)
        if not isinstance(module, ListingForm):
            raise TypeError(f"{self.module} has no listing_text(listing), which a writer that lists holds")
        text: str = module.listing_text(listing)
        return text


WRITERS: dict[str, Writer] = {
    writer.name: writer
    for writer in (
        Writer("json", "harness.report.json", "JSON report", "Write the JSON report to FILE ('-': standard output).", lists=True),
        Writer("junit", "harness.report.junit", "JUnit report", "Write JUnit XML to FILE: a suite a port, a test case a cell."),
        Writer("markdown", "harness.report.markdown", "Markdown report", "Write Markdown to FILE (for a CI step summary).", lists=True),
        Writer(
            "html", "harness.report.html", "HTML page",
            "Write one self-contained HTML page to FILE: every cell, replayed move by move on a drawn board.",
        ),
    )
}
"""The report's file forms, in the order --help lists their options."""
