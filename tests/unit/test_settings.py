"""A run's settings as command-line options: what bench passes to the compare it times must make
that compare run its cell as bench's own settings say, every limit included."""

from __future__ import annotations

from conftest import project_ports
from harness.cli.compare import compare
from harness.cli.options import settings_from
from harness.limits import Limits
from harness.settings import Settings


def test_the_arguments_of_settings_read_back_as_the_same_settings():
    wanted = Settings(
        ns=(3,), ports=tuple(project_ports()), isolation="sandbox", backend="embedded", timeout=7.5, build_timeout=90.0,
        limits=Limits(1 << 30, 64), max_moves=100_000_000, unsafe_superuser_sql=False,
    )
    with compare.make_context("compare", ["--n", "3", *wanted.arguments()]) as ctx:
        read = settings_from(list(project_ports()), ctx.params)
    for field in ("isolation", "backend", "timeout", "build_timeout", "limits", "max_moves", "unsafe_superuser_sql"):
        assert getattr(read, field) == getattr(wanted, field), field
