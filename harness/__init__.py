"""hanoi-polyglot's harness: discover the ports, run them, read their moves, verify them, compare them, report."""

__version__ = "0.1.0"

SITE = "https://hanoi-polyglot.github.io/hanoi-polyglot/"
"""Where CI publishes the project's site (GitHub Pages): the documentation, the gallery under
``gallery/`` and the schemas under ``schemas/``, each schema at the address its ``$id`` gives, so a
manifest outside this repository can name its schema by an address that resolves anywhere."""
SOURCE = "https://github.com/hanoi-polyglot/hanoi-polyglot"
"""The repository, whose files README.md links by address, as the package index shows it."""


def published(path: str) -> str:
    """The public address of ``path`` on the site: ``schemas/language.schema.json``."""
    return SITE + path
