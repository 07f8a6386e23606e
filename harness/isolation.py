"""Where a cell's program runs, and what holds it there: as a plain subprocess, in a bubblewrap
sandbox, or in its port's container. Every mode keeps the same limits (memory, processes, the
deadline: limits.py), and every mode's running cell is a :class:`~harness.runner.Runner`.

- ``subprocess``: the program as the user who runs the harness; only the limits hold it.
- ``sandbox``: bubblewrap, with no network, the whole file system read-only, the port's folder
  and its build read-only where they are, a private writable /tmp, a process namespace of its own,
  and death with the harness.
- ``container``: ``docker exec`` in a container of the port's image (containers.py).
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from harness.build import BUILD_MOUNT, build
from harness.discover import Built, Port, Program, Requirement
from harness.environment import port_environment
from harness.errors import StartFailed
from harness.limits import Limits
from harness.run import PortProcess, version
from harness.runner import Runner
from harness.settings import Settings

if TYPE_CHECKING:
    from harness.containers import PortContainers

RUNTIME_FOLDERS = (Path("/run"), Path("/var/run"))
"""Where a machine keeps its services' sockets; empty in the sandbox (/var/run is often a link to /run)."""
BWRAP = "bwrap"
BWRAP_INSTALL = "Debian: apt-get install bubblewrap"
USER_NAMESPACES = (
    "where unprivileged user namespaces are restricted (Ubuntu 24.04: kernel.apparmor_restrict_unprivileged_userns=1), "
    "allow them with sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0, or give bwrap an AppArmor profile "
    "that allows userns (README: Running as a user who is not root)"
)


@dataclass
class Isolation:
    """How the run isolates its cells: the mode, the limits of each cell, and, for containers, the
    run's containers (closed with the run)."""

    mode: str = "subprocess"
    limits: Limits = field(default_factory=Limits)
    containers: PortContainers | None = None

    def __post_init__(self) -> None:
        if self.mode == "container" and self.containers is None:
            from harness.containers import PortContainers  # the Docker SDK, only for a run that uses it

            self.containers = PortContainers(self.limits)

    def refusal(self) -> str | None:
        """Why no cell can run in this mode here, if none can."""
        return sandbox_problem() if self.mode == "sandbox" else None

    def start(self, port: Port, program: Program, method: str, n: int, settings: Settings) -> Runner:
        """The cell's program running (built first, if it must be); a
        :class:`~harness.errors.CellError` if it cannot be started."""
        try:
            return self._start(port, program, method, n, settings)
        except OSError as error:  # a cache folder that cannot be written, a port folder that is gone
            raise StartFailed(f"could not start the port's program: {error}") from None

    def _start(self, port: Port, program: Program, method: str, n: int, settings: Settings) -> Runner:
        built = self.build(port, program, method, n, settings.build_seconds)
        if self.containers is not None:
            return self.containers.cell(port, program, method, n, settings.timeout, built)
        argv, stdin = program.argv(method, n, built), program.stdin(method, n)
        if self.mode == "sandbox":
            argv = sandboxed(argv, port.folder, readable=[port.folder, *([built.folder.parent] if built else [])])
            return PortProcess(argv, port.folder, settings.timeout, stdin, limits=self.limits, env=held_environment(program))
        return PortProcess(argv, port.folder, settings.timeout, stdin, limits=self.limits)

    def build(self, port: Port, program: Program, method: str, n: int, seconds: float) -> Built | None:
        """The cell's program built, or None if it needs no build. The build runs as the cells do (in
        the sandbox, or in containers of the port's image, if they do) with their limits, in its
        private build folder, which alone it may write."""
        if self.containers is not None:
            toolchain = self.containers.image(port) if program.build else ""
            return build(port, program, method, n, seconds, self.containers.builder(port, program), toolchain, inside=BUILD_MOUNT)

        def start(argv: list[str], folder: Path, left: float) -> Runner:
            if self.mode == "sandbox":
                argv = sandboxed(argv, folder, readable=[port.folder], writable=[folder.parent])
                return PortProcess(argv, folder, left, limits=self.limits, env=held_environment(program))
            return PortProcess(argv, folder, left, limits=self.limits)

        return build(port, program, method, n, seconds, start)

    def version(self, port: Port, requirement: Requirement) -> tuple[str | None, str]:
        """What the requirement's version command says where the port runs, here or in its image, and
        why it says nothing, if it does not."""
        if self.containers is None:
            return version(requirement)
        return self.containers.version(port, list(requirement.version))

    def close(self) -> None:
        """Remove the run's containers, if it has any."""
        if self.containers is not None:
            self.containers.close()

    def __enter__(self) -> Isolation:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


@functools.cache
def sandbox_problem() -> str | None:
    """Why the sandbox cannot run here, if it cannot: bubblewrap is missing, or cannot make the
    namespaces it needs (as a user who is not root where the kernel or AppArmor forbids them), which
    only trying shows."""
    if shutil.which(BWRAP) is None:
        return f"the sandbox needs bubblewrap, and {BWRAP} is not on PATH; {BWRAP_INSTALL}"
    try:
        tried = subprocess.run(
            sandboxed(["true"], Path("/"), readable=[]), stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"{BWRAP} could not be run: {error}"
    if tried.returncode == 0:
        return None
    said = next(iter(tried.stderr.strip().splitlines()), f"exit code {tried.returncode}")
    return f"{BWRAP} cannot make a sandbox here ({said}); {USER_NAMESPACES}"


def held_environment(program: Program) -> dict[str, str]:
    """The environment of a program in the sandbox: the allowlist (environment.py), with HOME its
    private /tmp and TMPDIR the harness's, which is private in the sandbox too (and tells the run's
    processes from another's: run.py)."""
    return port_environment(program.env, home="/tmp", tmpdir=os.environ.get("TMPDIR") or "/tmp")


def sandboxed(argv: list[str], folder: Path, readable: list[Path], writable: Sequence[Path] = ()) -> list[str]:
    """The command under bubblewrap, run in ``folder``: it sees the machine read-only, ``readable``
    (the port's folder, its build) where they are and read-only too, ``writable`` (a build's own
    folder) where it is and writable, a private /tmp (and TMPDIR) of its own, empty /run and
    /var/run (no host's socket: the Docker engine's, D-Bus), no network, no other process."""
    private = [Path("/tmp"), *(run for run in RUNTIME_FOLDERS if run.is_dir() and not run.is_symlink())]
    tmpdir = os.environ.get("TMPDIR")
    if tmpdir and Path(tmpdir) != Path("/tmp"):
        private.append(Path(tmpdir))
    shown = [*readable, *writable]
    sealed = list(dict.fromkeys(filter(None, (_sealed(path, private) for path in shown))))
    tmpfs: list[tuple[Path, tuple[str, ...]]] = [(path, ("--tmpfs", str(path))) for path in [*private, *sealed]]
    binds: list[tuple[Path, tuple[str, ...]]] = [
        *((path, ("--ro-bind", str(path), str(path))) for path in readable),
        *((path, ("--bind", str(path), str(path))) for path in writable),
    ]
    # Each mount after those that hold it (a stable sort: a tmpfs before a bind at the same depth), so
    # none hides another: a TMPDIR or a build inside the port's folder stays private and writable, or
    # readable, as it would anywhere else.
    mounts = sorted(tmpfs + binds, key=lambda mount: len(mount[0].parts))
    return [
        BWRAP, "--die-with-parent", "--unshare-all", "--new-session",
        "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
        *(part for _, arguments in mounts for part in arguments),
        *(part for path in sealed for part in ("--remount-ro", str(path))),
        "--chdir", str(folder), "--", *argv,
    ]


def _sealed(path: Path, private: list[Path]) -> Path | None:
    """Where ``path`` lies inside a private /tmp (a checkout under /tmp, say), the folder just below
    that /tmp which leads to it: an empty read-only tmpfs there keeps what surrounds ``path`` as
    read-only as the rest of the machine, and the host's other files in /tmp out of sight."""
    inside = [tmp for tmp in private if path.is_relative_to(tmp) and path != tmp]
    if not inside:
        return None
    tmp = max(inside, key=lambda tmp: len(tmp.parts))
    top = tmp / path.relative_to(tmp).parts[0]
    return top if top != path else None
