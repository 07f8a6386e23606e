"""The extras: each one the harness names is one pyproject.toml declares, `all` holds every one, and
what is missing is said in one line naming the install that brings it."""

import tomllib

import pytest

from conftest import ROOT
from harness import extras
from harness.extras import MODULES, NotInstalled, lacking, require


def test_each_extra_the_harness_names_is_declared_and_all_holds_every_one():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert set(MODULES) <= set(declared)
    assert declared["all"] == [f"hanoi-polyglot[{','.join(MODULES)}]"]


def test_a_plain_install_needs_none_of_them():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert sorted(requirement.partition(">")[0] for requirement in declared) == ["click", "jinja2", "regex"]


def test_what_is_missing_is_named_with_the_extra_that_brings_it(monkeypatch):
    monkeypatch.setitem(extras.MODULES, "gallery", ("no_such_module_here",))
    monkeypatch.setitem(extras.MODULES, "pretty", ("click",))
    assert lacking("pretty") is None
    assert lacking("gallery", "pretty") == "no_such_module_here not found; pip install 'hanoi-polyglot[gallery]' installs it"
    with pytest.raises(NotInstalled, match=r"^harness gallery: not installed here: no_such_module_here not found"):
        require("harness gallery", "gallery")
