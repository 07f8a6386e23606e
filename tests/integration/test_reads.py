"""What a manifest's ``reads`` may show a port is an allowlist, held where links lead: a service
user's home outside /home (a CI runner's, /var/lib/...), with a key in its ~/.ssh, is refused by
``harness check`` with the manifest's line; and a read that ``check`` accepts but that leads into
that home by a link is refused again by the sandbox, as an error on the cell that names it, and the
probe sees nothing. As root (the port runs as nobody, so the key is left readable by anyone: only
the view keeps it out) and as that user, whose home and TMPDIR hold the checkout."""

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
from integration.test_sandbox_view import PROBE

MANIFEST = """\
summary = "reads what its manifest names, and prints it"
methods = ["recursive"]
command = ["bash", "probe.sh", "{n}", SECRETS]

[[requires]]
executable = "bash"
reads = [READS]

[output]
patterns = ['(?P<disk>\\d+) (?P<src>\\d) (?P<dst>\\d)']
pegs = ["0", "1", "2"]
"""

pytestmark = pytest.mark.skipif(
    NO_SANDBOX is not None or os.geteuid() != 0 or not (shutil.which("useradd") and shutil.which("setpriv")),
    reason=NO_SANDBOX or "needs root, to make the throwaway user and its home outside /home",
)


@dataclass
class Runner:
    """A throwaway service user whose home is outside /home, a key in its ~/.ssh, and a link to
    that folder from a place the grammar allows."""

    user: pwd.struct_passwd
    home: Path
    key: Path
    link: Path
    marker: str


@pytest.fixture
def runner() -> Iterator[Runner]:
    tag = uuid.uuid4().hex[:8]
    name, home = f"hanoi-r{tag}", Path(f"/var/lib/hanoi-runner-{tag}")
    subprocess.run(["useradd", "--system", "-m", "-d", str(home), "-s", "/bin/sh", name], check=True, capture_output=True, timeout=60)
    user = pwd.getpwnam(name)
    marker = f"hanoi-key-{tag}"
    key = home / ".ssh" / "id_test"
    key.parent.mkdir()
    key.write_text(f"{marker}\n")
    for path, mode in ((home, 0o755), (key.parent, 0o755), (key, 0o644)):  # readable by anyone: only the view keeps it out
        os.chown(path, user.pw_uid, user.pw_gid)
        path.chmod(mode)
    link = Path(f"/usr/local/share/hanoi-link-{tag}")
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(home)
    try:
        yield Runner(user, home, key, link, marker)
    finally:
        link.unlink()
        subprocess.run(["pkill", "-KILL", "-u", name], capture_output=True, timeout=60)
        subprocess.run(["userdel", name], capture_output=True, timeout=60)
        shutil.rmtree(home, ignore_errors=True)


def _checkout(runner: Runner, reads: str) -> Path:
    """The probe port in a checkout in the runner's home, asking to read ``reads``, trying the key
    both where it is and through the link; and the runner's TMPDIR beside it, all the runner's."""
    base = runner.home / f"work-{uuid.uuid4().hex[:6]}"
    (base / "ports" / "probe").mkdir(parents=True)
    (base / "tmp").mkdir()
    secrets = ", ".join(json.dumps(str(path)) for path in (runner.key, runner.link / ".ssh" / runner.key.name))
    (base / "ports" / "probe" / "language.toml").write_text(MANIFEST.replace("SECRETS", secrets).replace("READS", json.dumps(reads)))
    (base / "ports" / "probe" / "probe.sh").write_text(PROBE)
    for path in (base, *base.rglob("*")):
        os.lchown(path, runner.user.pw_uid, runner.user.pw_gid)
    return base


def _harness(runner: Runner, base: Path, as_root: bool, *args: str) -> subprocess.CompletedProcess[str]:
    drop = [] if as_root else ["setpriv", f"--reuid={runner.user.pw_uid}", f"--regid={runner.user.pw_gid}", "--clear-groups"]
    return subprocess.run(
        [*drop, sys.executable, "-m", "harness", "--root", str(base / "ports"), *args],
        cwd=base, env={"HOME": "/root" if as_root else str(runner.home), "TMPDIR": str(base / "tmp"), "PATH": os.environ["PATH"], "COLUMNS": "200"},
        capture_output=True, text=True, timeout=120,
    )


@pytest.mark.parametrize("as_root", [True, False], ids=["root", "user"])
def test_check_refuses_a_read_of_a_home_outside_home_with_its_line(runner, as_root):
    base = _checkout(runner, str(runner.home))
    done = _harness(runner, base, as_root, "check")
    line = (base / "ports" / "probe" / "language.toml").read_text().splitlines().index(f"reads = [{json.dumps(str(runner.home))}]") + 1
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"probe/language.toml:{line}: [[requires]] 'reads': {runner.home} is the home of {runner.user.pw_name}" in done.stdout, done.stdout


@pytest.mark.parametrize("as_root", [True, False], ids=["root", "user"])
def test_a_read_that_a_link_leads_into_a_home_is_refused_in_the_sandbox_and_nothing_is_seen(runner, as_root):
    base = _checkout(runner, str(runner.link))
    checked = _harness(runner, base, as_root, "check")
    assert checked.returncode == 0, checked.stdout + checked.stderr  # the path as named is in the grammar: only where it leads is not
    report = base / "tmp" / "report.json"
    done = _harness(runner, base, as_root, "compare", "--n", "1", "-m", "recursive", "--isolation", "sandbox", "--json", str(report), "--format", "plain")
    text = report.read_text()
    [cell] = json.loads(text)["cells"]
    assert runner.marker not in text + done.stdout + done.stderr, text
    assert (cell["outcome"], cell["reason"]) == ("error", "manifest"), cell
    assert f"'reads' names {runner.link}, which leads to {runner.home} on this machine" in cell["detail"], cell["detail"]
    assert f"the home of {runner.user.pw_name}" in cell["detail"] and "bwrap" not in cell["detail"], cell["detail"]
