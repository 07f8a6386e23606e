"""harness doctor --install: one package the installer does not have costs the other ports nothing."""

from __future__ import annotations

import subprocess

import pytest

from harness import doctor
from harness.errors import DoctorError
from harness.port import Requirement

LISTS = ("gcc", "ghostlang", "lua5.4", "lua5.4-dev", "zlib1g-dev")
"""The names apt's lists hold; of them, apt-get fails to install ghostlang."""


@pytest.fixture
def apt(monkeypatch):
    """apt-get as root, which fails for ghostlang; the commands it was given. apt-cache lists the
    names of LISTS that start as asked."""
    calls: list[list[str]] = []

    def run(command, **_):
        if command[0] == "apt-cache":
            return subprocess.CompletedProcess(command, 0, "".join(f"{name}\n" for name in LISTS if name.startswith(command[-1])), "")
        calls.append(command)
        return subprocess.CompletedProcess(command, 100 if "ghostlang" in command else 0)

    monkeypatch.setattr(doctor.shutil, "which", lambda name: f"/usr/bin/{name}" if name == "apt-get" else None)
    monkeypatch.setattr(doctor.os, "geteuid", lambda: 0)
    monkeypatch.setattr(doctor.subprocess, "run", run)
    return calls


def test_a_package_the_installer_lacks_is_named_and_the_others_are_installed_alone(apt):
    wanted = [Requirement("gcc", debian="gcc"), Requirement("ghostlang", debian="ghostlang"), Requirement("lua5.4", debian="lua5.4")]
    with pytest.raises(DoctorError, match="failed for ghostlang$"):
        doctor.install(wanted)
    installs = [call[call.index("--") + 1:] for call in apt if "install" in call]
    assert installs == [["gcc", "ghostlang", "lua5.4"], ["gcc"], ["ghostlang"], ["lua5.4"]]


def test_packages_the_installer_has_are_installed_at_once(apt):
    commands = doctor.install([Requirement("gcc", debian="gcc"), Requirement("lua5.4", debian="lua5.4")])
    waits = f"--option=DPkg::Lock::Timeout={doctor.APT_LOCK_SECONDS}"
    assert commands == apt == [["apt-get", waits, "update", "-qq"], ["apt-get", waits, "install", "-y", "-qq", "--", "gcc", "lua5.4"]]


def test_a_name_apts_lists_do_not_hold_exactly_is_not_given_to_apt_which_would_read_it_as_a_pattern(apt):
    """apt-get reads ``zlib1g.de``, which no package is called, as a regular expression and installs
    zlib1g-dev; ``lua5`` it would not find, but neither is given."""
    with pytest.raises(DoctorError, match="^apt's lists hold no package named lua5, zlib1g.de, so apt-get was not given it$"):
        doctor.install([Requirement("gcc", debian="gcc zlib1g.de"), Requirement("lua", debian="lua5")])
    waits = f"--option=DPkg::Lock::Timeout={doctor.APT_LOCK_SECONDS}"
    assert apt == [["apt-get", waits, "update", "-qq"], ["apt-get", waits, "install", "-y", "-qq", "--", "gcc"]]
