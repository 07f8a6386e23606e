"""What code a method is: the manifest's [code] table names a file of the port and a region of it,
marked by comment lines in the language's own comment syntax. A reference that names no code (a
file that is not there or lies outside the port's folder, a region not marked, or marked wrongly)
is the manifest's error, found by ``harness check`` with its line; every port of this repository
names its code for every method."""

from __future__ import annotations

import re

import pytest

from conftest import ROOT
from harness.discover import discover, load_port
from harness.model import METHODS
from harness.regions import MAX_SOURCE_BYTES, extract

MANIFEST = """\
methods = ["recursive", "cyclic"]
command = ["sh", "hanoi.sh", "{{method}}", "{{n}}"]

[code]
recursive = "{recursive}"
{more}
[output]
patterns = ['(?P<disk>\\d+) (?P<src>\\d) (?P<dst>\\d)']
pegs = ["0", "1", "2"]
"""
SOURCE = """\
#!/bin/sh
# region recursive
recursive() {
  echo 1 0 2
}
# endregion recursive
helper() { :; }
"""


def port(tmp_path, recursive="hanoi.sh#recursive", more="", source=SOURCE):
    folder = tmp_path / "lang"
    folder.mkdir(exist_ok=True)
    (folder / "hanoi.sh").write_text(source)
    (folder / "language.toml").write_text(MANIFEST.format(recursive=recursive, more=more))
    return load_port(folder / "language.toml")


def test_every_port_of_this_repository_names_the_code_of_every_method():
    for found in discover(ROOT):
        assert found.manifest_error is None, found.manifest_error
        assert set(found.code) == set(found.methods) == set(METHODS), found.name
        for method, code in found.code.items():
            assert code.region == method and 0 < code.lines < 80, (found.name, method, code.lines)
            assert not any("region" in line.split()[1:2] for span in code.spans for line in span.lines if line.split()), "a marker is shown"


def test_the_region_is_the_lines_between_its_markers_without_them(tmp_path):
    code = port(tmp_path).code["recursive"]
    assert code.text == "recursive() {\n  echo 1 0 2\n}\n" and code.lines == 3
    assert [(span.first, span.last) for span in code.spans] == [(3, 5)]


@pytest.mark.parametrize(
    "leader, closer", [("#", ""), ("--", ""), ("%", ""), ("//", ""), (";;", ""), ("/*", " */"), ("(*", " *)"), ("<!--", " -->")],
)
def test_markers_are_comments_in_any_languages_syntax(leader, closer):
    text = f"  {leader} region recursive cyclic{closer}\ncode\n  {leader} endregion recursive cyclic{closer}\nrest\n"
    assert [span.lines for span in extract(text, "recursive")] == [("code",)]
    assert [span.lines for span in extract(text, "cyclic")] == [("code",)]


def test_a_region_may_come_in_parts_and_overlap_another():
    text = "# region a\none\n# region b\ntwo\n# endregion a\nthree\n# endregion b\nfour\n# region a\nfive\n# endregion a\n"
    assert [(span.first, span.lines) for span in extract(text, "a")] == [(2, ("one", "two")), (10, ("five",))]
    assert [span.lines for span in extract(text, "b")] == [("two", "three")]


def test_the_whole_file_without_a_region(tmp_path):
    code = port(tmp_path, recursive="hanoi.sh").code["recursive"]
    assert code.region is None and code.lines == len(SOURCE.splitlines())


@pytest.mark.parametrize(
    "recursive, source, problem",
    [
        ("hanoi.sh#iterative", SOURCE, "no region 'iterative' in the file"),
        ("missing.sh#recursive", SOURCE, "'missing.sh', which is not in the port's folder"),
        ("../lang/hanoi.sh#recursive", SOURCE, "outside the port's folder"),
        ("/etc/passwd", SOURCE, "outside the port's folder"),
        ("hanoi.sh#", SOURCE, "is not FILE or FILE#REGION"),
        ("hanoi.sh#recursive", "# region recursive\necho\n", "line 1 opens region 'recursive', which no line after it closes"),
        ("hanoi.sh#recursive", "echo\n# endregion recursive\n", "line 2 closes region 'recursive', which no line before it opens"),
        ("hanoi.sh#recursive", "# region recursive\n# region recursive\n", "line 2 opens region 'recursive' again"),
        ("hanoi.sh#recursive", "# region recursive\n\n# endregion recursive\n", "region 'recursive' holds no code"),
    ],
)
def test_a_reference_that_names_no_code_is_the_manifests_error_with_its_line(tmp_path, recursive, source, problem):
    found = port(tmp_path, recursive=recursive, source=source)
    assert found.manifest_error is not None and problem in found.manifest_error, found.manifest_error
    assert found.manifest_error.startswith(f"{tmp_path / 'lang' / 'language.toml'}:5: [code] 'recursive' = ")


@pytest.mark.parametrize(
    "more, problem",
    [
        ('binary = "hanoi.sh"', "[code] names 'binary', which the port does not list in 'methods'"),
        ("cyclic = 3", "[code] 'cyclic' is a string"),
    ],
)
def test_the_table_names_the_ports_methods_with_strings(tmp_path, more, problem):
    found = port(tmp_path, more=more)
    assert found.manifest_error is not None and problem in found.manifest_error


def test_a_link_or_a_large_file_is_not_read(tmp_path):
    outside = tmp_path / "secret.sh"
    outside.write_text(SOURCE)
    port(tmp_path, recursive="link.sh#recursive")
    (tmp_path / "lang" / "link.sh").symlink_to(outside)
    assert "link" in (load_port(tmp_path / "lang" / "language.toml").manifest_error or "")  # the folder's own check, or the reference's
    (tmp_path / "lang" / "link.sh").unlink()
    (tmp_path / "lang" / "big.sh").write_text("# region recursive\n" + "x\n" * (MAX_SOURCE_BYTES // 2) + "# endregion recursive\n")
    found = port(tmp_path, recursive="big.sh#recursive")
    assert found.manifest_error is not None and "larger than 1024 KiB" in found.manifest_error




def test_a_region_as_large_as_a_file_may_be_is_cut_out_in_one_pass():
    """Every command reads each port's code when it finds the ports: a region of a file at the most
    the harness reads is cut out whole, each line once (it took a minute and a half when each line
    copied the region read so far)."""
    body = "x\n" * ((MAX_SOURCE_BYTES - 64) // 2)
    [span] = extract(f"# region a\n{body}# endregion a\n", "a")
    assert span.first == 2 and len(span.lines) == body.count("\n")


PEG_NAMES = {"source": "S", "origin": "S", "start_pos": "S", "target": "T", "end_pos": "T", "spare": "X", "extra_pos": "X"}
"""The recursive method's pegs by the documents' names: the notes' r_toh(n, origin, target, spare),
COMP9021's recursive_towers(n, start_pos, end_pos, extra_pos), or source, target and spare."""
PEG_ORDER_KEPT = {
    "bash": "the notes' r_toh as listed, its pegs by position: 1 disks, 2 origin, 3 target, 4 spare",
    "forth": "( source target n -- ), the count on top as each word of the file takes it, the spare worked out",
    "prolog": "Flach's hanoi/5, as the book orders its pegs: N discs from A to C by way of B",
}


@pytest.mark.parametrize("found", [found for found in discover(ROOT) if found.name not in PEG_ORDER_KEPT], ids=lambda found: found.name)
def test_each_ports_recursive_method_takes_its_pegs_in_the_documents_order(found):
    """One order across the gallery: the method takes (n, source, target, spare), then calls itself
    with (source, spare, target) and (spare, target, source), whatever else it carries."""
    words = re.findall(r"[a-z_]+", found.code["recursive"].text.lower().replace("-", " "))
    pegs = "".join(PEG_NAMES.get(word.strip("_"), "") for word in words)
    assert re.search("STX.*SXT.*XTS", pegs), (found.name, pegs)
