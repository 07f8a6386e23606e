"""Build a port's program before it runs, when its manifest says how, and keep what was built.

A build is cached under the user's cache folder, keyed by the build command (with {n} and
{method} filled in), the compiler it names and every file in the port's folder, so a program is
compiled once per n (or once, if its build does not use n) until its source changes.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

from harness.discover import Port, Program, fill
from harness.errors import BuildFailed

PROGRAM_NAME = "program"
ERROR_LINES = 15


def cache_root() -> Path:
    """Where built programs are kept: $HANOI_CACHE, or hanoi-polyglot in the user's cache folder."""
    if os.environ.get("HANOI_CACHE"):
        return Path(os.environ["HANOI_CACHE"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "hanoi-polyglot"


_locks: dict[str, threading.Lock] = {}
_locks_guard = threading.Lock()
_failures: dict[str, str] = {}  # a build that failed is not tried again in the same run


def build(port: Port, program: Program, method: str, n: int, timeout: float) -> Path | None:
    """The built program for this cell (building it if it is not cached), or None if the program
    needs no build. Cells that share a build wait for one another rather than compile twice, and
    share its failure."""
    if not program.build:
        return None
    key = _key(port, program, method, n)
    folder = cache_root() / "builds" / port.name / key
    with _locks_guard:
        lock = _locks.setdefault(str(folder), threading.Lock())
    with lock:
        if str(folder) in _failures:
            raise BuildFailed(_failures[str(folder)])
        if not (folder / PROGRAM_NAME).is_file():
            try:
                _compile(port, program, method, n, folder, timeout)
            except BuildFailed as error:
                _failures[str(folder)] = str(error)
                raise
    return folder / PROGRAM_NAME


def _key(port: Port, program: Program, method: str, n: int) -> str:
    digest = hashlib.sha256()
    argv = fill(program.build, method, n, Path("{binary}"))
    compiler = shutil.which(argv[0]) or argv[0]
    compiler_stamp = Path(compiler).stat().st_mtime_ns if Path(compiler).exists() else 0
    digest.update(repr((argv, str(Path(compiler).resolve()), compiler_stamp)).encode())
    for path in sorted(port.folder.iterdir()):
        if path.is_file():
            digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:24]


def failed(returncode: int, shown: str, said: str) -> BuildFailed:
    """A failed build, with the command and the compiler's first words."""
    first = "\n".join(said.strip().splitlines()[:ERROR_LINES])
    return BuildFailed(f"the build failed with exit code {returncode}: {shown}\n{first}".rstrip())


def _compile(port: Port, program: Program, method: str, n: int, folder: Path, timeout: float) -> None:
    """Build into a fresh folder and move it into place whole, so no half-built program is ever found."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="building-", dir=folder.parent))
    try:
        argv = fill(program.build, method, n, scratch / PROGRAM_NAME)
        shown = " ".join(fill(program.build, method, n, Path("{binary}")))
        try:
            done = subprocess.run(argv, cwd=port.folder, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
        except OSError as error:
            raise BuildFailed(f"could not start the build ({argv[0]}): {error}") from None
        except subprocess.TimeoutExpired:
            raise BuildFailed(f"the build ran past {timeout:g} s: {shown}") from None
        if done.returncode or not (scratch / PROGRAM_NAME).is_file():
            raise failed(done.returncode, shown, done.stderr or done.stdout)
        try:
            scratch.rename(folder)
        except OSError:  # another harness built it first: theirs is as good
            if not (folder / PROGRAM_NAME).is_file():
                raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
