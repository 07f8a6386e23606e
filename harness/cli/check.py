"""``harness check``: the manifests alone, for a commit hook or an editor; nothing is run or started."""

from __future__ import annotations

import os
from pathlib import Path

import click

from harness.cli.group import cli, examples
from harness.cli.session import Session
from harness.errors import ExitCode
from harness.model import visible


@cli.command(epilog=examples("harness check", "harness check python perl/language.toml"))
@click.argument("paths", nargs=-1, metavar="[PATH]...", type=click.Path(exists=True, path_type=Path))
@click.pass_obj
def check(session: Session, /, paths: tuple[Path, ...]) -> int:
    """Check manifests, and nothing else: every key, placeholder, pattern and [[requires]], as a run
    reads them, and a port's Containerfile as its image's build reads it, without running, building
    or asking anything (for a commit hook or an editor).
    A PATH is a language.toml, a port's folder, or a folder of ports; none: every port under --root.
    Every fault of every manifest and recipe is named in one run, one a line, FILE:LINE: why.
    Exit 0 when all are sound, 1 otherwise."""
    from harness.discover import MANIFEST, load_port, schema_line_fault
    from harness.recipe import recipe_problem

    given = paths or (Path(os.path.relpath(session.root)),)
    manifests: dict[Path, None] = {}  # in order, each once
    for path in given:
        if path.is_file() and path.name != MANIFEST:
            raise click.UsageError(f"{visible(str(path))} is not a {MANIFEST}: give a manifest, a port's folder or a folder of ports")
        inside = path / MANIFEST
        manifests.update(dict.fromkeys([path] if path.is_file() else [inside] if inside.is_file() else sorted(path.glob(f"*/{MANIFEST}"))))
    if not manifests:
        raise click.UsageError(f"no manifests in {', '.join(map(str, given))}: a port is a folder with a {MANIFEST}")
    broken = [
        faults for manifest in manifests
        if (faults := (*load_port(manifest).manifest_faults, *filter(None, [schema_line_fault(manifest), recipe_problem(manifest.parent)])))
    ]
    for fault in (fault for faults in broken for fault in faults):
        click.echo(visible(fault))
    count = len(manifests)
    click.echo(f"{count - len(broken)} of {count} manifest{'s' * (count != 1)} sound" + (f", {len(broken)} broken" if broken else ""), err=bool(broken))
    return ExitCode.of(not broken)
