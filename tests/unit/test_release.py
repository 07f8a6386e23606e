"""A release is one version, written once (``harness.__version__``), a tag ``v`` and that version,
and a section of CHANGELOG.md; every line a stranger copies to install or pin the harness (README's
first screen, the install page, the CI page) names that tag, so none drifts from the version."""

from __future__ import annotations

import datetime
import re
import tomllib

import pytest

from conftest import ROOT
from harness import SOURCE, __version__

TAG = f"v{__version__}"
INSTALL = f"pip install 'hanoi-polyglot[all] @ git+{SOURCE}@{TAG}'"
REPOSITORY = SOURCE.removeprefix("https://github.com/")
PINNING = ["README.md", "docs/install.md", "docs/ci.md"]
RELEASE = (ROOT / ".github" / "workflows" / "release.yml").read_text()


def test_the_version_is_written_in_one_place():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["dynamic"] == ["version"] and "version" not in project["project"]
    assert project["tool"]["flit"]["module"]["name"] == "harness"
    assert re.fullmatch(r"0\.\d+\.\d+", __version__), __version__
    written = [path for path in (ROOT / "harness").rglob("*.py") if re.search(r"^__version__ = ", path.read_text(), re.M)]
    assert written == [ROOT / "harness" / "__init__.py"]


def test_the_changelog_has_a_dated_section_for_the_version_below_unreleased():
    text = (ROOT / "CHANGELOG.md").read_text()
    headings = re.findall(r"^## (.+)$", text, re.M)
    assert headings[0] == "Unreleased", headings[:2]
    released = [re.fullmatch(r"(\d+\.\d+\.\d+) \((\d{4}-\d{2}-\d{2})\)", heading) for heading in headings[1:]]
    assert all(released), [heading for heading, match in zip(headings[1:], released) if not match]
    assert released[0][1] == __version__, f"the newest section is {released[0][1]}, the package's version {__version__}"
    dates = [datetime.date.fromisoformat(match[2]) for match in released]
    assert dates == sorted(dates, reverse=True)
    section = text.split(f"## {__version__} (", 1)[1].split("\n## ", 1)[0]
    assert re.search(r"^- ", section, re.M), "the version's section says nothing it changed"


@pytest.mark.parametrize("page", PINNING)
def test_every_install_line_and_pin_names_the_release_tag(page):
    text = (ROOT / page).read_text()
    assert INSTALL in text, f"{page} does not give {INSTALL}"
    tags = set(re.findall(r"@v(\d+\.\d+\.\d+)|rev: v(\d+\.\d+\.\d+)", text))
    assert {version for pair in tags for version in pair if version} == {__version__}, tags
    if page != "README.md":
        assert f"    rev: {TAG}\n" in text and f"- uses: {REPOSITORY}@{TAG}\n" in text


def test_the_readme_gives_the_install_line_on_its_first_screen():
    first_screen = (ROOT / "README.md").read_text().splitlines()[:30]
    assert INSTALL in first_screen
    assert any(f"`rev: {TAG}`" in line for line in first_screen) and any(f"`uses: {REPOSITORY}@{TAG}`" in line for line in first_screen)


def test_the_release_workflow_builds_on_a_tag_and_publishes_to_pypi_only_from_the_projects_repository():
    assert 'on:\n  push:\n    tags: ["v*"]\n' in RELEASE and "permissions: {}\n" in RELEASE
    assert "python3 -m build --outdir dist" in RELEASE and "twine check --strict dist/*" in RELEASE
    assert 'gh release create "$TAG" dist/* --verify-tag' in RELEASE
    pypi = RELEASE.split("\n  pypi:\n", 1)[1]
    assert f"if: ${{{{ github.repository == '{REPOSITORY}' }}}}" in pypi and "id-token: write" in pypi and "pypa/gh-action-pypi-publish@" in pypi
    assert RELEASE.count("id-token: write") == 1 and "password" not in RELEASE and "secrets." not in RELEASE
