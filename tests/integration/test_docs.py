"""The documentation: README.md a short page, every relative link in it and in docs/ to a file (and
heading) that exists, and the MkDocs site built from docs/ with --strict."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, harness_here
from harness import SITE, SOURCE

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
    """Each link of the file to a file of this repository: a relative one, or one to the project's
    site or repository (README.md's, which the package index shows) as ``/`` and the file of the
    repository it is made from."""
    found = [local(target) for line in prose(path) for target in LINK.findall(line)]
    return [target for target in found if target is not None]


def local(target: str) -> str | None:
    """The repository's file a link leads to, relative to the root where it is an address of the
    site's pages or of the repository's files; None for the gallery (built by make site) and for
    another site, an address or an anchor of the same page."""
    address, _, anchor = target.partition("#")
    if address.startswith(SITE):
        page = address.removeprefix(SITE).strip("/")
        file = None if page == "gallery" else f"docs/{page or 'index'}.md"
    elif address.startswith(f"{SOURCE}/blob/main/"):
        file = address.removeprefix(f"{SOURCE}/blob/main/")
    else:
        return None if re.match(r"(https?:|mailto:|#)", target) else target
    return file and "/" + file + (f"#{anchor}" if anchor else "")


def test_the_readme_links_by_address_as_the_package_index_shows_it():
    """On the package index a relative link leads nowhere: README.md links the site's pages and the
    repository's files by their addresses, each checked below against the file it is made from."""
    targets = [target for line in prose(ROOT / "README.md") for target in LINK.findall(line)]
    assert targets and not [target for target in targets if not re.match(r"(https:|#)", target)]
    assert any(target.startswith(SITE) for target in targets) and any(target.startswith(SOURCE) for target in targets)


def test_the_readme_is_a_short_page():
    lines = (ROOT / "README.md").read_text().count("\n")
    assert lines < 200, f"README.md has {lines} lines: what is not for a first read belongs in a page of docs/"


@pytest.mark.parametrize("page", PAGES, ids=[str(page.relative_to(ROOT)) for page in PAGES])
def test_every_relative_link_in_the_docs_is_to_a_file_that_exists(page):
    broken = []
    for target in links(page):
        path, _, anchor = target.partition("#")
        file = (ROOT / path[1:] if path.startswith("/") else page.parent / path).resolve()
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


@pytest.mark.slow
def test_make_site_puts_each_schema_at_its_id_beside_the_documentation_and_the_gallery(tmp_path):
    """The site CI publishes: every schema where its ``$id`` says, so a manifest outside this
    repository names it by an address; the documentation at the site's root; the gallery under it."""
    report = tmp_path / "r.json"
    assert harness_here("compare", "--n", "1", "--lang", "python", "--json", str(report)).returncode == 0
    site = tmp_path / "site"
    venv = Path(sys.executable).parent.parent
    done = subprocess.run(
        ["make", "site", f"VENV={venv}", f"SITE_DIR={site}", f"REPORT={report}", "GALLERY_OPTIONS=--no-samples"],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    for schema in sorted((ROOT / "harness").glob("*.schema.json")):
        address = json.loads(schema.read_text())["$id"]
        assert address.startswith(SITE), address
        assert (site / address.removeprefix(SITE)).read_bytes() == schema.read_bytes(), address
    assert (site / "index.html").exists() and (site / "harness" / "index.html").exists()
    assert (site / "gallery" / "index.html").exists() and (site / "gallery" / "report.html").exists()
