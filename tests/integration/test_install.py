"""The harness as a user installs it: ``pip install`` of a clone into a fresh virtual environment,
then the installed ``harness`` run inside that clone and outside any; and the install path of the ports' tools
as a user who is not root."""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from conftest import FAKE_PORTS, HEADLINE, ROOT, left_behind, valid_report
from harness.discover import discover
from harness.doctor import APT_LOCK_SECONDS

NOT_IN_A_CLONE = (".git", ".venv", "__pycache__", "*.egg-info", "build", ".pytest_cache", ".hypothesis", ".mypy_cache", ".ruff_cache")
"""What a fresh clone does not have: git's own files, and what building, testing and linting leave behind."""


def test_a_plain_pip_install_of_a_clone_checks_and_compares_its_ports_and_says_where_it_finds_none(tmp_path, run_tmpdir):
    clone = tmp_path / "clone"
    shutil.copytree(ROOT, clone, ignore=shutil.ignore_patterns(*NOT_IN_A_CLONE), symlinks=True)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    # This pip installs into the new environment: the same install, without a second pip in it. No
    # .pyc files: compiling every dependency's would double the time, and Python compiles what it imports.
    installed = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "--no-compile", "--quiet", str(clone)],
        capture_output=True, text=True, timeout=600,
    )
    assert installed.returncode == 0, installed.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    where = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import harness; print(harness.__file__)"], cwd=elsewhere, capture_output=True, text=True, timeout=60
    )
    assert Path(where.stdout.strip()).is_relative_to(venv), where.stdout + where.stderr

    environment = {key: value for key, value in os.environ.items() if key != "HANOI_ROOT"} | {"TMPDIR": str(run_tmpdir), "COLUMNS": "200"}

    def harness(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(venv / "bin" / "harness"), *args], cwd=cwd, env=environment, capture_output=True, text=True, timeout=600)

    names = [port.name for port in discover(clone)]
    listed = harness("list", "--format", "plain", cwd=clone)
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert [line.partition(":")[0] for line in listed.stdout.splitlines()] == names

    report = tmp_path / "report.json"
    compared = harness("compare", "--n", "5", "--lang", ",".join(HEADLINE), "--json", str(report), cwd=clone / "docs")
    assert compared.returncode == 0, compared.stdout + compared.stderr
    cells = valid_report(json.loads(report.read_text()))["cells"]
    assert sorted({cell["port"] for cell in cells}) == sorted(HEADLINE)
    assert {cell["outcome"] for cell in cells} <= {"pass", "skipped"} and any(cell["outcome"] == "pass" for cell in cells)
    assert "pass and agree" in compared.stdout
    # A plain install has no PostgreSQL: the SQL port's cells say which extra brings it.
    in_postgres = [cell for cell in cells if cell["port"] == "sql"]
    assert in_postgres and all(cell["outcome"] == "skipped" and "pip install 'hanoi-polyglot[postgres]'" in cell["detail"] for cell in in_postgres)
    checked = harness("check", cwd=clone)
    assert (checked.returncode, checked.stdout, checked.stderr) == (0, f"{len(names)} of {len(names)} manifests sound\n", "")

    schema = harness("schema", "language", cwd=elsewhere)  # the installed package's own, with no checkout about
    assert (schema.returncode, schema.stdout) == (0, (ROOT / "harness" / "language.schema.json").read_text()), schema.stderr

    nowhere = harness("list", cwd=elsewhere)
    assert nowhere.returncode == 2
    assert nowhere.stderr.startswith("harness: no ports here: run inside a checkout") and len(nowhere.stderr.splitlines()) == 1
    assert left_behind(run_tmpdir) is None


def test_the_install_path_as_a_user_who_is_not_root():
    """As on GitHub's runners: the user is not root and installs through sudo. Only root can make the
    throwaway user this runs as; elsewhere the suite itself runs as such a user."""
    if os.geteuid() != 0 or not (shutil.which("useradd") and shutil.which("userdel") and shutil.which("setpriv")):
        pytest.skip("needs root with useradd, userdel and setpriv to run as a throwaway user; as a user who is not root, the suite itself is this test")
    folder = Path(tempfile.mkdtemp(prefix="hanoi-not-root-"))
    name = f"hanoi-test-{os.getpid()}"
    made = subprocess.run(["useradd", "--system", "-M", "-d", str(folder / "home"), "-s", "/bin/sh", name], capture_output=True, text=True, timeout=60)
    if made.returncode:
        shutil.rmtree(folder)
        pytest.skip(f"useradd could not make a throwaway user: {made.stderr.strip()}")
    try:
        user = pwd.getpwnam(name)
        lacking = folder / "ports" / "lacking"
        lacking.mkdir(parents=True)
        manifest = (FAKE_PORTS / "missing-interpreter" / "language.toml").read_text()
        (lacking / "language.toml").write_text(manifest.replace('install = "apt-get install hanoi-interpreter"', 'debian = "hanoi-interpreter"'))
        (folder / "ports" / "python").symlink_to(ROOT / "python")
        calls = folder / "calls"
        for tools, names in (("with-sudo", ("sudo", "apt-get")), ("without-sudo", ("apt-get",))):
            (folder / tools).mkdir()
            for tool in names:  # a sudo that this user may not use, as on a machine that has not granted it
                (folder / tools / tool).write_text(f'#!/bin/sh\necho "{tool} $*" >> {calls}\nexit 1\n')
                (folder / tools / tool).chmod(0o755)
        (folder / "home").mkdir()
        (folder / "tmp").mkdir()
        for path in (folder, *folder.rglob("*")):
            os.lchown(path, user.pw_uid, user.pw_gid)

        def as_user(*args: str, tools: str) -> subprocess.CompletedProcess[str]:
            environment = {"HOME": str(folder / "home"), "TMPDIR": str(folder / "tmp"), "PATH": f"{folder / tools}:/usr/local/bin:/usr/bin:/bin"}
            return subprocess.run(
                ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups", sys.executable, "-m", "harness",
                 "--root", str(folder / "ports"), *args],
                cwd=folder, env=environment, capture_output=True, text=True, timeout=300,
            )

        through_sudo = as_user("doctor", "--install", tools="with-sudo")
        assert through_sudo.returncode == 1, through_sudo.stdout + through_sudo.stderr
        update = f"sudo apt-get --option=DPkg::Lock::Timeout={APT_LOCK_SECONDS} update -qq"
        assert calls.read_text() == f"{update}\n", "apt-get through sudo, not as the user itself"
        assert f"cannot install hanoi-interpreter-nobody-has: {update} failed" in through_sudo.stderr
        assert "Traceback" not in through_sudo.stderr

        no_sudo = as_user("doctor", "--install", "--port", "lacking", tools="without-sudo")
        assert no_sudo.returncode == 1 and "neither apt-get (as root or with sudo) nor brew is here to install them" in no_sudo.stderr
        assert calls.read_text() == f"{update}\n"
        assert as_user("doctor", "--install", "--port", "python", tools="without-sudo").returncode == 0

        sandboxed = as_user("run", "python", "binary", "--n", "3", "--isolation", "sandbox", tools="without-sudo")
        assert sandboxed.returncode == 0, sandboxed.stdout + sandboxed.stderr
        assert len(sandboxed.stdout.splitlines()) == 7 or "kernel.apparmor_restrict_unprivileged_userns" in sandboxed.stderr, sandboxed.stderr
    finally:
        subprocess.run(["userdel", name], capture_output=True, timeout=60)
        shutil.rmtree(folder, ignore_errors=True)
