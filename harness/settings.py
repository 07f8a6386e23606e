"""One run's settings, built once from the command line and passed down whole: which cells to run
(ports, methods, n, the shard), how (jobs, time, limits, isolation, the PostgreSQL backend) and what
counts (strict, fail-fast, the most moves). The settings own the plan of cells, so the progress bar,
the evaluator and the report all count the same cells; the report records the plan, and the rest as
the run's options.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from harness.limits import DEFAULT_LIMITS, Limits
from harness.model import METHODS, Shard

DEFAULT_TIMEOUT = 120.0
DEFAULT_MAX_MOVES = 1 << 24
Mode = Literal[
    "subprocess",
    "sandbox",
    "container",
]
"""The modes of isolation (``--isolation``), each the module of that name in ``harness.runners.modes``
(``runners/walls.py`` says what every mode does): a new one is a module there and a line here."""
MODES: tuple[Mode, ...] = get_args(Mode)
DEFAULT_MODE: Mode = "subprocess"
"""The mode of a run that names none."""
Backend = Literal["embedded", "server", "docker"]
"""Where the ports that run in PostgreSQL find it: each a kind of server of ``runners.postgres.SERVERS``."""
BACKENDS: tuple[Backend, ...] = get_args(Backend)
Screen = Literal["pretty", "plain"]
"""The forms a report, or the list of ports, takes on standard output (``--format``)."""
SCREENS: tuple[Screen, ...] = get_args(Screen)

CellKey = tuple[str, str, int]
"""A cell before it runs: (port, method, n)."""


@dataclass(frozen=True)
class RunPlan:
    """The whole run a report belongs to: the ports, methods and n asked for, and which shard of it
    ran. A report carries it so that a merge of several can tell what none of them holds."""

    ports: tuple[str, ...]
    methods: tuple[str, ...]
    ns: tuple[int, ...]
    shard: Shard | None = None

    def cells(self) -> list[CellKey]:
        """The cells of the run, or of its shard, in the report's order: by n, then port, then method."""
        return [
            (port, method, n) for n in self.ns for port in self.ports for method in self.methods
            if self.shard is None or self.shard.holds(port, method, n)
        ]

    def whole(self) -> RunPlan:
        """The run this shard is part of: all of its cells."""
        return RunPlan(self.ports, self.methods, self.ns)

    def to_json(self) -> dict[str, Any]:
        """The plan as the report records it."""
        return {"ports": list(self.ports), "methods": list(self.methods), "n": list(self.ns), "shard": str(self.shard) if self.shard else None}


@dataclass(frozen=True)
class Settings:
    """How one run goes. The defaults are the command line's, but for ``jobs`` (one at a time) and
    ``max_moves`` (none: a caller that asks for a cell gets it)."""

    ns: tuple[int, ...] = ()
    ports: tuple[str, ...] = ()
    methods: tuple[str, ...] = tuple(METHODS)
    jobs: int = 1
    timeout: float = DEFAULT_TIMEOUT
    strict: bool = False
    max_moves: int | None = None
    fail_fast: bool = False
    shard: Shard | None = None
    backend: Backend = "embedded"
    isolation: Mode = DEFAULT_MODE
    limits: Limits = field(default=DEFAULT_LIMITS)
    build_timeout: float | None = None
    """How long a compiled port's build may take; None: as long as a cell (``timeout``)."""
    unsafe_superuser_sql: bool = False
    """With a DSN whose user can make no role for a port, whether its SQL may run as that user even
    if it is a superuser."""

    @property
    def build_seconds(self) -> float:
        """How long a build may take: ``build_timeout``, else the cell's own time."""
        return self.build_timeout if self.build_timeout is not None else self.timeout

    @property
    def plan(self) -> RunPlan:
        """The cells asked for: the ports, methods and n, and the shard."""
        return RunPlan(self.ports, self.methods, self.ns, self.shard)

    def too_many_moves(self, method: str, n: int) -> str | None:
        """Why a cell is left out when its method needs more moves than ``max_moves``, if it does."""
        count = METHODS[method].optimal_count(n)
        return f"{count:,} moves is over --max-moves {self.max_moves:,}" if self.max_moves is not None and count > self.max_moves else None

    def arguments(self) -> list[str]:
        """The command-line options that make ``compare`` run a cell as these settings do: the
        isolation, the server's kind, the time limits, the limits and the most moves (the DSN goes by
        environment)."""
        return [
            "--isolation", self.isolation, "--backend", self.backend, "--timeout", repr(self.timeout),
            "--build-timeout", repr(self.build_seconds), "--memory", str(self.limits.memory), "--processes", str(self.limits.processes),
            *(["--max-moves", str(self.max_moves)] if self.max_moves is not None else []),
            *(["--unsafe-superuser-sql"] if self.unsafe_superuser_sql else []),
        ]

    def options(self) -> dict[str, Any]:
        """The settings but the plan, as the report records them, by option name."""
        return {
            "jobs": self.jobs, "timeout": self.timeout, "strict": self.strict, "max_moves": self.max_moves, "fail_fast": self.fail_fast,
            "backend": self.backend, "isolation": self.isolation,
            "memory": self.limits.memory, "processes": self.limits.processes, "build_timeout": self.build_seconds,
        }
