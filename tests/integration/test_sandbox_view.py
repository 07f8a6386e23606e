"""What the sandbox shows a port: a probe port tries to read a key in root's ~/.ssh, a token in
another user's home, a file in /etc that only root may read, the checkout's .git/config, a file of
another port, and the home of whoever runs the harness; and prints what it found, on the line a
report quotes. Run as root and as a throwaway user, with the checkout under /tmp, /home and /srv:
the report must hold none of it, and the probe must be seen to have run."""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from integration.conftest import NO_SANDBOX

PROBE_MANIFEST = """\
summary = "tries to read what no port may, and prints what it found"
methods = ["recursive"]
command = ["bash", "probe.sh", "{n}", SECRETS]

[output]
patterns = ['(?P<disk>\\d+) (?P<src>\\d) (?P<dst>\\d)']
pegs = ["0", "1", "2"]
"""
PROBE = """\
seen=""
n=$1; shift
for path in "$@"; do seen="$seen $(cat "$path" 2>/dev/null | tr -d '\\n')"; done
echo "probe ran; seen:$seen"
echo "1 0 2"
"""
OTHER_MANIFEST = PROBE_MANIFEST.replace("SECRETS", '"x"')

pytestmark = pytest.mark.skipif(
    NO_SANDBOX is not None or os.geteuid() != 0 or not shutil.which("useradd"),
    reason=NO_SANDBOX or "needs root, to place the secrets and make the throwaway users",
)


@dataclass
class Machine:
    """The secrets placed on this machine for one test, and the users it made."""

    marker: str
    paths: list[Path]
    someone: pwd.struct_passwd


def _user(name: str, home: Path) -> pwd.struct_passwd:
    subprocess.run(["useradd", "-m", "-d", str(home), "-s", "/bin/sh", name], check=True, capture_output=True, timeout=60)
    home.chmod(0o700)
    return pwd.getpwnam(name)


def _secret(path: Path, marker: str, owner: pwd.struct_passwd | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"{marker}-{path.name}\n")
    path.chmod(0o600)
    if owner is not None:
        os.chown(path, owner.pw_uid, owner.pw_gid)
    return path


@pytest.fixture
def machine() -> Iterator[Machine]:
    """A key in root's ~/.ssh, a 0600 file in /etc, another user with a token in a 0700 home, and
    a throwaway user who may run the harness; all removed after, and only those."""
    tag = uuid.uuid4().hex[:8]
    marker = f"hanoi-secret-{tag}"
    other = _user(f"hanoi-o{tag}", Path(f"/home/hanoi-o{tag}"))
    someone = _user(f"hanoi-s{tag}", Path(f"/home/hanoi-s{tag}"))
    ssh = Path("/root/.ssh")
    made_ssh = not ssh.exists()
    paths = [
        _secret(ssh / f"id_hanoi_{tag}", marker),
        _secret(Path(f"/etc/hanoi-{tag}.conf"), marker),
        _secret(Path(other.pw_dir) / ".config" / "gh" / "hosts.yml", marker, other),
        _secret(Path(someone.pw_dir) / ".ssh" / "id_ed25519", marker, someone),
    ]
    try:
        yield Machine(marker, paths, someone)
    finally:
        for path in paths[:2]:
            path.unlink()
        if made_ssh:
            shutil.rmtree(ssh)
        for user in (other, someone):
            subprocess.run(["pkill", "-KILL", "-u", user.pw_name], capture_output=True, timeout=60)
            subprocess.run(["userdel", "-r", user.pw_name], capture_output=True, timeout=60)


def _checkout(base: Path, machine: Machine, owner: pwd.struct_passwd | None) -> Path:
    """A checkout with a .git/config holding a token, the probe port and another port with a file."""
    checkout = base / "checkout"
    (checkout / "probe").mkdir(parents=True)
    (checkout / "other").mkdir()
    git = _secret(checkout / ".git" / "config", machine.marker)
    git.chmod(0o644)  # a checkout's config is readable by whoever may read the checkout
    (checkout / "other" / "language.toml").write_text(OTHER_MANIFEST)
    (checkout / "other" / "answers.txt").write_text(f"{machine.marker}-answers\n")
    secrets = [*machine.paths, git, checkout / "other" / "answers.txt"]
    (checkout / "probe" / "language.toml").write_text(PROBE_MANIFEST.replace("SECRETS", ", ".join(json.dumps(str(path)) for path in secrets)))
    (checkout / "probe" / "probe.sh").write_text(PROBE)
    (base / "tmp").mkdir()
    if owner is not None:
        for path in (base, *base.rglob("*")):
            os.lchown(path, owner.pw_uid, owner.pw_gid)
    return checkout


@pytest.mark.parametrize("as_root", [True, False], ids=["root", "user"])
@pytest.mark.parametrize("place", ["tmp", "home", "srv"])
def test_the_probe_sees_no_key_token_secret_checkout_or_other_port(machine, as_root, place):
    tag = uuid.uuid4().hex[:8]
    base = {"tmp": Path("/tmp"), "home": Path(machine.someone.pw_dir), "srv": Path("/srv")}[place] / f"hanoi-view-{tag}"
    base.mkdir(mode=0o755)
    try:
        checkout = _checkout(base, machine, None if as_root else machine.someone)
        drop = [] if as_root else ["setpriv", f"--reuid={machine.someone.pw_uid}", f"--regid={machine.someone.pw_gid}", "--clear-groups"]
        home = "/root" if as_root else machine.someone.pw_dir
        done = subprocess.run(
            [*drop, sys.executable, "-m", "harness", "--root", str(checkout), "compare", "--n", "1", "--lang", "probe", "--isolation", "sandbox",
             "--json", str(base / "tmp" / "report.json"), "--format", "plain"],
            cwd=base, env={"HOME": home, "TMPDIR": str(base / "tmp"), "PATH": os.environ["PATH"], "COLUMNS": "200"},
            capture_output=True, text=True, timeout=120,
        )
        report = (base / "tmp" / "report.json").read_text()
        assert "probe ran; seen:" in report, done.stdout + done.stderr
        assert machine.marker not in report + done.stdout + done.stderr, done.stdout
    finally:
        shutil.rmtree(base)
