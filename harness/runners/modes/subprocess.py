"""``--isolation subprocess``: the program runs as the user who runs the harness, and only the limits
hold it (memory, processes, the deadline; where no control group can hold them, a process namespace of
its own ends whatever it leaves running). It can read and write what that user can, and reach the
network; it sees the harness's environment, whose secrets the reports mask. A job that must not see
that environment (the PostgreSQL server) gets the allowlist instead."""

from __future__ import annotations

import os
from typing import ClassVar

from harness.environment import port_environment
from harness.runners.process import Launch, PortProcess
from harness.runners.walls import Job, Walls, becomes, file_bounded, run_as
from harness.settings import Mode


class SubprocessWalls(Walls):
    """A plain subprocess, within the run's limits."""

    mode: ClassVar[Mode] = "subprocess"

    def start(self, job: Job) -> PortProcess:
        """The job's program as a subprocess of the harness (as its ``user``, where one is given)."""
        tmpdir = os.environ.get("TMPDIR") or "/tmp"
        environment = None if job.inherits else port_environment(job.names, home=str(job.folder), tmpdir=tmpdir)
        launch = Launch(job.stdin, self.limits, environment, own_pids=True, owner=becomes(job.user), stream=job.stream)
        return PortProcess(run_as(job.user, file_bounded(job.argv, job.file_bytes)), job.folder, job.seconds, launch, self.processes)


WALLS = SubprocessWalls
