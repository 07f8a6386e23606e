"""The modes, one module each, named as the mode is (``--isolation NAME``); each gives ``WALLS``, its
:class:`~harness.runners.walls.Walls`."""
