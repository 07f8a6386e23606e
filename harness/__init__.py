"""hanoi-polyglot's harness: discover the ports, run them, read their moves, verify them, compare them, report."""

from pathlib import Path

__version__ = "0.2.0"
"""The one place the version is written: the package's metadata (flit), ``harness --version``, every
report and the release's tag (``v`` and this) follow it."""

SITE = "https://hanoi-polyglot.github.io/hanoi-polyglot/"
"""Where CI publishes the project's site (GitHub Pages): the documentation, the gallery under
``gallery/`` and the schemas under ``schemas/``, each schema at the address its ``$id`` gives, so a
manifest outside this repository can name its schema by an address that resolves anywhere."""
SOURCE = "https://github.com/hanoi-polyglot/hanoi-polyglot"
"""The repository, whose files README.md links by address, as the package index shows it."""


def published(path: str) -> str:
    """The public address of ``path`` on the site: ``schemas/language.schema.json``."""
    return SITE + path


SCHEMAS = ("language", "report", "list", "bench")
"""The JSON Schemas the harness holds, and the site publishes under ``schemas/``: a port's manifest,
the JSON report, ``harness list --format json``, and ``harness bench``'s JSON figures."""


def schema_file(name: str) -> Path:
    """The installed harness's own copy of the schema ``name`` (one of SCHEMAS)."""
    return Path(__file__).with_name(f"{name}.schema.json")
