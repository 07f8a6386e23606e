"""The documentation: README.md a short page, every relative link in it and in docs/ to a file (and
heading) that exists, and the MkDocs site built from docs/ with --strict."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def prose(path: Path) -> list[str]:
    """The file's lines outside fenced code, where a link or a heading is one."""
    lines, fenced = [], False
    for line in path.read_text().splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def anchors(path: Path) -> set[str]:
    """The anchors a Markdown file's headings make, as GitHub and MkDocs spell them."""
    made = set()
    for line in prose(path):
        if heading := re.match(r"#{1,6} (.*)", line):
            text = re.sub(r"[^\w\s-]", "", heading.group(1).strip().lower())
            made.add(re.sub(r"\s+", "-", text))
    return made


def links(path: Path) -> list[str]:
    """Each relative link of the file: not to a site, an address or an anchor of the same page."""
    found = [target for line in prose(path) for target in LINK.findall(line)]
    return [target for target in found if not re.match(r"(https?:|mailto:|#)", target)]


def test_the_readme_is_a_short_page():
    lines = (ROOT / "README.md").read_text().count("\n")
    assert lines < 200, f"README.md has {lines} lines: what is not for a first read belongs in a page of docs/"


@pytest.mark.parametrize("page", PAGES, ids=[str(page.relative_to(ROOT)) for page in PAGES])
def test_every_relative_link_in_the_docs_is_to_a_file_that_exists(page):
    broken = []
    for target in links(page):
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve()
        if not file.exists():
            broken.append(f"{target}: no {file.relative_to(ROOT) if file.is_relative_to(ROOT) else file}")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file):
            broken.append(f"{target}: no heading of {file.relative_to(ROOT)} makes #{anchor}")
    assert broken == [], f"{page.relative_to(ROOT)} links to what is not there:\n" + "\n".join(broken)


@pytest.mark.slow
def test_the_documentation_site_builds_with_strict(tmp_path):
    mkdocs = Path(sys.executable).parent / "mkdocs"  # the test extra's mkdocs-material brings it
    done = subprocess.run(
        [str(mkdocs), "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT, capture_output=True, text=True, timeout=300, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "site" / "index.html").exists()
