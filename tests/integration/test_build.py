"""Ports that are compiled: each build is made once and kept, keyed by its command and its sources,
and a build that fails is the cell's error, in the compiler's words."""

from __future__ import annotations

import re
import shutil
import time

import pytest

from conftest import ROOT
from harness.discover import load_port
from harness.evaluate import evaluate
from harness.model import Outcome, Reason
from harness.port import tree_digest
from harness.settings import Settings

pytestmark = pytest.mark.skipif(shutil.which("c++") is None, reason="no C++ compiler (c++) on PATH")


def builds(cache) -> dict[str, float]:
    """Each kept build of the copied port, with when its program was made."""
    return {path.parent.name: path.stat().st_mtime_ns for path in (cache / "builds" / "cpp").glob("*/program")}


def test_a_build_is_made_once_per_n_and_again_when_a_source_it_reads_changes(tmp_path, monkeypatch):
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
    assert len(after) == 5 and set(first) < set(after)  # cyclic's two again; hanoi.cpp's build read no cyclic.cpp
    assert not list((tmp_path / "cache" / "builds" / "cpp").glob("building-*"))


def test_a_compile_error_is_the_cells_error_and_nothing_is_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("HANOI_CACHE", str(tmp_path / "cache"))
    shutil.copytree(ROOT / "cpp", tmp_path / "cpp")
    regions = "binary recursive iterative"  # the methods' code, as the manifest's [code] names it
    (tmp_path / "cpp" / "hanoi.cpp").write_text(f"// region {regions}\nint main() {{ return undeclared; }}\n// endregion {regions}\n")
    port = load_port(tmp_path / "cpp" / "language.toml")
    cell = evaluate(port, "recursive", 3)
    assert cell.outcome is Outcome.ERROR
    assert cell.detail.startswith("the build failed with exit code 1: c++ -std=c++20 -O2 -o {binary} hanoi.cpp\n")
    assert re.search(r"error: .undeclared. was not declared in this scope", cell.detail)
    assert evaluate(port, "cyclic", 2).outcome is Outcome.PASS
    assert len(builds(tmp_path / "cache")) == 1


def port_with_a_large_file(tmp_path, monkeypatch):
    monkeypatch.setenv("HANOI_CACHE", str(tmp_path / "cache"))
    shutil.copytree(ROOT / "cpp", tmp_path / "cpp")
    (tmp_path / "cpp" / "data.bin").write_bytes(b"\0" * (8 << 20))
    return load_port(tmp_path / "cpp" / "language.toml")


def test_reading_the_ports_files_for_the_builds_key_is_within_the_build_timeout(tmp_path, monkeypatch):
    """The build's key reads every file of the port's folder: that reading is part of the build's time."""
    port = port_with_a_large_file(tmp_path, monkeypatch)
    with pytest.raises(TimeoutError):
        tree_digest(port.folder, deadline=time.monotonic() - 1)
    cell = evaluate(port, "recursive", 3, Settings(build_timeout=1e-6))
    assert (cell.outcome, cell.reason) == (Outcome.ERROR, Reason.BUILD)
    assert cell.detail == "reading the port's files for the build ran past its 1e-06 s (--build-timeout)"


def test_copying_the_ports_folder_for_the_build_is_within_the_build_timeout(tmp_path, monkeypatch):
    port = port_with_a_large_file(tmp_path, monkeypatch)
    port.source_digest()  # read once already: the copy alone runs out of time
    cell = evaluate(port, "recursive", 3, Settings(build_timeout=1e-6))
    assert (cell.outcome, cell.reason) == (Outcome.ERROR, Reason.BUILD)
    assert cell.detail == "copying the port's folder for the build ran past its time (--build-timeout)"
    assert not any((tmp_path / "cache" / "builds").rglob("data.bin")), "a build that ran out of time leaves nothing"
