"""Hard limits around one cell, whatever it runs in: resident memory of the port's whole process
tree, and the number of its processes (the deadline is the runner's). Crossing one is a fact for the judge, named
with what the port reached ("used more than 2 GiB of memory (peak 2.1 GiB)").

Memory and processes are held by a control group of the cell's own where one can be made: cgroup v2
(memory.max, pids.max), else the v1 memory and pids controllers. The kernel then refuses the fork
and kills on memory itself, so a fork bomb or a runaway allocation is stopped at once. Where no
control group is writable, a watcher samples the tree's resident memory and process count from
/proc, and kills the tree when it crosses a limit: slower to notice, but the same verdict.
Resident memory, not address space: SBCL, Go and the JVM reserve huge address spaces they never use.
The group has the CPU controller too where the machine offers it, so that each cell weighs the same
in the kernel's sharing of the CPU, however many processes or sessions its port starts.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import re
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from harness.patience import Patience

DEFAULT_MEMORY = 2 << 30
DEFAULT_PROCESSES = 256
WATCH_SECONDS = 0.05
CGROUP_ROOT = Path("/sys/fs/cgroup")
OPTIONAL_CONTROLLERS = ("cpu", "cpuacct")
"""What a cell's group has where the machine offers it: its own share of the CPU (cpu: every cell's
group weighs the same, so a port's share does not grow with its processes or sessions), and the
count of its CPU time (cpuacct; cgroup v2's cpu.stat counts it always)."""
UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


@dataclass(frozen=True)
class Limits:
    """What one cell may use besides its time: bytes of resident memory, and processes at once.
    ``files``: folders of the program's own view whose files are memory too (a sandbox's private
    file systems), counted with its processes' where no control group charges them to the cell."""

    memory: int = DEFAULT_MEMORY
    processes: int = DEFAULT_PROCESSES
    files: tuple[Path, ...] = ()


DEFAULT_LIMITS = Limits()
BUILD_BYTES = 1 << 30
"""The most one build may keep, or be given: a build's cache entry (build.py), the port's folder
copied into it, and the context of a port's image (images.py). Each file counts as at least
FILE_BYTES, so that a million empty files are as much as four gigabytes."""
REAP_SECONDS = 2.0
"""How long a killed process is waited for to be reaped: one that outlasts SIGKILL (in the kernel,
on a slow disk) is left, rather than the cell held."""
FILE_BYTES = 4096


def parse_size(text: str) -> int:
    """``2G``, ``512M``, ``2GiB``, ``1.5g`` or a number of bytes; ValueError for anything else."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(?:I?B)?\s*", text.upper())
    if not match or float(match[1]) <= 0:
        raise ValueError(f"{text!r} is not a size such as 512M or 2G")
    return int(float(match[1]) * UNITS[match[2]])


def size(count: int) -> str:
    """Bytes for people: ``2 GiB``, ``1.5 GiB``, ``300 MiB``."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= scale:
            return f"{count / scale:.3g} {unit}"
    return f"{count} B"


def memory_breach(limits: Limits, peak: int | None) -> str:
    """Named with the peak where it was seen above the limit (a control group stops it at the limit)."""
    reached = f" (peak {size(peak)})" if peak and peak > limits.memory else ""
    return f"used more than {size(limits.memory)} of memory{reached}"


def processes_breach(limits: Limits) -> str:
    """The process limit, named as crossed."""
    return f"tried to run more than {limits.processes} processes at once"


class CellGroup:
    """A control group for one cell: the port's tree is put in it before the port's program runs
    (:meth:`wrap`), and it is emptied and removed when the cell is done (:meth:`close`). Or a
    container's group, which the engine made and removes: :meth:`of_process`."""

    _serial = itertools.count()

    def __init__(self, limits: Limits, folders: dict[str, Path], version: int, owned: bool) -> None:
        self.limits, self.folders, self.version, self.owned = limits, folders, version, owned
        self._before = (0, 0)
        self._cpu_before: float | None = None

    @classmethod
    def make(cls, limits: Limits) -> CellGroup | None:
        """A new group with the limits written, or None where no control group can be made here."""
        layout = _layout()
        if layout is None:
            return None
        version, parents = layout
        name = f"hanoi-{os.getpid()}-{next(cls._serial)}"
        group = cls(limits, {controller: parent / name for controller, parent in parents.items()}, version, owned=True)
        made: set[Path] = set()
        try:
            for controller, folder in list(group.folders.items()):
                if folder in made:
                    continue
                if version == 1 and controller in OPTIONAL_CONTROLLERS:
                    if not _try_mkdir(folder):
                        del group.folders[controller]  # the group does without
                        continue
                else:
                    folder.mkdir()
                made.add(folder)
            group._write_limits()
        except OSError:
            group.close()
            return None
        return group

    @classmethod
    def of_process(cls, pid: int, limits: Limits) -> CellGroup | None:
        """The group a process is in (a container's, whose limits the engine wrote), or None where
        it cannot be read from here."""
        mounts, groups = _cgroup_mounts(), _groups(f"/proc/{pid}/cgroup")
        if "cgroup2" in mounts and "0" in groups and (mounts["cgroup2"] / groups["0"].lstrip("/") / "memory.max").exists():
            folder = mounts["cgroup2"] / groups["0"].lstrip("/")
            return cls(limits, {"memory": folder, "pids": folder, "cpuacct": folder}, 2, owned=False)
        if all(controller in mounts and controller in groups for controller in ("memory", "pids")):
            folders: dict[str, Path] = {
                controller: mounts[controller] / groups[controller].lstrip("/")
                for controller in ("memory", "pids", "cpuacct") if controller in mounts and controller in groups
            }
            return cls(limits, folders, 1, owned=False)
        return None

    def _write_limits(self) -> None:
        memory, pids = self.folders["memory"], self.folders["pids"]
        if self.version == 2:
            (memory / "memory.max").write_text(str(self.limits.memory))
            _try_write(memory / "memory.swap.max", "0")
        else:
            (memory / "memory.limit_in_bytes").write_text(str(self.limits.memory))
            _try_write(memory / "memory.memsw.limit_in_bytes", str(self.limits.memory))
        (pids / "pids.max").write_text(str(self.limits.processes))

    def begin(self) -> None:
        """A cell starts in the group: count its crossings and CPU from here (a container's group outlives cells)."""
        self._before = self._crossings()
        self._cpu_before = self._cpu()
        if self.version == 1:
            _try_write(self.folders["memory"] / "memory.max_usage_in_bytes", "0")

    def _crossings(self) -> tuple[int, int]:
        """How often, so far, the kernel killed for memory and refused a fork."""
        memory, pids = self.folders["memory"], self.folders["pids"]
        oom = _counter(memory / ("memory.events" if self.version == 2 else "memory.oom_control"), "oom_kill")
        return oom, _counter(pids / "pids.events", "max")

    def breach(self) -> str | None:
        """The limit the cell crossed, if it did, with what it reached."""
        oom, forks = (now - before for now, before in zip(self._crossings(), self._before))
        if oom:
            return memory_breach(self.limits, self.peak())
        if forks:
            return processes_breach(self.limits)
        return None

    def _cpu(self) -> float | None:
        """CPU seconds the group's processes have used, alive or gone, where the group counts them."""
        if self.version == 2:
            used = _counter(self.folders["cpuacct"] / "cpu.stat", "usage_usec")
            return used / 1e6 if (self.folders["cpuacct"] / "cpu.stat").exists() else None
        nanoseconds = _number(self.folders["cpuacct"] / "cpuacct.usage") if "cpuacct" in self.folders else None
        return nanoseconds / 1e9 if nanoseconds is not None else None

    def cpu_seconds(self) -> float | None:
        """CPU seconds used since :meth:`begin`, or None where the group does not count them."""
        now = self._cpu()
        return now - self._cpu_before if now is not None and self._cpu_before is not None else None

    def peak(self) -> int | None:
        """The group's peak memory so far (since :meth:`begin`, where the kernel lets it be reset)."""
        return _number(self.folders["memory"] / ("memory.peak" if self.version == 2 else "memory.max_usage_in_bytes"))

    def pids(self) -> list[int]:
        """The processes in the group now."""
        try:
            return [int(line) for line in (self.folders["pids"] / "cgroup.procs").read_text().split()]
        except (OSError, ValueError):
            return []

    def wrap(self, argv: list[str]) -> list[str]:
        """The command, started by a shell that first moves itself into the group: so the port and
        everything it starts are inside from the first instruction."""
        procs = [str(folder / "cgroup.procs") for folder in dict.fromkeys(self.folders.values())]
        joins = " && ".join(f'echo $$ > "${index + 1}"' for index in range(len(procs)))
        return ["/bin/sh", "-c", f'{joins} && shift {len(procs)} && exec "$@"', "sh", *procs, *argv]

    def kill(self) -> list[int]:
        """Kill every process in the group, until none is left (a fork bomb forks while it is killed),
        each through a pidfd held while it was in the group (never a process that took its number
        since): those pidfds, for the caller to reap what this process adopted."""
        held = hold_members(self.pids)
        kill_file = self.folders["pids"] / "cgroup.kill"
        if self.version == 2 and kill_file.exists() and _try_write(kill_file, "1"):
            return held
        for _ in range(100):
            kill_held(held)
            more = hold_members(self.pids)
            if not more:
                break
            held += more
        return held

    def close(self) -> None:
        """Empty a group made for the cell, remove it once its killed processes are gone, and reap
        those of them this process adopted (a subreaper, it adopts what a port leaves in a session
        of its own): once the group is empty, every one whose parent is gone is this process's."""
        if not self.owned:
            return
        killed = self.kill()
        for folder in dict.fromkeys(self.folders.values()):
            for _ in range(200):
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:  # EBUSY while the killed processes are reaped
                    threading.Event().wait(0.01)
        for pidfd in killed:
            reap(pidfd)


def hold_members(members: Callable[[], Iterable[int]]) -> list[int]:
    """A pidfd for each process ``members`` lists, kept where ``members`` lists it still once its pidfd
    is open: that process, then, never one that took its number since (this machine may reuse one within seconds)."""
    opened: dict[int, int] = {}
    for pid in members():
        with contextlib.suppress(OSError):
            opened[pid] = os.pidfd_open(pid)
    still = set(members())
    for pid in [pid for pid in opened if pid not in still]:
        os.close(opened.pop(pid))
    return list(opened.values())


def kill_held(held: Iterable[int]) -> None:
    """SIGKILL each process a pidfd holds; one gone already is fine."""
    for pidfd in held:
        with contextlib.suppress(ProcessLookupError):
            signal.pidfd_send_signal(pidfd, signal.SIGKILL)


def reap(pidfd: int, seconds: float = REAP_SECONDS) -> None:
    """Collect the exit of the process ``pidfd`` holds, where it was orphaned to this process, so that it
    does not linger as a zombie (one still running is given ``seconds``); not ours is fine. Then close it.
    Reaped by its pidfd, it is that process, never a child subprocess started later under its number."""
    waited = Patience(seconds)
    try:
        while os.waitid(os.P_PIDFD, pidfd, os.WEXITED | os.WNOHANG) is None and not waited.over():
            time.sleep(0.001)
    except ChildProcessError:
        pass
    finally:
        os.close(pidfd)


def _layout() -> tuple[int, dict[str, Path]] | None:
    """Where this process may make groups with the memory and pids controllers: (2, {...}) for
    cgroup v2, (1, {...}) for v1 hierarchies, or None."""
    mounts = _cgroup_mounts()
    own = _groups("/proc/self/cgroup")
    unified = mounts.get("cgroup2")
    if unified is not None and "0" in own:
        parent = unified / own["0"].lstrip("/")
        controllers = _read(parent / "cgroup.controllers").split()
        if {"memory", "pids"} <= set(controllers) and _delegate(parent):
            shares = {"cpu": parent} if "cpu" in controllers and _delegate(parent, "cpu") else {}
            return 2, {"memory": parent, "pids": parent, "cpuacct": parent, **shares}
    parents: dict[str, Path] = {}
    for controller in ("memory", "pids", *OPTIONAL_CONTROLLERS):
        if controller in mounts and controller in own:
            parents[controller] = mounts[controller] / own[controller].lstrip("/")
        elif controller not in OPTIONAL_CONTROLLERS:
            return None
    return 1, parents


def _delegate(parent: Path, *controllers: str) -> bool:
    """Whether the v2 group can give its children these controllers (by default memory and pids;
    it cannot while it holds processes itself, unless it is the root)."""
    wanted = set(controllers or ("memory", "pids"))
    enabled = set(_read(parent / "cgroup.subtree_control").split())
    return wanted <= enabled or _try_write(parent / "cgroup.subtree_control", " ".join(f"+{name}" for name in sorted(wanted)))


def _cgroup_mounts() -> dict[str, Path]:
    """Mount points: 'cgroup2' for the unified hierarchy, and each v1 controller's name."""
    found: dict[str, Path] = {}
    for place, kind, options in mounts():
        if kind == "cgroup2":
            found.setdefault("cgroup2", place)
        elif kind == "cgroup":
            for option in options.split(","):
                found.setdefault(option, place)
    return found


def mounts() -> list[tuple[Path, str, str]]:
    """Each mount this process sees, from /proc/self/mountinfo: its mount point (a byte that is not
    UTF-8, which a folder a port names may hold, kept as Python keeps it in a path), its file
    system's type and its options."""
    found = []
    for line in _read(Path("/proc/self/mountinfo")).splitlines():
        before, _, after = line.partition(" - ")
        fields, rest = before.split(), after.split()
        if len(fields) >= 5 and len(rest) >= 3:
            place = re.sub(r"\\([0-7]{3})", lambda code: chr(int(code[1], 8)), fields[4])  # a space, a tab, a line break, a backslash
            found.append((Path(place), rest[0], rest[2]))
    return found


def _groups(path: str) -> dict[str, str]:
    """A process's group in each hierarchy, from /proc/PID/cgroup: '0' for v2, and each v1 controller's name."""
    groups = {}
    for line in _read(Path(path)).splitlines():
        number, _, rest = line.partition(":")
        controllers, _, path = rest.partition(":")
        if number == "0" and not controllers:
            groups["0"] = path
        for controller in controllers.split(","):
            if controller:
                groups[controller] = path
    return groups


def _read(path: Path) -> str:
    try:
        return path.read_text(errors="surrogateescape")
    except OSError:
        return ""


def _try_mkdir(path: Path) -> bool:
    try:
        path.mkdir()
    except OSError:
        return False
    return True


def _try_write(path: Path, text: str) -> bool:
    try:
        path.write_text(text)
    except OSError:
        return False
    return True


def _number(path: Path) -> int | None:
    text = _read(path).strip()
    return int(text) if text.isdigit() else None


def _counter(path: Path, key: str) -> int:
    for line in _read(path).splitlines():
        name, _, value = line.partition(" ")
        if name == key and value.strip().isdigit():
            return int(value)
    return 0


PID_NAMESPACE = ("unshare", "--user", "--map-current-user", "--pid", "--fork", "--kill-child", "--")
"""A program started as the first process of a process namespace of its own (in a user namespace of
its own, which any user may make where the system allows it): when it ends, or is killed, the kernel
ends every process left in that namespace, however it left the program's session or environment."""


@functools.cache
def pid_namespaces() -> bool:
    """Whether programs can be started in a process namespace of their own here (asked once a run)."""
    if shutil.which("unshare") is None:
        return False
    try:
        return subprocess.run([*PID_NAMESPACE, "true"], capture_output=True, timeout=10, check=False).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


class Fence:
    """The limits around one cell's process tree: its own control group where one can be made,
    else samples of the tree from /proc. A watcher checks every few milliseconds and kills the tree
    the moment a limit is crossed (the kernel has already refused the fork or killed for memory, but
    a port may go on trying). Without a control group, a program that asks for one (``own_pids``)
    runs in a process namespace of its own where one can be made, so that nothing it starts outlives it."""

    def __init__(self, limits: Limits, own_pids: bool = False) -> None:
        self.limits = limits
        self.group = CellGroup.make(limits)
        self.own_pids = own_pids and self.group is None and pid_namespaces()
        if self.group:
            self.group.begin()
        self.peak_sampled = 0
        self._breach: str | None = None
        self._done = threading.Event()
        self._thread: threading.Thread | None = None

    def wrap(self, argv: list[str]) -> list[str]:
        """The command as it must start to be inside the fence from its first instruction."""
        if self.group:
            return self.group.wrap(argv)
        return [*PID_NAMESPACE, *argv] if self.own_pids else argv

    def watch(self, members: Callable[[], Iterable[int]], kill: Callable[[], None]) -> None:
        """Start watching the tree ``members`` names, calling ``kill`` when it crosses a limit."""
        self._thread = threading.Thread(target=self._watch, args=(members, kill), daemon=True)
        self._thread.start()

    def _watch(self, members: Callable[[], Iterable[int]], kill: Callable[[], None]) -> None:
        while not self._done.wait(WATCH_SECONDS):
            self._breach = self.group.breach() if self.group else self._sample(members)
            if self._breach:
                kill()
                return

    def _sample(self, members: Callable[[], Iterable[int]]) -> str | None:
        pids = list(members())
        resident = sum(_resident(pid) for pid in pids) + _files_held(pids, self.limits.files)
        self.peak_sampled = max(self.peak_sampled, resident)
        if resident > self.limits.memory:
            return memory_breach(self.limits, self.peak_sampled)
        if len(pids) > self.limits.processes:
            return processes_breach(self.limits)
        return None

    def cpu_seconds(self) -> float | None:
        """The tree's CPU seconds, where its control group counts them."""
        return self.group.cpu_seconds() if self.group else None

    def shares_cpu(self) -> bool:
        """Whether the kernel shares the CPU by cell for this tree: its control group has the CPU
        controller. Elsewhere it shares it by process, or by session, which a port may make by the hundred."""
        return self.group is not None and "cpu" in self.group.folders

    def peak(self) -> int | None:
        """The tree's peak memory: the control group's own figure, or the largest sample taken."""
        return self.group.peak() if self.group else self.peak_sampled or None

    def breach(self) -> str | None:
        """The limit crossed, if one was, with what the port reached."""
        return self._breach or (self.group.breach() if self.group else None)

    def close(self) -> None:
        """Stop watching, and empty and remove the control group."""
        self._done.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()
        if self.group:
            self.group.close()


def _files_held(pids: Iterable[int], folders: Iterable[Path]) -> int:
    """Bytes of the files in ``folders`` as the tree sees them, through /proc/PID/root of a process
    of it whose root is a view of its own (a sandbox's; not yet made, or the machine's, counts none)."""
    folders = list(folders)
    try:
        machine = Path("/").stat()
    except OSError:
        return 0
    for pid in pids if folders else ():
        try:
            root = Path(f"/proc/{pid}/root").stat()
            if (root.st_dev, root.st_ino) == (machine.st_dev, machine.st_ino):
                continue
            return sum(_used(os.statvfs(f"/proc/{pid}/root{folder}")) for folder in folders)
        except OSError:  # gone, or its view not made yet: the next one
            continue
    return 0


def _used(stat: os.statvfs_result) -> int:
    return (stat.f_blocks - stat.f_bfree) * stat.f_frsize


def _resident(pid: int) -> int:
    """A process's resident memory in bytes, from /proc/PID/statm; 0 once it is gone."""
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, IndexError, ValueError):
        return 0
