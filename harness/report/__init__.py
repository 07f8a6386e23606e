"""The report: one run (or several merged) as data, whatever form it is written in, and the
registry of the forms it is written in. Each writer is a module of this package with a function
that makes its text (:class:`ReportForm`); adding a form is one module and one line in
:data:`WRITERS`, which also makes its command-line option (``--NAME FILE``), a choice of
``--format``, and has it published."""

from __future__ import annotations

import datetime
import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

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
    asked: bool = True
    """Whether the ports' version commands ran (``--verbose``); without, every version is None."""


Document = Literal["report", "listing", "figures"]
"""What a writer writes: a run's report (every writer), ``harness list``'s ports, ``harness bench``'s figures."""


@runtime_checkable
class ReportForm(Protocol):
    """A writer's module: it makes its form's text of a report."""

    def report_text(self, report: Report) -> str:
        """The report in this form."""


@runtime_checkable
class ListingForm(Protocol):
    """A writer's module that also writes ``harness list``'s ports in its form."""

    def listing_text(self, listing: Listing) -> str:
        """The listed ports in this form."""


@runtime_checkable
class FiguresForm(Protocol):
    """A writer's module that also writes ``harness bench``'s figures in its form."""

    def figures_text(self, figures: dict[str, Any]) -> str:
        """The figures (as their JSON holds them) in this form."""


FORMS: dict[Document, type] = {"report": ReportForm, "listing": ListingForm, "figures": FiguresForm}
"""The protocol a writer's module keeps for each document it writes, whose one function is ``DOCUMENT_text``."""


@dataclass(frozen=True)
class Writer:
    """A form a document is written in: ``--NAME FILE`` writes it to a file (``-``: to standard
    output, the table then going to standard error), as ``--format NAME`` does. ``module`` makes its
    text of each of its ``documents`` (:data:`FORMS`), loaded only by a run that asks for it."""

    name: str
    module: str
    what: str
    help: str
    documents: tuple[Document, ...] = ("report",)
    form: str = ""
    """The form's name in a message about another document than the report: ``JSON figures``."""

    def text(self, report: Report) -> str:
        """The report in this form."""
        return self._function("report")(report)

    def listing_text(self, listing: Listing) -> str:
        """The ports ``harness list`` shows, in this form."""
        return self._function("listing")(listing)

    def figures_text(self, figures: dict[str, Any]) -> str:
        """``harness bench``'s figures in this form."""
        return self._function("figures")(figures)

    def _function(self, document: Document) -> Callable[[Any], str]:
        """The module's function that writes ``document``, the module held to that document's protocol."""
        module = importlib.import_module(self.module)
        if document not in self.documents or not isinstance(module, FORMS[document]):
            raise TypeError(f"{self.module} has no {document}_text({document}), which a writer of {document} holds")
        function: Callable[[Any], str] = getattr(module, f"{document}_text")
        return function


def writing(document: Document) -> tuple[str, ...]:
    """The writers that write ``document``, by name, in the registry's order."""
    return tuple(name for name, writer in WRITERS.items() if document in writer.documents)


WRITERS: dict[str, Writer] = {
    writer.name: writer
    for writer in (
        Writer(
            "json", "harness.report.json", "JSON report", "Write the JSON report to FILE ('-': standard output).",
            documents=("report", "listing", "figures"), form="JSON",
        ),
        Writer("junit", "harness.report.junit", "JUnit report", "Write JUnit XML to FILE: a suite a port, a test case a cell."),
        Writer(
            "markdown", "harness.report.markdown", "Markdown report", "Write Markdown to FILE (for a CI step summary).",
            documents=("report", "listing", "figures"), form="Markdown",
        ),
        Writer(
            "html", "harness.report.html", "HTML page",
            "Write one self-contained HTML page to FILE: every cell, replayed move by move on a drawn board.",
        ),
    )
}
"""The report's file forms, in the order --help lists their options."""
