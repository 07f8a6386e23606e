"""Where everything the harness runs on a port's behalf runs: its build, its program, its version
commands and, for a port that runs in PostgreSQL, the server that runs its SQL.

A mode is a way of walling such a program in (walls.py says what every mode does), one module of
``harness.runners.modes`` each, named as the mode is; ``Mode`` below is the registry of them. A new
mode is one module there and one more name here.
"""

from __future__ import annotations

from typing import Literal, get_args

Mode = Literal[
    "subprocess",
    "sandbox",
    "container",
]
"""The modes, each the module of that name in ``harness.runners.modes``: a new one is a line here."""
MODES: tuple[Mode, ...] = get_args(Mode)
DEFAULT_MODE: Mode = "subprocess"
"""The mode of a run that names none (``--isolation``)."""
