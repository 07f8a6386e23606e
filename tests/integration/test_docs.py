"""The documentation: README.md a short page, every relative link in it and in docs/ to a file (and
heading) that exists, and the MkDocs site built from docs/ with --strict, every link of it resolved:
inside the site, or to a file of the repository by its address."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

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
    elif re.match(rf"{re.escape(SOURCE)}/(blob|tree)/main/", address):
        file = re.sub(rf"{re.escape(SOURCE)}/(blob|tree)/main/", "", address, count=1)
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


class Links(HTMLParser):
    """The addresses an HTML page leads to (``href`` and ``src``), and the anchors it makes (``id``)."""

    def __init__(self) -> None:
        super().__init__()
        self.addresses: list[str] = []
        self.anchors: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("href", "src") and value:
                self.addresses.append(value)
            elif name in ("id", "name") and value:
                self.anchors.add(value)


def parsed(page: Path) -> Links:
    links = Links()
    links.feed(page.read_text(encoding="utf-8"))
    return links


def unresolved(site: Path) -> list[str]:
    """Each link of the built site that leads nowhere, as ``page: address: why``: a page, file or
    anchor the site does not hold (the site's own address counts as inside it), or an address in
    the repository (harness.SOURCE) that names no file of this checkout. Other sites' addresses are
    not followed (the tests read no network)."""
    pages = {page: parsed(page) for page in site.rglob("*.html")}
    broken = []
    for page, links in pages.items():
        base = SITE + page.relative_to(site).as_posix()
        for address in links.addresses:
            if re.match(r"(mailto|javascript|data):", address):
                continue
            if why := _leads_nowhere(urljoin(base, address), site, pages):
                broken.append(f"{page.relative_to(site)}: {address}: {why}")
    return broken


def _leads_nowhere(address: str, site: Path, pages: dict[Path, Links]) -> str | None:
    """Why an absolute address leads nowhere, or None. A fragment with a ``/`` in it is a route of the
    page's own script (tests/integration/test_gallery.py and test_page.py follow those), not an anchor."""
    if address.startswith(SITE):
        parts = urlsplit(address)
        path = unquote(parts.path.removeprefix(urlsplit(SITE).path))
        target = site / path
        if path == "" or path.endswith("/") or target.is_dir():
            target = target / "index.html"
        if not target.is_file():
            return "the site holds no such page or file"
        route = "/" in parts.fragment  # the gallery's and the report page's own routes (#python/binary/3), which their script reads
        if parts.fragment and not route and target.suffix == ".html" and unquote(parts.fragment) not in pages[target].anchors:
            return f"{target.relative_to(site)} has no anchor #{parts.fragment}"
        return None
    if address.rstrip("/") == SOURCE or re.fullmatch(re.escape(SOURCE) + r"/(issues|releases)/?", address):
        return None
    if address.startswith(SOURCE + "/"):
        file = re.fullmatch(re.escape(SOURCE) + r"/(?:blob|tree)/main/([^#?]+)(?:#.*)?", address)
        if not file:
            return "an address in the repository that is not a file of main (blob/main/PATH) or a folder (tree/main/PATH)"
        return None if (ROOT / unquote(file[1])).exists() else f"no {file[1]} in the repository"
    if urlsplit(address).netloc == urlsplit(SITE).netloc:
        return f"above the site, whose address is {SITE}"
    return None


def test_a_link_that_leads_nowhere_is_found(tmp_path):
    """The check below can fail: a page that links a page, an anchor and a file of the repository
    that are not there, beside links that resolve."""
    site = tmp_path / "site"
    (site / "one").mkdir(parents=True)
    (site / "index.html").write_text('<h1 id="top">x</h1><a href="one/">one</a><a href="#top">top</a><a href="https://example.org/">x</a>')
    (site / "one" / "index.html").write_text(
        f'<a href="../">home</a><a href="../#nowhere">a</a><a href="../two/">b</a><a href="{SOURCE}/blob/main/action.yml">c</a>'
        f'<a href="{SOURCE}/blob/main/no-such-file.yml">d</a><a href="../../action.yml">e</a>'
    )
    assert unresolved(site) == [
        "one/index.html: ../#nowhere: index.html has no anchor #nowhere",
        "one/index.html: ../two/: the site holds no such page or file",
        f"one/index.html: {SOURCE}/blob/main/no-such-file.yml: no no-such-file.yml in the repository",
        f"one/index.html: ../../action.yml: above the site, whose address is {SITE}",
    ]


@pytest.mark.slow
def test_the_documentation_site_builds_with_strict(tmp_path):
    mkdocs = Path(sys.executable).parent / "mkdocs"  # the docs extra's mkdocs-material (the test extra holds it) brings it
    done = subprocess.run(
        [str(mkdocs), "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT, capture_output=True, text=True, timeout=300, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "site" / "index.html").exists()
    assert unresolved(tmp_path / "site") == []
    home = parsed(tmp_path / "site" / "index.html").addresses
    assert "install/" in home, "the home page links the page that says how to install and start"


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
    assert unresolved(site) == []


def test_make_check_takes_as_long_in_every_place_that_says():
    """The development page measures make check; the Makefile and CONTRIBUTING say the same, not a
    figure of their own (they said under a minute and the page about ten seconds)."""
    page = " ".join((ROOT / "docs" / "development.md").read_text().split())
    measured = re.search(r"`make check`, the fast tier to run before every commit\. .*?which is ((?:\w+ )+?minute) ?: (\d+ s) to (\d+ s)", page)
    assert measured, "docs/development.md says how long make check takes, then how it was measured"
    for place in ("Makefile", "CONTRIBUTING.md"):
        text = " ".join(word for word in (ROOT / place).read_text().split() if word != "#")
        assert f"{measured[1]} on an idle machine" in text and "ten seconds" not in text, f"{place} says otherwise than docs/development.md"
