"""The project's public addresses are named once (harness.SITE, harness.SOURCE): the package's
Project-URLs, the documentation site's own address and every schema's ``$id`` follow them, so a
manifest or a report outside this repository names its schema by an address CI publishes."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest

from harness import SITE, SOURCE, published

ROOT = Path(__file__).resolve().parent.parent.parent
SCHEMAS = sorted((ROOT / "harness").glob("*.schema.json"))


@pytest.mark.parametrize("schema", SCHEMAS, ids=[schema.name for schema in SCHEMAS])
def test_each_schema_is_identified_by_the_address_the_site_publishes_it_at(schema):
    assert json.loads(schema.read_text())["$id"] == published(f"schemas/{schema.name}")


def test_the_package_and_the_site_name_the_same_addresses():
    urls = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["urls"]
    assert urls["Homepage"] == urls["Documentation"] == SITE and urls["Gallery"] == published("gallery/")
    assert urls["Source"] == SOURCE and all(url.startswith(SOURCE) for name, url in urls.items() if name in ("Changelog", "Issues"))
    mkdocs = (ROOT / "mkdocs.yml").read_text()
    assert re.search(r"^site_url: (.+)$", mkdocs, re.M)[1] == SITE
    assert re.search(r"^repo_url: (.+)$", mkdocs, re.M)[1] == SOURCE
