"""Build a port's program before it runs, when its manifest says how, and keep what was built.

Every build runs in a private build folder: a fresh copy of the port's folder, one per build, so
builds of one port for several n at once never share a file, and nothing is ever written into the
port's folder. The build is part of the cell: it runs where the cell's program runs (a subprocess,
the sandbox or the port's container) under the same limits (memory, processes, its whole process
tree ended with it), within the build's time, and its output is kept as its first and last lines,
however much it prints. A finished build folder is kept in the cache, keyed by the build's commands
(n and method filled in), the compilers they name and every file below the port's folder, so a
program is built once per n (or once, if its build does not use n) until any of its sources changes.

A cache entry is the port's to write, so the harness, often root, trusts nothing in it: it follows
no link there (its done mark is made with O_EXCL and O_NOFOLLOW and read with lstat, the program
must be a file of its own), strips every setuid and setgid bit from what a build leaves, and holds
a build to BUILD_BYTES of the cache (its copy of the port's folder too, counted before it is made;
as root, on a disk of its own of about that size); a build that breaks any of these, or meets a
full disk, is its own cell's build error, and its entry is removed.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import json
import os
import re
import shutil
import stat
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.environment import cache_root
from harness.errors import BuildFailed, Interrupted
from harness.limits import BUILD_BYTES, FILE_BYTES, mounts, size
from harness.port import SHOWN_BUILD, Built, Port, Program, apparent_bytes, fill, past
from harness.runners.base import Runner
from harness.runners.process import EMPTY_STDERR, StderrKeeper
from harness.runners.walls import remove_tree, tree

PROGRAM_NAME = "program"
FOLDER_NAME = "build"
DONE_NAME = "done"
READS_NAME = "reads.json"
"""In a cache entry: the program, the private build folder, the mark of a build that finished, and
what the build read of the port's files, which finds it again however much else the folder holds."""
LOCK_POLL_SECONDS = 0.1
COPY_BLOCK = 1 << 20
CAPABILITIES = "security.capability"
"""The extended attribute that gives a file capabilities (setcap): taken off what a build keeps, as setuid is."""
WATCH_SECONDS = 0.25
"""How often what a build keeps in the cache is counted while each command runs (it is counted
again after it), against BUILD_BYTES."""
SETID = stat.S_ISUID | stat.S_ISGID
DISK_BYTES = BUILD_BYTES + BUILD_BYTES // 8
"""The size of a build's own disk (:func:`_own_disk`): BUILD_BYTES, and room for the file system's
own tables, so that the watcher's count, not the disk, names a build that writes too much."""
PROBE_BYTES = 8 << 20
"""The size of the disk made to learn whether a build can have one here (:func:`own_disks`)."""
DISK_SECONDS = 30
"""The most making, mounting or letting go of a build's own disk may take (0.11 s here)."""
NEARLY_FULL = 1 << 20
LEFT = (".disk", ".kept")
"""Beside an entry while its build has a disk of its own: the disk's image (unlinked once mounted),
and the copy of what the build kept (renamed to the entry once made)."""

StartCommand = Callable[[list[str], Path, float], Runner]
"""Starts one build command in a folder, with so many seconds: the isolation's way of running it."""


@dataclass(frozen=True)
class Site:
    """Where a build is made, as its mode says."""

    toolchain: str = ""
    """Where its compilers are, if not on this machine (a container's image): a build with other
    compilers is another build."""
    inside: Path | None = None
    """Where its commands see the cache entry, if not where it is (mounted in a container)."""
    mode: str = ""
    """The isolation it is built in: a build made where more of the machine shows is never taken for
    one made in the sandbox, whose cells must show that they build there too."""


HERE = Site()
"""A build on this machine, with its own compilers."""


class Builds:
    """The builds of one run. Cells that share a build wait for one another rather than build twice,
    and share its failure (a build that failed is not tried again in the same run); another harness
    building the same is waited for too, until ``closing`` says the run is ending."""

    def __init__(self, closing: Callable[[], bool]) -> None:
        _sweep_disks(cache_root() / "builds")
        self._closing = closing
        self._locks: dict[Path, threading.Lock] = {}
        self._guard = threading.Lock()
        self._failures: dict[Path, str] = {}

    def build(
        self, port: Port, program: Program, method: str, n: int, timeout: float, start: StartCommand, site: Site = HERE,
    ) -> Built | None:
        """The built program for this cell (building it if it is not cached) where ``site`` says, or
        None if the program needs no build."""
        if not program.build:
            return None
        deadline = time.monotonic() + timeout
        family = _family(program, method, n, site)
        builds = cache_root() / "builds" / port.name
        try:
            reused = _reusable(builds, family, port.folder, deadline)
            if reused is not None:
                return Built(reused / FOLDER_NAME, reused / PROGRAM_NAME)
            entry = builds / f"{family}-{port.source_digest(deadline)[:16]}"
        except TimeoutError:
            raise BuildFailed(f"reading the port's files for the build ran past its {timeout:g} s (--build-timeout)") from None
        built = Built(entry / FOLDER_NAME, entry / PROGRAM_NAME)
        with self._guard:
            lock = self._locks.setdefault(entry, threading.Lock())
        with lock, _held(entry.with_suffix(".lock"), timeout, self._closing):
            if entry in self._failures:
                raise BuildFailed(self._failures[entry])
            if not _finished(entry):
                try:
                    steps = commands(program, method, n, built.at(site.inside) if site.inside else built)
                    _build(port.folder, entry, built, steps, start, timeout, deadline)
                except BuildFailed as error:
                    self._failures[entry] = str(error)
                    raise
        return built


def commands(program: Program, method: str, n: int, built: Built) -> list[tuple[list[str], str]]:
    """The build's commands as they run, each with how a message shows it ({binary} and {build} as named)."""
    return [(fill(step, method, n, built), " ".join(fill(step, method, n, SHOWN_BUILD))) for step in program.build]


def _family(program: Program, method: str, n: int, site: Site) -> str:
    """What the build is made with: its commands, the compilers they name (here, or in the site's
    toolchain) and the isolation it is built in; any name as the bytes it is (repr() writes out what
    UTF-8 cannot hold). Its entries differ by the port's files (:func:`_reusable`)."""
    toolchain = site.toolchain
    digest = hashlib.sha256(os.fsencode(toolchain) + b"\0" + site.mode.encode())
    for step in program.build:
        argv = fill(step, method, n, SHOWN_BUILD)
        digest.update(repr((argv, "" if toolchain else _compiler_here(argv[0]))).encode())
    return digest.hexdigest()[:24]


def _reusable(builds: Path, family: str, folder: Path, deadline: float) -> Path | None:
    """A finished build of the family whose record of what it read (:data:`READS_NAME`) the port's
    folder still matches: every file it read holds the same bytes, and each folder it read from holds
    the same files of the kinds it read there. What the port's program left in its folder since (a
    seed file, a log) is no part of it. None where no entry matches, or none kept a record."""
    try:
        candidates = sorted(builds.glob(f"{family}-*"))
    except OSError:
        return None
    digests: dict[str, str | None] = {}
    for entry in candidates:
        record = _record(entry)
        if record is not None and _finished(entry) and _still(record, folder, digests, deadline):
            return entry
    return None


def _compiler_here(name: str) -> str:
    """The compiler a command names, as this machine has it: its path and when it last changed."""
    compiler = Path(shutil.which(name) or name)
    stamp = compiler.stat().st_mtime_ns if compiler.exists() else 0
    return f"{compiler.resolve()} {stamp}"


@contextlib.contextmanager
def _held(path: Path, timeout: float, closing: Callable[[], bool]) -> Iterator[None]:
    """Hold a lock file, so that another harness building the same waits for this one; waiting is
    bounded by the build's time and ends when the run is closing."""
    with _cache_written():
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o644), "a")
    with handle:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if closing():
                    raise Interrupted("the run is closing: no build starts now") from None
                if time.monotonic() > deadline:
                    raise BuildFailed(f"another harness run was still building the same program after {timeout:g} s") from None
                time.sleep(LOCK_POLL_SECONDS)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@contextlib.contextmanager
def _cache_written() -> Iterator[None]:
    """The harness's own writing to the cache (its folders, a copy of the port, a mark) failing, a
    full disk most often: the cell's build error, saying why in a line, never an exception that
    names another port's files, nor shutil's list of every file it could not copy."""
    try:
        yield
    except shutil.Error as error:  # copytree's list of (source, target, why) for each file it could not copy
        failures = error.args[0] if error.args and isinstance(error.args[0], list) else [("", "", str(error))]
        why = re.sub(r"^\[Errno \d+\] |: '.*'$", "", str(failures[0][-1]))
        raise BuildFailed(f"the build's cache entry could not be written: {why}") from None
    except OSError as error:
        raise BuildFailed(f"the build's cache entry could not be written: {error.strerror or error}") from None


def _finished(entry: Path) -> bool:
    """Whether the entry holds a finished build: its done mark is there, a file (lstat: a link the
    build left in its place is no mark, and the entry is built again, from nothing)."""
    try:
        return stat.S_ISREG(os.lstat(entry / DONE_NAME).st_mode)
    except FileNotFoundError:
        return False


def _build(source: Path, entry: Path, built: Built, steps: list[tuple[list[str], str]], start: StartCommand, timeout: float, deadline: float) -> None:
    """Copy the port's folder into a fresh build folder (refused where the copy alone would be past
    BUILD_BYTES), run the build there, make what it left safe to keep, and mark it done, all before ``deadline``, the end of the build's ``timeout``
    seconds; or leave nothing of it behind."""
    _let_go(entry)  # the own disk of a build that did not finish, in a run that was killed
    remove_tree(entry)
    if apparent_bytes(source, BUILD_BYTES) > BUILD_BYTES:
        raise BuildFailed(
            f"the port's folder holds more than {size(BUILD_BYTES)} (a sparse file counted at its full size), the most one build may"
            " keep in the cache: its copy for the build is not made"
        )
    try:
        with _cache_written():
            entry.mkdir(parents=True)
        with _own_disk(entry):
            with _cache_written():
                shutil.copytree(source, built.folder, symlinks=True, copy_function=functools.partial(_copy, deadline=deadline))
            copied = _unread(built.folder)
            run_commands(steps, built.folder, start, timeout, deadline)
            require_program(steps, lambda: _is_file(built.binary))
            with _cache_written():
                _keep_record(entry, built.folder, source, copied, deadline)
                _strip_setid(entry)
        with _cache_written():
            _mark_done(entry)
    except BaseException:
        remove_tree(entry)  # following no link: a link is removed, not what it names (its own disk is let go already)
        raise


def _disk_command(argv: list[str]) -> str | None:
    """Run one of the harness's own commands for a build's disk (paths it made, never a port's
    words) within DISK_SECONDS: None once it has done what it was asked, else why not in a line."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, errors="replace", timeout=DISK_SECONDS, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"{error}"
    return None if done.returncode == 0 else (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]


@contextlib.contextmanager
def _own_disk(entry: Path) -> Iterator[None]:
    """The build's entry on a disk of its own, DISK_BYTES, with a file for each FILE_BYTES, where
    this machine lets the harness make one (:func:`own_disks`): whatever the build holds, in files
    it has unlinked and sent away on a socket too, takes no more of the cache than that. What the
    build kept is then copied to the entry on the cache's own disk (bounded by its size, not by the
    build's time), and its disk let go. Elsewhere the entry is where it is, held to BUILD_BYTES by
    the watcher's count alone (:func:`_bounded`)."""
    if not own_disks():
        yield
        return
    image, kept = (entry.with_name(entry.name + suffix) for suffix in LEFT)
    try:
        _make_disk(image, entry)
    finally:
        image.unlink(missing_ok=True)  # the loop device holds it while it is mounted, and no longer
    try:
        (entry / "lost+found").rmdir()
        yield
        if _copied_bytes(entry) > BUILD_BYTES:
            raise BuildFailed(
                f"the build left more than {size(BUILD_BYTES)} (a sparse file counted at its full size), the most one build may keep in"
                " the cache"
            )
        remove_tree(kept)
        with _cache_written():
            shutil.copytree(entry, kept, symlinks=True, ignore=_unkept, copy_function=_copier())
            for path in tree(kept):  # each the user's who made it, as the cell that runs it may need
                owner = os.lstat(entry / path.relative_to(kept))
                os.chown(path, owner.st_uid, owner.st_gid, follow_symlinks=False)
        _let_go(entry)
        kept.replace(entry)
    finally:
        _let_go(entry)
        remove_tree(kept)


def _make_disk(image: Path, place: Path, size: int = DISK_BYTES) -> None:
    """Make a disk image of ``size`` bytes and mount it on ``place``: :class:`BuildFailed` saying
    why, where it cannot be made or mounted."""
    steps = (
        ["truncate", "-s", str(size), str(image)],
        ["mkfs.ext4", "-q", "-F", "-m", "0", "-i", str(FILE_BYTES), "-O", "^has_journal", str(image)],
        ["mount", "-o", "loop,nosuid,nodev", str(image), str(place)],
    )
    for argv in steps:
        why = _disk_command(argv)
        if why is not None:
            _let_go(place)  # a mount that finished after its time
            raise BuildFailed(f"the build's own disk could not be made: {argv[0]}: {why}")


@functools.cache
def own_disks() -> bool:
    """Whether a build has a disk of its own here: as root, where a small disk can be made and
    mounted (loop devices, mkfs.ext4, a mount namespace that lets root mount); asked once a run."""
    if os.geteuid() != 0 or not Path("/dev/loop-control").exists() or shutil.which("mkfs.ext4") is None:
        return False
    with tempfile.TemporaryDirectory(prefix="hanoi-disk-") as folder:
        image, place = Path(folder) / "disk", Path(folder) / "place"
        place.mkdir()
        try:
            _make_disk(image, place, PROBE_BYTES)
        except BuildFailed:
            return False
        _let_go(place)
    return True


def _copied_bytes(entry: Path) -> int:
    """What copying the entry writes: each file once however many names it has (its names are
    kept, :func:`_copier`), at its apparent size (a sparse file's holes written out), at least
    FILE_BYTES, as each folder and link is."""
    total, seen = 0, set()
    for path in tree(entry):
        found = os.lstat(path)
        if (found.st_dev, found.st_ino) not in seen:
            seen.add((found.st_dev, found.st_ino))
            total += max(found.st_size if stat.S_ISREG(found.st_mode) else 0, FILE_BYTES)
    return total


def _copier() -> Callable[[str, str], str]:
    """copytree's way to copy a build's file: once, and each of its other names a link to that copy."""
    copies: dict[tuple[int, int], str] = {}

    def copy(source: str, target: str) -> str:
        found = os.lstat(source)
        first = copies.get((found.st_dev, found.st_ino))
        if first is None:
            copies[found.st_dev, found.st_ino] = _copy(source, target, deadline=None)
        else:
            os.link(first, target)
        return target

    return copy


def _unkept(folder: str, names: list[str]) -> set[str]:
    """What a copy of a build's entry leaves out: all that is not a file, folder or link (a pipe, a socket)."""
    kinds = (stat.S_ISREG, stat.S_ISDIR, stat.S_ISLNK)
    unkept = set()
    for name in names:
        try:
            mode = os.lstat(os.path.join(folder, name)).st_mode  # noqa: PTH118 - copytree hands strings
        except OSError:
            continue
        if not any(kind(mode) for kind in kinds):
            unkept.add(name)
    return unkept


def _sweep_disks(builds: Path) -> None:
    """Let go of what runs killed while they built left of their own disks (:func:`_own_disk`): each
    disk still mounted, its image, the copy of what it kept; where no harness holds its entry's lock."""
    places = {place for place, _, _ in mounts() if place.parent.parent == builds.resolve()}
    with contextlib.suppress(OSError):
        places |= {path.with_name(path.name.removesuffix(suffix)) for suffix in LEFT for path in builds.glob(f"*/*{suffix}")}
    for place in places:
        with contextlib.suppress(OSError), os.fdopen(os.open(place.with_suffix(".lock"), os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW), "a") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue  # a build under way
            _let_go(place)
            for suffix in LEFT:
                remove_tree(place.with_name(place.name + suffix))


def _let_go(entry: Path) -> None:
    """Unmount a build's own disk from its entry, if it is mounted there, at once (lazily: a process
    of the build that still holds a file there holds no more than that disk, until it ends)."""
    if os.path.ismount(entry):
        _disk_command(["umount", "-l", str(entry)])  # what it says, if it fails, no one could act on


def _unread(folder: Path) -> list[str]:
    """The files of a fresh copy of the port's folder, each marked unread (its access time the
    epoch, its modification time kept), so that those the build reads show it (the kernel's
    ``relatime`` sets the time of a file read once it is older than the file's change); by their
    paths relative to ``folder``."""
    files = []
    for path in tree(folder):
        found = os.lstat(path)
        if stat.S_ISREG(found.st_mode):
            os.utime(path, ns=(0, found.st_mtime_ns), follow_symlinks=False)
            files.append(str(path.relative_to(folder)))
    return files


def _keep_record(entry: Path, folder: Path, source: Path, copied: list[str], deadline: float) -> None:
    """Write down what the build read of the port's files (those whose access time moved) and, for
    each folder it read from, the names of the files there of the kinds it read (their suffixes):
    a file added beside them (a new source a compiler would find by listing the folder) is a new
    build, a file of another kind (what the program leaves) is not. Where no file shows it was read
    (a file system that keeps no access times), no record is kept: only a port's folder as it was
    then finds the build again."""
    read = [name for name in copied if _was_read(folder / name)]
    if not read:
        return
    kinds: dict[str, set[str]] = {}
    for name in read:
        kinds.setdefault(str(Path(name).parent), set()).add(Path(name).suffix)
    try:
        files = {name: _file_digest(source / name, deadline) for name in read}
    except TimeoutError:
        raise BuildFailed("reading the port's files for the build's record ran past its time (--build-timeout)") from None
    kinds_read = {place: {"suffixes": sorted(suffixes), "names": _of_kinds(source / place, suffixes)} for place, suffixes in kinds.items()}
    try:  # a file of the harness's own, as the done mark is: one the build left there is never followed
        written = os.open(entry / READS_NAME, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    except FileExistsError:
        raise BuildFailed(f"the build left a {READS_NAME!r} in its cache entry, where only the harness records what a build read") from None
    with os.fdopen(written, "w") as handle:
        json.dump({"files": files, "kinds": kinds_read}, handle, sort_keys=True)


def _was_read(path: Path) -> bool:
    """Whether the build read a file marked unread by :func:`_unread` (links and what the build replaced count as read)."""
    try:
        found = os.lstat(path)
    except FileNotFoundError:
        return True
    return not stat.S_ISREG(found.st_mode) or found.st_atime_ns != 0


def _record(entry: Path) -> dict[str, Any] | None:
    """A finished entry's record of what its build read; None where it kept none, or it cannot be read."""
    try:
        with os.fdopen(os.open(entry / READS_NAME, os.O_RDONLY | os.O_NOFOLLOW)) as handle:
            record = json.load(handle)
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) and isinstance(record.get("files"), dict) and isinstance(record.get("kinds"), dict) else None


def _still(record: dict[str, Any], folder: Path, digests: dict[str, str | None], deadline: float) -> bool:
    """Whether the port's folder still holds what a build read, as its record says (``digests``: the
    files' digests worked out so far, each file read once however many entries ask)."""
    for name, digest in record["files"].items():
        if name not in digests:
            digests[name] = _file_digest(folder / name, deadline)
        if digests[name] != digest:
            return False
    return all(
        isinstance(kind, dict) and _of_kinds(folder / place, set(kind.get("suffixes", []))) == kind.get("names")
        for place, kind in record["kinds"].items()
    )


def _of_kinds(place: Path, suffixes: set[str]) -> list[str]:
    """The names of the files in a folder whose suffixes are among ``suffixes``, sorted; none where it is gone."""
    try:
        return sorted(entry.name for entry in os.scandir(place) if Path(entry.name).suffix in suffixes and not entry.is_dir(follow_symlinks=False))
    except OSError:
        return []


def _file_digest(path: Path, deadline: float) -> str | None:
    """sha256 of a file's bytes, read in blocks (a link: where it points); None where it is not there."""
    digest = hashlib.sha256()
    try:
        if path.is_symlink():
            return "-> " + os.fsdecode(path.readlink())
        with path.open("rb") as reading:
            while block := reading.read(COPY_BLOCK):
                digest.update(block)
                past(deadline)
    except OSError:
        return None
    return digest.hexdigest()


def _is_file(path: Path) -> bool:
    """Whether ``path`` is a file itself, not a link to one."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except FileNotFoundError:
        return False


def _mark_done(entry: Path) -> None:
    """Make the entry's done mark, a file of the harness's own: one that is there already (a link
    to a file anywhere, say) is the build's, never opened, and the build's error."""
    try:
        os.close(os.open(entry / DONE_NAME, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644))
    except FileExistsError:
        raise BuildFailed(f"the build left a {DONE_NAME!r} in its cache entry, where only the harness marks a finished build") from None


def _strip_setid(entry: Path) -> None:
    """Take the setuid and setgid bits off everything the build left (read with lstat; a link is
    never followed, and no process of the build is left to swap a file for one). A setuid or setgid
    file with another name elsewhere (a hard link to a system's program) is the build's error,
    and left as it is: its bits are that program's."""
    for path in tree(entry):
        found = os.lstat(path)
        if stat.S_ISREG(found.st_mode):  # a file's capabilities are privileges as setuid is
            with contextlib.suppress(OSError):
                os.removexattr(path, CAPABILITIES, follow_symlinks=False)
        if not found.st_mode & SETID or not (stat.S_ISREG(found.st_mode) or stat.S_ISDIR(found.st_mode)):
            continue
        if stat.S_ISREG(found.st_mode) and found.st_nlink > 1 and not os.path.ismount(entry):  # on its own disk, all its names are the build's
            raise BuildFailed(f"the build left a setuid or setgid file with other names outside its cache entry: {Path(path).relative_to(entry)}")
        os.chmod(path, stat.S_IMODE(found.st_mode) & ~SETID)  # noqa: PTH101 - a file or folder, never a link


def _written(entry: Path) -> int:
    """What a build's entry holds, in bytes: each file's blocks, but at least FILE_BYTES a file;
    links are counted, never followed; files that go while being counted are not."""
    total = 0
    for path in tree(entry):
        with contextlib.suppress(FileNotFoundError):
            total += max(os.lstat(path).st_blocks * 512, FILE_BYTES)
    return total


def _held_unlinked(pids: Iterable[int], entry: Path) -> int:
    """Bytes of the entry's disk that ``pids`` hold through files they keep open or mapped and have
    unlinked: taken still, until they let them go, though no folder shows them. Each file is looked
    at through the process, never by a name the build gave it. What a process holds only in a
    socket's queue (a descriptor sent and closed) is not seen: RLIMIT_FSIZE bounds each such file."""
    try:
        device = entry.stat().st_dev
    except OSError:
        return 0
    held: dict[int, int] = {}
    for pid in pids:
        for kind in ("fd", "map_files"):  # open, or mapped into memory (which root alone may look at)
            with contextlib.suppress(OSError):
                for descriptor in os.scandir(f"/proc/{pid}/{kind}"):
                    with contextlib.suppress(OSError):
                        opened = descriptor.stat()  # the file itself, through the process
                        if opened.st_dev == device and opened.st_nlink == 0 and stat.S_ISREG(opened.st_mode):
                            held[opened.st_ino] = opened.st_blocks * 512
    return sum(held.values())


def _copy(source: str, target: str, *, deadline: float | None) -> str:
    """Copy one file in blocks, its mode and times too; :class:`BuildFailed` once ``deadline`` passes
    (a copy of the port's folder, in the build's time; None: no deadline, for the copy of what a build
    kept, bounded by its size), or a full disk stops it (which copytree, collecting only OSErrors,
    lets through at once)."""
    with _cache_written(), os.fdopen(os.open(source, os.O_RDONLY | os.O_NOFOLLOW), "rb") as reading, open(target, "wb") as writing:  # noqa: PTH123 - shutil hands strings
        while block := reading.read(COPY_BLOCK):
            writing.write(block)
            try:
                past(deadline)
            except TimeoutError:
                raise BuildFailed("copying the port's folder for the build ran past its time (--build-timeout)") from None
        shutil.copystat(source, target)
    return target


@contextlib.contextmanager
def _bounded(entry: Path, runner: Runner) -> Iterator[threading.Event]:
    """Watch what the build writes to its entry while it runs, every WATCH_SECONDS, with what its
    processes hold of the cache's disk in files they have unlinked: past BUILD_BYTES, the build is
    stopped, and the event set says so."""
    over, ended = threading.Event(), threading.Event()

    def watch() -> None:
        while not ended.wait(WATCH_SECONDS):
            try:
                past_bound = _written(entry) + _held_unlinked(runner.processes(), entry) > BUILD_BYTES
            except BuildFailed:  # a tree too deep to keep: the count after the command says so
                past_bound = True
            if past_bound:
                over.set()
                runner.stop()
                return

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        yield over
    finally:
        ended.set()
        watcher.join()


def _filled(entry: Path) -> bool:
    """Whether the build filled its own disk (:func:`_own_disk`), where it has one: then it took
    more than BUILD_BYTES, whether or not any folder shows it."""
    if not os.path.ismount(entry):
        return False
    found = os.statvfs(entry)
    return found.f_bavail * found.f_frsize < NEARLY_FULL


def require_program(steps: Sequence[tuple[list[str], str]], made: Callable[[], bool]) -> None:
    """A build whose commands name {binary} must have made it: the command runs it. ``made`` tells
    whether it is there, wherever the build ran."""
    if any("{binary}" in shown for _, shown in steps) and not made():
        raise BuildFailed(f"the build finished with exit code 0 but made no program at {{binary}}: {steps[-1][1]}")


def run_commands(steps: Sequence[tuple[list[str], str]], folder: Path, start: StartCommand, timeout: float, deadline: float) -> None:
    """Run the build's commands in order in ``folder``, all before ``deadline`` (the end of the
    build's ``timeout`` seconds), each within BUILD_BYTES of its entry (the folder's parent),
    stopping at the first that fails: :class:`BuildFailed` saying which and how, in the compiler's words."""
    for argv, shown in steps:
        left = deadline - time.monotonic()
        if left <= 0:
            raise BuildFailed(f"the build ran past its {timeout:g} s (--build-timeout) before {shown}")
        said = StderrKeeper()
        with start(argv, folder, left) as runner, _bounded(folder.parent, runner) as over:
            for block in runner.output():
                said.feed(block)
            finish = runner.finish()
        written = _written(folder.parent)  # BuildFailed for a tree too deep to keep
        if over.is_set() or written > BUILD_BYTES or _filled(folder.parent):
            raise BuildFailed(f"the build wrote more than {size(BUILD_BYTES)} to the cache, the most one build may keep: {shown}")
        if finish.timed_out:
            raise BuildFailed(f"the build ran past its {timeout:g} s (--build-timeout): {shown}")
        if finish.limit:
            raise BuildFailed(f"the build {finish.limit}: {shown}")
        if finish.failure:
            words = finish.evidence.removeprefix("stderr:\n") if finish.evidence != EMPTY_STDERR else said.text()
            how = f"with exit code {finish.exit_code}" if finish.exit_code and finish.exit_code > 0 else f"({finish.failure})"
            raise BuildFailed(f"the build failed {how}: {shown}\n{words}".rstrip())
