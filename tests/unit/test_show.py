"""harness show's bad input: a usage error in one clear line, before anything runs."""

from __future__ import annotations

import pytest

from conftest import harness_here


@pytest.mark.parametrize(
    "args, message",
    [
        (["nope", "recursive", "-n", "3"], "unknown port 'nope'"),
        (["python", "sideways", "-n", "3"], "unknown method 'sideways'"),
        (["python", "recursive", "-n", "-1"], "'-1' is not a number of discs"),
        (["python", "recursive", "-n", "2,3"], "show takes one n"),
        (["python", "recursive", "-n", "13"], "show draws at most 12 discs"),
        (["python", "recursive", "-n", "3", "--delay", "-1"], "--delay"),
    ],
)
def test_bad_input_is_a_usage_error_in_one_clear_line(args, message):
    done = harness_here("show", *args)
    assert done.returncode == 2
    assert message in done.stderr and "Traceback" not in done.stderr
    assert done.stdout == ""
