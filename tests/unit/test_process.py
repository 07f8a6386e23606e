"""A program's process tree as the harness runs it: what it keeps of the program's standard error,
however the program holds it."""

from __future__ import annotations

import os
import time

from harness.runners.process import EXIT_GRACE_SECONDS, StderrKeeper


def test_stderr_held_open_by_a_process_that_escaped_keeps_no_one_waiting():
    """A process that left its cell may hold the cell's stderr open for ever: what was said is given
    EXIT_GRACE_SECONDS later, not when the stream ends."""
    read, write = os.pipe()
    try:
        stream = os.fdopen(read, "rb", buffering=0)
        keeper = StderrKeeper.reading(stream)
        os.write(write, b"first words\nlast words\n")
        time.sleep(0.2)
        started = time.monotonic()
        assert keeper.text() == "first words\nlast words"
        assert time.monotonic() - started < EXIT_GRACE_SECONDS + 1
    finally:
        os.close(write)
