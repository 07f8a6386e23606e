"""Run a program as a subprocess and stream its output in bounded blocks, with a deadline: what every
mode but containers runs, whatever walls it puts around it.

Nothing here judges the output: a crash, a timeout or a missing interpreter is reported
as facts on a :class:`~harness.model.Finish` for the caller to turn into an outcome.

A port is code someone else wrote, so it is tracked as a whole process tree: every process it
starts inherits a marker in its environment, and the harness makes itself a subreaper
(``PR_SET_CHILD_SUBREAPER``) so that a descendant that leaves its session with ``setsid`` is
still the harness's to find, kill and reap when the cell ends.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import json
import os
import select
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
import uuid
import weakref
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO

from harness.environment import masked
from harness.errors import Interrupted, StartFailed
from harness.limits import DEFAULT_LIMITS, Fence, Limits, kill_held, reap
from harness.model import Finish, Usage
from harness.output import Stream
from harness.runners.base import Runner

BLOCK_BYTES = 1 << 20
STDERR_HEAD_LINES = 4
STDERR_TAIL_LINES = 12
STDERR_LINE_BYTES = 400
STDERR_KEPT_BYTES = STDERR_LINE_BYTES + 4096
"""What of a line is kept to be masked before it is cut to STDERR_LINE_BYTES: room for a secret
that starts before the cut to be seen whole, and masked, instead of cut through."""
EXIT_GRACE_SECONDS = 1.0
"""How long output may still drain after the port's own process has exited and its tree was killed."""
POLL_SECONDS = 0.1
PIPE_BYTES = 1 << 20
"""The capacity asked for the port's stdout pipe (Linux's default most for an unprivileged process):
room for what a port prints while the harness waits to read it in large blocks."""
GATHER_SECONDS = 0.002
"""After a small read, how long the harness lets the pipe fill before it reads again. A port that
writes a line at a time would otherwise wake it for every line; this way it reads each stretch in
one call, with far less of its own time (and the GIL) per move, at a cost of milliseconds."""
SMALL_READ_BYTES = 1 << 15
EMPTY_STDERR = "stderr was empty"
"""A finished program's evidence where it wrote nothing to standard error."""
CELL_MARKER = "HANOI_HARNESS_CELL"
"""The environment variable every process of a port's tree inherits: ``<harness identity>:<cell id>``."""
PR_SET_CHILD_SUBREAPER = 36
NAMED_SECONDS = 2.0
"""How long, at a cell's end, bubblewrap's status line naming the sandbox's first process is awaited."""
STATUS_LINE_BYTES = 4096
SERVER_FOLDER_PREFIX = "hanoi-postgres-"
OWNER_FILE = "owner"
"""A server's folder in the temporary folder, and the file in it naming the harness that owns it."""
SERVER_FILE = "server"
"""In a server's folder: the process the harness started for it (its pid and start time, written by
the harness, never by the server), which a later run ends if the harness is gone."""


SHARED_TEMPORARY = (Path("/tmp"), Path("/var/tmp"), Path("/dev/shm"))
"""Where a server's folder goes when root's server user cannot pass through the temporary folder's
parents (a TMPDIR under /root, whose mode is 0700): places every user may pass through."""


def passable(folder: Path) -> bool:
    """Whether every user may pass through ``folder`` and each folder above it (each lets others
    search it), as a server that runs as a user of its own must to reach what it needs."""
    try:
        return all(each.stat().st_mode & stat.S_IXOTH for each in (folder, *folder.parents))
    except OSError:
        return False


def server_parent(parent: Path | None) -> Path | None:
    """Where a run's server keeps its folder: ``parent`` (the temporary folder, if None); as root,
    whose server runs as a user of its own, only if that user may pass through it, else the first
    shared temporary folder that lets it (None if none does). No folder's mode is changed for it."""
    own = Path(parent or tempfile.gettempdir())
    if os.geteuid() != 0 or passable(own):
        return own
    return next((folder for folder in SHARED_TEMPORARY if passable(folder)), None)


def widen_pipe(fd: int) -> None:
    """Ask for PIPE_BYTES of room in a pipe the harness reads (Linux only; elsewhere the default stays)."""
    with contextlib.suppress(OSError, AttributeError):
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)


class Pipes:
    """Pipes the harness reads, each widened, polled together: each that is ready gives its next block
    (up to BLOCK_BYTES), and once it has closed an empty one, after which it is polled no more."""

    def __init__(self, *fds: int) -> None:
        self._poller = select.poll()
        self.open = len(fds)
        """How many of them have not closed."""
        for fd in fds:
            widen_pipe(fd)
            self._poller.register(fd, select.POLLIN | select.POLLHUP)

    def ready(self, seconds: float | None = None) -> list[tuple[int, bytes]]:
        """Each pipe ready within ``seconds`` (None: as long as it takes one to be), with its block."""
        blocks = []
        for fd, _ in self._poller.poll(None if seconds is None else 1000 * seconds):
            block = os.read(fd, BLOCK_BYTES)
            if not block:
                self._poller.unregister(fd)
                self.open -= 1
            blocks.append((fd, block))
        return blocks


def let_fill(block: bytes) -> None:
    """After a small read, let the pipe fill for GATHER_SECONDS before reading it again."""
    if len(block) < SMALL_READ_BYTES:
        time.sleep(GATHER_SECONDS)


def feed(stdin: IO[bytes] | None, data: bytes | None) -> None:
    """Write a program's standard input, if it has some, from a thread of its own, and close it."""
    if data is None or stdin is None:
        return

    def write() -> None:
        with contextlib.suppress(OSError):  # the port did not read it all: its output will say what that did
            stdin.write(data)
            stdin.close()

    threading.Thread(target=write, daemon=True).start()


def become_subreaper() -> None:
    """Adopt the orphans of every port this process starts, so none escapes to init. Linux only;
    elsewhere the environment marker alone finds a port's descendants."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def describe_exit(returncode: int) -> str:
    """``killed by SIGSEGV (signal 11)``, or an exit code, with the signal a shell's 128 + N means."""
    if returncode < 0:
        return f"killed by {_signal_name(-returncode)} (signal {-returncode})"
    if 128 < returncode <= 128 + 64:
        return (
            f"exited with code {returncode} (from a shell, that usually means killed by "
            f"{_signal_name(returncode - 128)}, signal {returncode - 128})"
        )
    return f"exited with code {returncode}"


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def process_status(pid: int) -> list[bytes] | None:
    """The fields of /proc/PID/stat after the process's name (its state first), or None once it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_bytes().rpartition(b")")[2].split()
    except OSError:
        return None


def _pid_space() -> str | None:
    """This boot of this machine and the process namespace in which our pids mean something
    (``<boot id>/<namespace inode>``); None where /proc cannot say (not Linux)."""
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
        namespace = "".join(filter(str.isdigit, str(Path("/proc/self/ns/pid").readlink())))
    except OSError:
        return None
    return f"{boot}/{namespace}"


PID_SPACE = _pid_space()


def identity(pid: int) -> str | None:
    """A process's pid and start time, ``1234-567890``: unlike a pid alone, never some later process's."""
    fields = process_status(pid)
    return f"{pid}-{fields[19].decode()}" if fields and len(fields) > 19 else None


def alive(owner: str) -> bool:
    """Whether the harness an owner (``HARNESS``) names may still be running: False only where it is
    provably gone, a process of this boot and this process namespace that no longer runs. A run in
    another namespace (a container sharing the temporary folder) is never judged from here, where its
    pids mean other processes."""
    process, _, space = owner.partition("@")
    if PID_SPACE is None or space != PID_SPACE:
        return True
    pid, _, _ = process.partition("-")
    return pid.isdigit() and identity(int(pid)) == process


HARNESS = f"{identity(os.getpid()) or os.getpid()}@{PID_SPACE}"
"""This harness process, as the owner of everything it starts: its pid and start time in its
process namespace, so that a later run can tell whether it is gone."""


def descendants(pid: int) -> list[int]:
    """Every process below ``pid``, children first, as /proc says now."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit() and (fields := process_status(int(entry.name))) is not None and len(fields) > 1:
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    found, waiting = [], list(children.get(pid, []))
    while waiting:
        child = waiting.pop(0)
        found.append(child)
        waiting += children.get(child, [])
    return found


def namespaced_pid(pid: int) -> int | None:
    """A process's number in its own process namespace (a sandbox's, a container's), as /proc's
    NSpid says; its number here where it has no namespace of its own; None once it is gone."""
    status = process_details(pid)
    if status is None:
        return None
    numbers = status.get("NSpid", [str(pid)])
    return int(numbers[-1]) if numbers and numbers[-1].isdigit() else None


def process_details(pid: int) -> dict[str, list[str]] | None:
    """/proc/PID/status: each line's words after its name (``NSpid``, ``VmHWM``), by name; None once the process is gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text(errors="replace")
    except OSError:
        return None
    return {name: rest.split() for name, _, rest in (line.partition(":") for line in status.splitlines())}


def kill_group(pid: int) -> None:
    """Kill a port started in a session of its own, and every process it started; gone already is fine."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def marked_processes(*markers: str) -> list[int]:
    """The processes whose environment carries one of ``markers``: ports' whole trees, however they forked."""
    wanted = {f"{CELL_MARKER}={marker}".encode() for marker in markers}
    return [pid for pid, variables in environments() if not wanted.isdisjoint(variables)]


def kill_trees(marked: Mapping[int, str]) -> None:
    """Kill each port's process group (by its leader) and every process that carries its marker, until
    none is left, and reap the ones that were orphaned to this process. One scan of /proc a round
    serves them all: Ctrl-C ending a run's sixty version commands a scan each took longer than a
    stopped run may take."""
    for leader in marked:
        kill_group(leader)
    if not Path("/proc").is_dir():
        return
    wanted = {f"{CELL_MARKER}={marker}".encode() for marker in marked.values()}
    for _ in range(50):  # a fork between the scan and the kill is caught by the next scan
        pids = [pid for pid, variables in environments() if not wanted.isdisjoint(variables)]
        if not pids:
            return
        held = {pid: pidfd for pid in pids if (pidfd := _hold_marked(pid, wanted)) is not None}
        kill_held(held.values())
        for pid, pidfd in held.items():
            if pid in marked:  # a leader is subprocess's to reap
                os.close(pidfd)
            else:
                reap(pidfd)


def _hold_marked(pid: int, wanted: set[bytes]) -> int | None:
    """A pidfd for ``pid`` while it still carries one of the ``wanted`` markers: the process found in
    the scan, never another that took its number since (this machine may reuse one within seconds)."""
    try:
        pidfd = os.pidfd_open(pid)
    except OSError:
        return None
    try:
        variables = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:
        variables = []
    if wanted.isdisjoint(variables):
        os.close(pidfd)
        return None
    return pidfd


class SandboxFirst:
    """The first process of a sandbox, as bubblewrap names it on its status pipe (``--json-status-fd``)
    the moment it starts it. It outlives bubblewrap by a moment, so this process, a subreaper, adopts
    it and must reap it (a smoke of three ports left 224 such zombies). It is held by a pidfd from when
    it is named, so that the process reaped is that one (:func:`_hold_child`). The pipe
    is read to its end, by a thread that then closes it: bubblewrap writes its exit code on it last,
    and a pipe closed before would kill it."""

    def __init__(self, status: int, bubblewrap: int) -> None:
        self._pidfd: int | None = None
        self._named = threading.Event()
        threading.Thread(target=self._read, args=(status, bubblewrap), daemon=True).start()

    def _read(self, status: int, bubblewrap: int) -> None:
        with os.fdopen(status, "rb") as pipe:
            try:
                named = json.loads(pipe.readline(STATUS_LINE_BYTES) or "{}").get("child-pid")
                if isinstance(named, int):
                    self._pidfd = _hold_child(named, bubblewrap)
            except (ValueError, AttributeError, OSError):
                pass  # no sandbox started, or a line this reader does not know: nothing to reap
            finally:
                self._named.set()
            while pipe.read(STATUS_LINE_BYTES):
                pass

    def reap(self) -> None:
        """Kill and reap the sandbox's first process, once bubblewrap has ended."""
        if self._named.wait(NAMED_SECONDS) and self._pidfd is not None:
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)
            reap(self._pidfd)
            self._pidfd = None


def _hold_child(pid: int, parent: int) -> int | None:
    """A pidfd for ``pid`` while it is the first process of a process namespace below this one, and
    ``parent``'s child or, ``parent`` gone, this process's. No child this process starts is ever
    such a first process, so whatever took the number since is never one of them."""
    try:
        pidfd = os.pidfd_open(pid)
    except OSError:
        return None
    details = process_details(pid) or {}
    numbers, ppid = details.get("NSpid", []), details.get("PPid", [])
    if len(numbers) < 2 or numbers[-1] != "1" or ppid not in ([str(parent)], [str(os.getpid())]):
        os.close(pidfd)
        return None
    return pidfd


class StderrKeeper:
    """The first and last few lines of a port's stderr, each cut short, in bounded memory however much
    it writes: the first lines name the error in some languages, the last in most. Fed blocks as they
    come, by :meth:`feed` or by a thread reading a stream (:meth:`reading`)."""

    def __init__(self, name: str = "stderr") -> None:
        """``name``: the stream it keeps, as the evidence names it (``stdout``, where the moves are on standard error)."""
        self.name = name
        self.lines = 0
        """How many lines the stream held, a last one without its line ending included."""
        self._head: list[tuple[bytes, int]] = []
        self._tail: list[tuple[bytes, int]] = []
        """Each line kept: its start, up to STDERR_KEPT_BYTES, and how long it was."""
        self._partial = b""
        self._partial_bytes = 0
        self._dropped = 0
        self._thread: threading.Thread | None = None

    @classmethod
    def reading(cls, stream: IO[bytes], name: str = "stderr") -> StderrKeeper:
        """A keeper fed by a thread of its own from ``stream`` until it closes."""
        keeper = cls(name)
        keeper._thread = threading.Thread(target=keeper._read, args=(stream.fileno(),), daemon=True)
        keeper._thread.start()
        return keeper

    def _read(self, fd: int) -> None:
        while block := os.read(fd, 1 << 16):
            self.feed(block)

    def feed(self, block: bytes) -> None:
        """Keep what belongs of one more block of stderr."""
        *complete, rest = block.split(b"\n")
        for piece in complete:
            self._line(self._partial + piece[:STDERR_KEPT_BYTES], self._partial_bytes + len(piece))
            self._partial, self._partial_bytes = b"", 0
        room = STDERR_KEPT_BYTES - len(self._partial)
        self._partial += rest[: max(room, 0)]
        self._partial_bytes += len(rest)

    def _line(self, kept: bytes, length: int) -> None:
        self.lines += 1
        line = (kept[:STDERR_KEPT_BYTES], length)
        if len(self._head) < STDERR_HEAD_LINES:
            self._head.append(line)
            return
        self._tail.append(line)
        if len(self._tail) > STDERR_TAIL_LINES:
            del self._tail[0]
            self._dropped += 1

    def text(self) -> str:
        """What was kept, once the stream has ended, or EXIT_GRACE_SECONDS from now if it has not: a
        process that escaped its cell and holds the stream open keeps no one waiting."""
        if self._thread is not None:
            self._thread.join(EXIT_GRACE_SECONDS)
            if self._thread.is_alive():
                return self._kept()
        if self._partial_bytes:
            self._line(self._partial, self._partial_bytes)
            self._partial, self._partial_bytes = b"", 0
        return self._kept()

    def _kept(self) -> str:
        gap = [f"… ({self._dropped:,} lines left out) …"] if self._dropped else []
        return "\n".join([*map(_shown, self._head), *gap, *map(_shown, self._tail)]).rstrip()


def _shown(line: tuple[bytes, int]) -> str:
    """A kept line of stderr as a report quotes it: masked first, as a cut through a secret would
    hide it from the mask, then cut to STDERR_LINE_BYTES."""
    kept, length = line
    shown = masked(kept.decode("utf-8", "replace")).encode()
    more = len(shown) - STDERR_LINE_BYTES + max(length - STDERR_KEPT_BYTES, 0)
    return (shown[:STDERR_LINE_BYTES].decode("utf-8", "replace") + (f"… ({more:,} more bytes)" if more > 0 else ""))


def ended(returncode: int, timed_out: bool, stopped: bool, stderr: StderrKeeper, limit: str | None, usage: Usage) -> Finish:
    """How a program's run ended, from its exit code and what the runner saw; ``stderr`` keeps the
    stream its moves are not read from (standard error, unless they are read there)."""
    tail = stderr.text()
    empty = EMPTY_STDERR if stderr.name == "stderr" else f"{stderr.name} was empty" * bool(stderr.name)
    return Finish(
        failure=describe_exit(returncode) if returncode else None,
        timed_out=timed_out,
        stopped=stopped,
        evidence=f"{stderr.name}:\n{tail}" if tail else empty,
        limit=limit,
        usage=usage,
        exit_code=returncode,
        unread_lines=stderr.lines,
    )


KEPT = {"stdout": "stderr", "stderr": "stdout", "both": ""}
"""The stream kept as evidence, by the stream the moves are read from: with both read, none is left."""


class Processes:
    """The port processes of one run, which Ctrl-C ends; once it has, the run is closing and no other
    starts. Each run has its own, so that one that ended leaves nothing behind for the next."""

    def __init__(self) -> None:
        self.running: weakref.WeakSet[PortProcess] = weakref.WeakSet()
        self.closed = threading.Event()
        self.lock = threading.Lock()

    def closing(self) -> bool:
        """Whether the run is closing, so that nothing new starts."""
        return self.closed.is_set()

    def stop_all(self) -> None:
        """End every port still running and start no other, as when the user interrupts the harness."""
        with self.lock:
            self.closed.set()
            running = list(self.running)
        for process in running:
            process.stop(halt=False)
        kill_trees({process.pid: process.marker for process in running})


class Streams:
    """A program's standard streams: pipes whose other ends the harness keeps. A pipe belongs to the
    user who made it, with mode 0600, so a program that root starts as another user (the sandbox's,
    a server's) could not reopen its own output by name (``/dev/stdout``, ``/proc/self/fd/1``, as
    ``tee /dev/stderr`` does) where it could in every other mode: each pipe is made that ``owner``'s."""

    def __init__(self, with_input: bool, owner: int | None, stream: Stream = "stdout") -> None:
        """``stream``: which of the program's streams the output pipe is, the other going to the
        errors pipe: its standard output, its standard error, or both (nothing to the errors pipe)."""
        self._ends: list[int] = []
        self.stdin, self._input = self._pipe(owner) if with_input else (subprocess.DEVNULL, -1)
        self._output, moves = self._pipe(owner)
        self._errors, other = self._pipe(owner)
        self.stdout, self.stderr = {"stdout": (moves, other), "stderr": (other, moves), "both": (moves, moves)}[stream]
        self._unused = other if stream == "both" else -1

    def _pipe(self, owner: int | None) -> tuple[int, int]:
        read, write = os.pipe()
        self._ends += [read, write]
        if owner is not None:
            os.fchown(write, owner, -1)  # both ends are one pipe
        return read, write

    def handed(self) -> tuple[IO[bytes] | None, IO[bytes], IO[bytes]]:
        """The harness's ends, once the program has its own: its input to write, its output and errors to read."""
        for end in dict.fromkeys((self.stdin, self.stdout, self.stderr, self._unused)):
            if end >= 0:
                os.close(end)
        return (os.fdopen(self._input, "wb") if self._input >= 0 else None), os.fdopen(self._output, "rb"), os.fdopen(self._errors, "rb")

    def close(self) -> None:
        """Close every end, the program not started."""
        for end in self._ends:
            os.close(end)


@dataclass(frozen=True)
class Launch:
    """How a port's program starts, beyond its command line, folder and time: what it is fed
    (``stdin``), its ``limits``, and what its mode gives it."""

    stdin: bytes | None = None
    limits: Limits = DEFAULT_LIMITS
    env: Mapping[str, str] | None = None
    """The program's environment, where it is held (the sandbox); None: the harness's own."""
    own_pids: bool = False
    """In a process namespace of its own where no control group holds it (:class:`~harness.limits.Fence`)."""
    pass_fds: Sequence[int] = ()
    """Descriptors the program inherits (what bubblewrap reads a file's text from)."""
    owner: int | None = None
    """The user the program becomes, where root starts it as another (:class:`Streams`)."""
    stream: Stream = "stdout"
    """Which of its streams :meth:`PortProcess.output` gives (:class:`Streams`)."""
    status: int | None = None
    """Bubblewrap's status pipe, the end to read, which the process started takes (:class:`SandboxFirst`)."""


PLAIN = Launch()
"""A program fed nothing, within the default limits, in the harness's environment."""


class PortProcess(Runner):
    """One running port, tracked as its whole process tree."""

    def __init__(self, argv: list[str], folder: Path, timeout: float, launch: Launch = PLAIN, processes: Processes | None = None) -> None:
        """``argv`` started in ``folder`` as ``launch`` says, for ``timeout`` seconds; ``processes``:
        the run's, which it joins (a process of its own otherwise)."""
        stdin, env = launch.stdin, launch.env
        self.marker = f"{HARNESS}:{uuid.uuid4().hex}"
        """What every process of the port carries in its environment (as CELL_MARKER), however it forked."""
        self._processes = processes or Processes()
        with self._processes.lock:
            if self._processes.closed.is_set():
                if launch.status is not None:
                    os.close(launch.status)
                raise Interrupted("the run is closing: no port starts now")
            self._fence = Fence(launch.limits, launch.own_pids)
            streams = Streams(stdin is not None, launch.owner, launch.stream)
            try:
                self._process = subprocess.Popen(
                    self._fence.wrap(argv),
                    cwd=folder,
                    stdin=streams.stdin if stdin is not None else subprocess.DEVNULL,
                    stdout=streams.stdout,
                    stderr=streams.stderr,
                    start_new_session=True,
                    pass_fds=launch.pass_fds,
                    env={**(os.environ if env is None else env), CELL_MARKER: self.marker},
                )
            except BaseException as error:
                self._fence.close()
                streams.close()
                if launch.status is not None:
                    os.close(launch.status)
                if isinstance(error, OSError):
                    raise StartFailed(f"could not start the port's program: {error}") from None
                raise
            self._input, self._output, self._errors = streams.handed()
            self._first = None if launch.status is None else SandboxFirst(launch.status, self._process.pid)
            self._processes.running.add(self)
        self._fence.watch(lambda: marked_processes(self.marker), self._halt)
        super().__init__(timeout)
        self._stderr = StderrKeeper.reading(self._errors, KEPT[launch.stream])
        feed(self._input, stdin)
        self._exit_seen: float | None = None
        self._cpu_seconds: float | None = None

    @property
    def pid(self) -> int:
        """The process the harness started: the port's own, or what walls it in (bubblewrap)."""
        return self._process.pid

    def processes(self) -> list[int]:
        """Every process of the port's tree: by its marker, and in its control group where it has one
        (which holds a process that has left the marker out of its environment too)."""
        grouped = self._fence.group.pids() if self._fence.group else []
        return sorted({*grouped, *marked_processes(self.marker)})

    def exited(self) -> bool:
        """Whether the process the harness started has exited (it is then reaped)."""
        return self._reaped()

    def output(self) -> Iterator[bytes]:
        """The port's stdout in blocks as it prints them, until it closes, until the port has exited
        and its stragglers are gone, or until the deadline."""
        pipe = Pipes(self._output.fileno())
        checked = 0.0
        while not self.stopped:
            now = time.monotonic()
            if now >= self.deadline:
                self._expire()
                return
            if self._exit_seen is None and now - checked >= POLL_SECONDS:
                checked = now
                if self._reaped():
                    self._exit_seen = now  # judged on its own exit: whatever it left holding the pipe goes
                    self._halt()
            if self._exit_seen is not None and now - self._exit_seen > EXIT_GRACE_SECONDS:
                return
            ready = pipe.ready(min(POLL_SECONDS, self.deadline - now))
            if not ready:
                checked = 0.0  # quiet: has the port exited, leaving something that holds the pipe?
                continue
            block = ready[0][1]
            if not block:
                return
            yield block
            let_fill(block)

    def finish(self) -> Finish:
        """How the port ended, once its own process has exited (or has been killed at the deadline)."""
        waited_until = self.deadline + EXIT_GRACE_SECONDS
        pause = 0.0005
        while not self._reaped():
            if time.monotonic() >= waited_until:
                self._expire()
                self._reaped(block=True)
                break
            time.sleep(pause)
            pause = min(pause * 2, POLL_SECONDS)
        self._halt()  # whatever the port left running goes with it
        if self._first is not None:
            self._first.reap()
            self._first = None
        limit = self._fence.breach()
        cpu = self._fence.cpu_seconds()  # the whole tree's, where its group counts it; else what wait4 saw
        usage = Usage(cpu if cpu is not None else self._cpu_seconds, self._fence.peak())
        shares_cpu = self._fence.shares_cpu()
        self._fence.close()
        with self._processes.lock:
            self._processes.running.discard(self)
        assert self._process.returncode is not None
        finish = ended(self._process.returncode, self.timed_out, self.stopped, self._stderr, limit, usage)
        return replace(finish, cpu_shared=shares_cpu)

    def _reaped(self, block: bool = False) -> bool:
        """Whether the port's own process has exited. It is reaped here rather than by Popen, with
        what it and the children it waited for used: os.wait4 tells that, Popen.poll does not."""
        if self._process.returncode is not None:
            return True
        try:
            pid, status, used = os.wait4(self._process.pid, 0 if block else os.WNOHANG)
        except ChildProcessError:  # reaped already, by Popen's own clean-up
            self._process.returncode = self._process.wait()
            return True
        if pid == 0:
            return False
        self._process.returncode = os.waitstatus_to_exitcode(status)
        self._cpu_seconds = used.ru_utime + used.ru_stime
        return True

    def _halt(self) -> None:
        kill_trees({self._process.pid: self.marker})

    def close(self) -> None:
        """Kill the port's tree if it still runs, reap it, and close its pipes."""
        if not self._reaped():
            self._halt()
        self.finish()
        for stream in (self._input, self._output, self._errors):
            if stream is not None:
                stream.close()


def running(pid: int) -> bool:
    """Whether ``pid`` runs (an exited process not yet reaped does not)."""
    fields = process_status(pid)
    return fields is not None and fields[:1] != [b"Z"]


def environments() -> Iterator[tuple[int, list[bytes]]]:
    """Each process's pid and environment variables (``NAME=value``), as far as /proc lets us read them."""
    return _proc_lists("environ")


def command_lines() -> Iterator[tuple[int, list[bytes]]]:
    """Each process's pid and command line (its arguments), as far as /proc lets us read them."""
    return ((pid, argv) for pid, argv in _proc_lists("cmdline") if argv[0])


def _proc_lists(name: str) -> Iterator[tuple[int, list[bytes]]]:
    """Each process's pid and its /proc/PID/``name`` split at its NULs."""
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                items = Path(f"/proc/{entry.name}/{name}").read_bytes().split(b"\0")
            except OSError:  # gone, or not ours to read
                continue
            yield int(entry.name), items
