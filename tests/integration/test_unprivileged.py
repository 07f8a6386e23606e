"""As a user who is not root, where no control group of a cell's own can be made, a port's every
process still ends with its cell: each program of the subprocess mode runs as the first process of a
process namespace of its own, which the kernel empties when that process ends. A child that leaves the
port's session and drops the harness's marker from its environment is ended too, within --timeout.
Only root can make the throwaway user this runs as."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.limits import CGROUP_ROOT

MANIFEST = """\
summary = "leaves a child behind, in a session of its own and with an empty environment"
methods = ["recursive"]
command = ["bash", "escape.sh", "{n}"]

[output]
patterns = ['(?P<disk>\\d+) (?P<src>\\d) (?P<dst>\\d)']
pegs = ["0", "1", "2"]
"""

ESCAPE = """\
setsid env -i /bin/sleep 300 > /dev/null 2>&1 < /dev/null &
hanoi() { (( $1 == 0 )) && return; hanoi $(( $1 - 1 )) $2 $4 $3; echo "$1 $2 $3"; hanoi $(( $1 - 1 )) $4 $3 $2; }
hanoi "$1" 0 2 1
"""

HOLD = """\
setsid env -i bash -c 'sleep 300' &
echo 1 0 2
sleep 600
"""


@pytest.fixture
def someone(tmp_path_factory) -> Iterator[tuple[pwd.struct_passwd, Path]]:
    """A throwaway user who is not root, and a folder of theirs."""
    if os.geteuid() != 0 or not (shutil.which("useradd") and shutil.which("userdel") and shutil.which("setpriv")):
        pytest.skip("needs root with useradd, userdel and setpriv to run as a throwaway user")
    folder = Path(tempfile.mkdtemp(prefix="hanoi-unprivileged-"))
    name = f"hanoi-np-{os.getpid()}"
    made = subprocess.run(["useradd", "--system", "-M", "-d", str(folder), "-s", "/bin/sh", name], capture_output=True, text=True, timeout=60)
    if made.returncode:
        shutil.rmtree(folder)
        pytest.skip(f"useradd could not make a throwaway user: {made.stderr.strip()}")
    user = pwd.getpwnam(name)
    try:
        yield user, folder
    finally:
        subprocess.run(["pkill", "-KILL", "-u", name], capture_output=True, timeout=60)
        subprocess.run(["userdel", name], capture_output=True, timeout=60)
        shutil.rmtree(folder, ignore_errors=True)


def running_as(uid: int) -> list[str]:
    """What the user runs now, zombies (ended, not yet collected) left out."""
    found = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":\t", 1) for line in status.read_text().splitlines() if ":\t" in line)
        except OSError:
            continue
        if fields.get("Uid", "").split()[:1] == [str(uid)] and not fields.get("State", "").startswith("Z"):
            found.append(fields.get("Name", "?"))
    return found


def test_a_child_that_leaves_the_session_and_the_marker_ends_with_its_cell(someone):
    user, folder = someone
    for port, script in (("escaper", ESCAPE), ("holder", HOLD)):
        (folder / "ports" / port).mkdir(parents=True)
        (folder / "ports" / port / "language.toml").write_text(MANIFEST)
        (folder / "ports" / port / "escape.sh").write_text(script)
    (folder / "tmp").mkdir()
    for path in (folder, *folder.rglob("*")):
        os.lchown(path, user.pw_uid, user.pw_gid)
    started = time.monotonic()
    done = subprocess.run(
        ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups",
         sys.executable, "-m", "harness", "--root", str(folder / "ports"), "compare", "--n", "3", "-m", "recursive", "--timeout", "5", "--format", "plain"],
        cwd=folder, env={"HOME": str(folder), "TMPDIR": str(folder / "tmp"), "PATH": "/usr/bin:/bin"},
        capture_output=True, text=True, timeout=120,
    )
    took = time.monotonic() - started
    assert "escaper  pass · 7 moves" in done.stdout and "holder: error (timeout) recursive n=3: timed out after 5 s" in done.stdout, done.stdout + done.stderr
    assert took < 5 + 5, f"the run took {took:.1f} s at --timeout 5"
    time.sleep(0.5)
    assert running_as(user.pw_uid) == [], "a port's process outlived its run"
    # os.walk passes over a group another run removes while it looks, where a glob fails
    groups = (name for _, names, _ in os.walk(CGROUP_ROOT) for name in names)
    assert not any(user.pw_name in name for name in groups), "the test meant to run without a control group of the cells' own"
