"""What a command is given and what its run holds while it runs: the :class:`Session` the group
makes (the ports and the folder they are in), its shared options parsed once (:func:`parsed`), and
the gate it opens (walls, PostgreSQL, secrets, builds), once what an earlier, killed run left
behind is swept."""

from __future__ import annotations

import functools
import inspect
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from harness.cli.options import Outputs, run_options
from harness.extras import lacking
from harness.model import visible
from harness.runners.postgres import SERVERS

if TYPE_CHECKING:
    from harness.gate import Gate
    from harness.port import Port
    from harness.run import RunOptions
    from harness.settings import Settings


@dataclass(frozen=True)
class Session:
    """What every command is given, made once by the group: the folder of the ports, and the manifests
    of the ports in it (none only for a command that needs none). A port's manifest is read when a
    command first asks for the port, so that a run of one port reads one manifest, not every one."""

    root: Path
    shown_root: str
    """The root as a rerun line names it: as --root or HANOI_ROOT gave it, else relative to the current folder."""
    manifests: list[Path]
    _read: dict[Path, Port] = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def names(self) -> list[str]:
        """Every port's name, in order, known without reading a manifest."""
        from harness.discover import port_name

        return [port_name(manifest) for manifest in self.manifests]

    @property
    def ports(self) -> list[Port]:
        """Every port, in order."""
        return [self._port(manifest) for manifest in self.manifests]

    def chosen(self, settings: Settings) -> list[Port]:
        """The ports the settings chose, in their order: only their manifests are read."""
        from harness.discover import port_name

        return [self._port(manifest) for manifest in self.manifests if port_name(manifest) in settings.ports]

    def port(self, name: str) -> Port:
        """The port of that name (one of :attr:`names`)."""
        from harness.discover import port_name

        return self._port(next(manifest for manifest in self.manifests if port_name(manifest) == name))

    def _port(self, manifest: Path) -> Port:
        """The port a manifest describes, read once."""
        from harness.discover import load_port

        if manifest not in self._read:
            self._read[manifest] = load_port(manifest)
        return self._read[manifest]

    def gate(self, options: RunOptions, ports: list[Port] | None = None) -> Gate:
        """The run's gate for the session's ports, or those given: its walls, and its PostgreSQL,
        not yet started (it starts when a cell first needs it; none, and no PostgreSQL client
        loaded, for ports of which none runs in PostgreSQL); what an earlier, killed run left behind
        is swept first. The DSN's password is a secret: a port that prints it has it masked in every report."""
        from harness.gate import Gate
        from harness.runners.walls import platform_problem, walls_class

        ports = self.ports if ports is None else ports
        problem = platform_problem() or tmpdir_problem()
        if problem:
            raise click.ClickException(problem)
        sweep_leftovers()
        settings = options.settings
        in_engine = SERVERS[settings.backend].uses_engine and any(port.query for port in ports) and not lacking("containers")
        if walls_class(settings.isolation).uses_engine or in_engine:
            sweep_old_containers()
        return Gate(settings, options.dsn, ports)


def parsed(command: Callable[..., int]) -> Callable[..., int]:
    """The command given its shared options parsed once, typed: where it takes ``options``, a
    :class:`RunOptions`; where it takes ``outputs``, where its report goes (``--format``, ``--NAME
    FILE``). Its own options reach it as they are; the shared ones by these alone."""
    wanted = inspect.signature(command).parameters

    @functools.wraps(command)
    def parse(session: Session, /, **given: Any) -> int:
        own = {name: value for name, value in given.items() if name in wanted}
        if "options" in wanted:
            own["options"] = run_options(session.names, given)
        if "outputs" in wanted:
            own["outputs"] = Outputs.given(given)
        return command(session, **own)

    return parse


def tmpdir_problem() -> str | None:
    """Why the run's temporary folder, TMPDIR, cannot be used, if it cannot. Every program the run
    starts gets it as its own (the sandbox mounts it; a port, a compiler and PostgreSQL write there),
    where Python alone would quietly take /tmp instead."""
    tmpdir = os.environ.get("TMPDIR")
    if not tmpdir:
        return None
    if not Path(tmpdir).is_dir():
        why = "which is not a folder" if Path(tmpdir).exists() else "which does not exist"
    elif not os.access(tmpdir, os.W_OK | os.X_OK):
        why = "a folder this user may not write in"
    else:
        return None
    return visible(
        f"TMPDIR is {tmpdir}, {why}: the run and every program it starts keep their temporary files there; make it a folder you may write, or unset it"
    )


@functools.cache
def sweep_leftovers() -> None:
    """Remove what an earlier run that was killed outright (SIGKILL) could not, and say so: once, by
    the first gate a command opens (a command that runs nothing, such as check, sweeps nothing)."""
    from harness.runners.sweep import sweep_orphans, sweep_servers

    servers, ports = sweep_servers(), sweep_orphans()
    left = [f"{len(servers)} PostgreSQL server{'s' * (len(servers) != 1)} ({', '.join(map(str, servers))})"] * bool(servers)
    say_removed(left + [f"{ports} port process{'es' * (ports != 1)}"] * bool(ports))


@functools.cache
def sweep_old_containers() -> None:
    """The same for containers, looked for only by a run that uses the Docker engine itself: the rest
    need not wait for an engine."""
    from harness.runners.modes.container import sweep_containers

    containers = sweep_containers()
    say_removed([f"{containers} container{'s' * (containers != 1)}"] * bool(containers))


def say_removed(left: list[str]) -> None:
    """Say on standard error what was removed of an earlier run's leftovers, if anything."""
    if left:
        click.echo(f"harness: removed what an earlier, killed run left behind: {' and '.join(left)}", err=True)
