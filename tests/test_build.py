"""Ports that are compiled: each build is made once and kept, keyed by its command and its sources,
and a build that fails is the cell's error, in the compiler's words."""

from __future__ import annotations

import re
import shutil

import pytest

from conftest import ROOT
from harness.discover import load_port
from harness.evaluate import evaluate
from harness.model import Outcome

pytestmark = pytest.mark.skipif(shutil.which("c++") is None, reason="no C++ compiler (c++) on PATH")


def builds(cache) -> dict[str, float]:
    """Each kept build of the copied port, with when its program was made."""
    return {path.parent.name: path.stat().st_mtime_ns for path in (cache / "builds" / "cpp").glob("*/program")}


def test_a_build_is_made_once_per_n_and_again_when_a_source_changes(tmp_path, monkeypatch):
    monkeypatch.setenv("HANOI_CACHE", str(tmp_path / "cache"))
    shutil.copytree(ROOT / "cpp", tmp_path / "cpp")
    port = load_port(tmp_path / "cpp" / "language.toml")

    def run_all() -> None:
        for method, n in [("cyclic", 2), ("cyclic", 3), ("recursive", 2), ("binary", 3)]:
            assert evaluate(port, method, n).outcome is Outcome.PASS

    run_all()
    first = builds(tmp_path / "cache")
    assert len(first) == 3  # cyclic for n = 2 and 3, one hanoi.cpp for every n
    run_all()
    assert builds(tmp_path / "cache") == first

    with (tmp_path / "cpp" / "cyclic.cpp").open("a") as source:
        source.write("// changed\n")
    port = load_port(tmp_path / "cpp" / "language.toml")
    run_all()
    after = builds(tmp_path / "cache")
    assert len(after) == 6 and set(first) < set(after)
    assert not list((tmp_path / "cache" / "builds" / "cpp").glob("building-*"))


def test_a_compile_error_is_the_cells_error_and_nothing_is_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("HANOI_CACHE", str(tmp_path / "cache"))
    shutil.copytree(ROOT / "cpp", tmp_path / "cpp")
    (tmp_path / "cpp" / "hanoi.cpp").write_text("int main() { return undeclared; }\n")
    port = load_port(tmp_path / "cpp" / "language.toml")
    cell = evaluate(port, "recursive", 3)
    assert cell.outcome is Outcome.ERROR
    assert cell.detail.startswith("the build failed with exit code 1: c++ -std=c++20 -O2 -o {binary} hanoi.cpp\n")
    assert re.search(r"error: .undeclared. was not declared in this scope", cell.detail)
    assert evaluate(port, "cyclic", 2).outcome is Outcome.PASS
    assert len(builds(tmp_path / "cache")) == 1
