"""Where everything the harness runs on a port's behalf runs: its build, its program, its version
commands and, for a port that runs in PostgreSQL, the server that runs its SQL.

A mode is a way of walling such a program in (walls.py says what every mode does), one module of
``harness.runners.modes`` each, named as the mode is; ``harness.settings.Mode`` is the registry of
them. A new mode is one module there and one more name in ``Mode``.
"""
