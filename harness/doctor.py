"""What the ports need to run: each executable their manifests require, which ports need it, whether
it is here, and how to get it; and, where this machine can, getting it (Debian's apt as root or
through sudo, Homebrew on macOS), so that set-up reads the manifests instead of a list kept by hand."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass

from harness.errors import DoctorError
from harness.port import Port, Requirement

APT_LOCK_SECONDS = 600
"""How long apt waits for another apt (the machine's own updates, an install beside this one) to let go of its lock."""


@dataclass(frozen=True)
class Need:
    """One executable, the ports that need it, and whether it is on PATH."""

    requirement: Requirement
    ports: tuple[str, ...]

    @property
    def found(self) -> bool:
        """Whether the executable is on PATH."""
        return self.requirement.found


def needs(ports: Iterable[Port]) -> list[Need]:
    """Every executable the ports require, once each, in the order first met, with who needs it."""
    by_executable: dict[str, tuple[Requirement, list[str]]] = {}
    for port in ports:
        for requirement in port.requires:
            _, names = by_executable.setdefault(requirement.executable, (requirement, []))
            names.append(port.name)
    return [Need(requirement, tuple(names)) for requirement, names in by_executable.values()]


def install(missing: list[Requirement]) -> list[list[str]]:
    """The commands that install ``missing`` here, run one after another; the commands run. The
    packages are names the manifest's parser has checked against each installer's grammar, and they
    come after ``--``: a manifest's text is never an option to the installer. apt reads a name it
    does not know as a pattern (``lib.+``, ``zlib1g.de``) or an action (``sudo-``), so it is given
    only the names its lists hold exactly. Where the installer refuses them together (one package it
    does not have), each is tried alone, so that one port's missing tool costs the other ports
    nothing; those still missing are named."""
    if shutil.which("apt-get") and (os.geteuid() == 0 or shutil.which("sudo")):
        packages = sorted({package for requirement in missing for package in requirement.debian.split()})
        sudo = [] if os.geteuid() == 0 else ["sudo"]
        apt = [*sudo, "apt-get", f"--option=DPkg::Lock::Timeout={APT_LOCK_SECONDS}"]
        prepare, installer = [[*apt, "update", "-qq"]], [*apt, "install", "-y", "-qq", "--"]
        environment, known = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}, _apt_knows
    elif shutil.which("brew"):
        packages = sorted({package for requirement in missing for package in requirement.homebrew.split()})
        prepare, installer, environment, known = [], ["brew", "install", "--"], dict(os.environ), None
    else:
        raise DoctorError("neither apt-get (as root or with sudo) nor brew is here to install them")
    if not packages:
        raise DoctorError("their manifests name no package for this machine's installer")
    ran = []

    def run(command: list[str]) -> bool:
        ran.append(command)
        return subprocess.run(command, env=environment, stdin=subprocess.DEVNULL).returncode == 0

    for command in prepare:
        if not run(command):
            raise DoctorError(f"{' '.join(command)} failed")
    unknown = [package for package in packages if known is not None and not known(package)]
    packages = [package for package in packages if package not in unknown]
    failed = []
    if packages and not run([*installer, *packages]):
        failed = [package for package in packages if not run([*installer, package])] if len(packages) > 1 else packages
    problems = [f"{' '.join(installer)} failed for {', '.join(failed)}"] * bool(failed)
    problems += [f"apt's lists hold no package named {', '.join(unknown)}, so apt-get was not given it"] * bool(unknown)
    if problems:
        raise DoctorError("; ".join(problems))
    return ran


def _apt_knows(package: str) -> bool:
    """Whether apt's lists hold a package of exactly this name (real or virtual), which apt then takes
    as that package, not as a pattern or an action; asked of ``apt-cache pkgnames``, which matches
    the start of a name as it is, with no pattern."""
    try:
        listed = subprocess.run(
            ["apt-cache", "--all-names", "pkgnames", package], capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return package in listed.stdout.split()
