"""How long to wait for something to start (a server, a container, an engine) on a machine that may
be busy: a bound that holds on an idle machine, stretched while the machine is loaded, so that a
loaded 2-core machine is slow rather than wrong. The wait is measured from the start of the step
it bounds, and the message that ends it names the bound it reached.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

MOST_STRETCH = 8.0
"""The most a busy machine stretches a wait: a server that is truly stuck still fails, in minutes."""


def load() -> float:
    """How busy the machine is: its one-minute load average for each of its cores (1.0: every core busy)."""
    try:
        return os.getloadavg()[0] / (os.cpu_count() or 1)
    except OSError:  # no load average here
        return 0.0


@dataclass
class Patience:
    """A wait of ``seconds`` on an idle machine, from now; while the machine's load is above one a
    core, the bound is that many times longer (MOST_STRETCH at most)."""

    seconds: float
    started: float = field(default_factory=time.monotonic)
    stretch: float = 1.0
    """The most the machine's load has stretched the bound so far: the bound never shrinks."""

    def over(self) -> bool:
        """Whether the wait is over: the time since it started has passed the bound, stretched by the load now."""
        return time.monotonic() >= self.deadline()

    def deadline(self) -> float:
        """When the wait is over (on time.monotonic's clock), as the machine's load stands now."""
        return self.started + self.limit()

    def limit(self) -> float:
        """The bound in seconds, stretched as the machine's load stands now: for a call that takes a time-out."""
        self.stretch = max(self.stretch, min(load(), MOST_STRETCH))
        return self.seconds * self.stretch

    def bound(self) -> str:
        """The bound in words: ``60 s``, or ``60 s, stretched to 180 s while the machine was busy``."""
        if self.stretch <= 1.0:
            return f"{self.seconds:g} s"
        return f"{self.seconds:g} s, stretched to {self.seconds * self.stretch:.0f} s while the machine was busy"
