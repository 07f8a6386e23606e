"""TODO listing"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.table import Table

from harness.discover import Port
from harness.model import visible
from harness.report import Versions
from harness.report.markdown import _md, _md_code
from harness.report.summary import one_line
from harness.report.terminal import literal


def list_to_json(ports: Sequence[Port], versions: Versions, missing: dict[str, str]) -> dict[str, Any]:
    """The ports as data, for CI: what each needs installed (``debian``: the packages its manifest's
    [[requires]] name), whether it runs in PostgreSQL."""
    return {
        "ports": [
            {
                "name": port.name,
                "summary": port.summary,
                "methods": list(port.methods),
                "postgresql": port.query is not None,
                "requires": [
                    {"executable": req.executable, "install": req.advice, "version": versions.get(port.name, {}).get(req.executable)}
                    for req in port.requires
                ],
                "debian": [package for req in port.requires for package in req.debian.split()],
                "missing": missing.get(port.name),
                "problem": port.manifest_error,
            }
            for port in ports
        ]
    }


def render_list(console: Console, form: str, ports: Sequence[Port], versions: Versions, missing: dict[str, str]) -> None:
    """The ports, with their methods and what they need, in one of FORMATS."""
    if form == "json":
        console.out(json.dumps(list_to_json(ports, versions, missing), indent=2), highlight=False)
        return

    def found(port: Port) -> str:
        if port.manifest_error:
            return f"manifest problem: {port.manifest_error}"
        if port.name in missing:
            return f"missing: {missing[port.name]}"
        return "found " + ", ".join(v or f"{k} (version unknown)" for k, v in versions[port.name].items())

    if form == "plain":
        for port in ports:
            console.out(f"{visible(port.name)}: {', '.join(port.methods)}; {one_line(found(port))}", highlight=False)
    elif form == "markdown":
        console.out(ports_markdown(ports), highlight=False)
    else:
        table = Table(title="Ports", title_justify="left")
        for column in ("port", "methods", "interpreter"):
            table.add_column(column)
        for port in ports:
            style = "magenta" if port.manifest_error else "yellow" if port.name in missing else "green"
            table.add_row(f"{literal(port.name)}\n[dim]{literal(port.summary)}[/]", ", ".join(port.methods), f"[{style}]{literal(found(port))}[/]")
        console.print(table)


def ports_markdown(ports: Sequence[Port]) -> str:
    """The table of ports from their manifests alone, nothing of this machine's: README.md shows it."""
    lines = ["| port | methods | summary | needs |", "| --- | --- | --- | --- |"]
    for port in ports:
        needs = [req.executable for req in port.requires] + ["PostgreSQL"] * (port.query is not None)
        summary = f"manifest problem: {port.manifest_error}" if port.manifest_error else port.summary
        lines.append(f"| {_md_code(port.name + '/')} | {', '.join(port.methods)} | {_md(summary)} | {_md(', '.join(needs))} |")
    return "\n".join(lines)
