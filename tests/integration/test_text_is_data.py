"""Text from ports is data in every form of the report: what a port prints, its folder's name and its
interpreter's version reach no terminal as escape sequences, no JUnit file as characters XML refuses,
no Markdown table as a broken row and no rich console as markup; and a terminal whose encoding cannot
show a character gets it written out, the report files written all the same."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import harness_here
from integration.conftest import harness

SOUND = """import sys


def moves(n, src, dst, spare):
    if n:
        yield from moves(n - 1, src, spare, dst)
        yield n, src, dst
        yield from moves(n - 1, spare, dst, src)


for move in moves(int(sys.argv[2]), 0, 2, 1):
    print(*move)
"""
STDERR = b"bad \x01 \x0b \x1b[31mred\x1b[0m \x1b]0;title\x07 \xef\xbf\xbe end\n"
"""What the noisy port writes to stderr before it exits 3: controls, colour, a window title, U+FFFE."""
STDERR_SHOWN = r"bad \x01 \x0b \x1b[31mred\x1b[0m \x1b]0;title\x07 \ufffe end"
VERSION = b"v1 \x1b[2J\x1b]0;t\x07\x1b]8;;https://a.b/\x1b\\l\x1b]8;;\x1b\\ \xc3\xa9\n"
"""What the titled port's version command prints: clear the screen, set the window's title, a hyperlink,
an é; short enough that plain output's 80 columns show it whole."""
VERSION_SHOWN = r"v1 \x1b[2J\x1b]0;t\x07\x1b]8;;https://a.b/\x1b\l\x1b]8;;\x1b\ é"
BANNER = b"\x1b[2JHanoi\x1b]0;title\x07\n"
"""A line the titled port prints before its moves, which its manifest ignores."""
BANNER_SHOWN = r"\x1b[2JHanoi\x1b]0;title\x07"
NAMES = {
    "a|b": "a|b", "[link=mailto:a]m": "[link=mailto:a]m", ":smile:": ":smile:", "undecodable-\udcff": r"undecodable-\xff",
    "<img src=x onerror=alert(1)>": "<img src=x onerror=alert(1)>",
}
"""Folders of sound ports named to mean something to Markdown and to rich, or not UTF-8 (the bytes
``undecodable-\\xff``, read as a lone surrogate), or HTML, and each name as the report shows it: the
bytes written out."""
HTML_VERSION = b"<b>1.0</b> & <script>alert(1)</script>\n"
"""What the marked port's version command prints: HTML, which Markdown must show as text."""
CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")
"""What a report must never hold raw (newlines and tabs may)."""
COLOUR = re.compile(r"\x1b\[[0-9;]*m")
"""rich's own colours, on a console that is forced to be a terminal."""
MANIFEST = """summary = "a port"
command = ["python3", "{program}", "{{method}}", "{{n}}"]
methods = ["recursive"]

[[requires]]
executable = "python3"
version = ["python3", "{version}"]

[output]
patterns = ['(?P<disk>\\d+) (?P<src>\\d) (?P<dst>\\d)']
pegs = ["0", "1", "2"]
ignore = ['.*Hanoi.*']
"""


def script(path: Path, *writes: tuple[str, bytes], then: str = "") -> Path:
    """A Python program that writes these bytes to these streams, then runs ``then``: bytes, so that
    what it sends does not depend on the encoding the harness is run with."""
    path.write_text("import sys\n" + "".join(f"sys.{stream}.buffer.write({data!r})\nsys.{stream}.flush()\n" for stream, data in writes) + then)
    return path


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    """Ports: ``noisy`` fails with escape sequences on stderr, ``titled``'s version and first line
    hold them, and the folders of NAMES hold sound ports."""
    tmp = tmp_path_factory.mktemp("text")
    programs = tmp / "programs"
    programs.mkdir()
    sound = script(programs / "sound.py", then=SOUND)
    plain_version = script(programs / "version.py", ("stdout", b"Python 3\n"))
    ports = {
        "noisy": (script(programs / "noisy.py", ("stderr", STDERR), then="sys.exit(3)\n"), plain_version),
        "titled": (script(programs / "titled.py", ("stdout", BANNER), then=SOUND), script(programs / "titled_version.py", ("stdout", VERSION))),
        "marked": (sound, script(programs / "marked_version.py", ("stdout", HTML_VERSION))),
        **dict.fromkeys(NAMES, (sound, plain_version)),
    }
    found = tmp / "ports"
    for name, (program, version) in ports.items():
        (found / name).mkdir(parents=True)
        (found / name / "language.toml").write_text(MANIFEST.format(program=program, version=version))
    return found


@pytest.fixture(scope="module")
def compared(root, tmp_path_factory):
    """One plain compare of every port, with its JSON, JUnit, Markdown and HTML files."""
    files = tmp_path_factory.mktemp("reports")
    done = harness_here(
        "--root", str(root), "compare", "--n", "1", "--format", "plain", "--json", str(files / "r.json"), "--junit", str(files / "j.xml"),
        "--markdown", str(files / "m.md"), "--html", str(files / "p.html"),
    )
    assert done.returncode == 1, done.stdout + done.stderr  # noisy errors
    assert "Traceback" not in done.stderr
    return done, files


def test_a_name_that_is_not_utf8_is_its_bytes_written_out_in_the_json_and_the_page(compared):
    """The folder's name reaches every file as the bytes it is, ``\\xff``: the JSON report is UTF-8
    that any reader takes, and the page's cells are found by the ids its data gives them."""
    _, files = compared
    data = json.loads((files / "r.json").read_bytes().decode("utf-8"))
    shown = r"undecodable-\xff"
    assert data["ports"][shown]["problem"] is None
    assert {cell["id"]: cell["outcome"] for cell in data["cells"] if cell["port"] == shown and cell["outcome"] != "skipped"} == {f"{shown}/recursive/1": "pass"}
    assert data["plan"]["ports"].count(shown) == 1
    page = (files / "p.html").read_bytes().decode("utf-8")
    assert f'data-cell="{shown}/recursive/1"' in page
    assert 'href="#undecodable-%5Cxff/recursive/1"' in page
    assert "\\udcff" not in page and "\\udcff" not in (files / "r.json").read_text(encoding="utf-8")


def cells(line: str) -> int:
    """How many cells a Markdown table row holds: a pipe after a backslash is text."""
    return len(re.split(r"(?<!\\)\|", line.strip())) - 2


def table_rows(markdown: str) -> list[str]:
    return [line for line in markdown.splitlines() if line.startswith("|")]


def test_junit_is_well_formed_and_shows_what_a_port_wrote_to_stderr(compared):
    _, files = compared
    assert not CONTROLS.search((files / "j.xml").read_text(encoding="utf-8"))
    suites = {suite.get("name"): suite for suite in ET.parse(files / "j.xml").getroot()}
    assert set(suites) == {"noisy", "titled", "marked", *NAMES.values(), "agreement"}
    [error] = suites["noisy"].iter("error")
    assert error.get("type") == "crash"
    assert STDERR_SHOWN in error.get("message", "")
    assert STDERR_SHOWN in (error.text or "")


def test_plain_output_shows_escape_sequences_and_sends_none(compared):
    done, _ = compared
    assert not CONTROLS.search(done.stdout + done.stderr)
    assert f"  titled: {VERSION_SHOWN}\n" in done.stdout
    assert f"stderr: | {STDERR_SHOWN}" in done.stdout
    assert re.search(r"^a\|b +— +pass · 1 moves +— +—$", done.stdout, re.M), done.stdout


def test_pretty_output_shows_escape_sequences_and_port_names_as_typed(root):
    done = harness_here("--root", str(root), "compare", "--n", "1", "--format", "pretty", env={"FORCE_COLOR": "1"})
    assert done.returncode == 1, done.stdout + done.stderr
    assert "\x1b]" not in done.stdout  # no window title, no hyperlink
    shown = COLOUR.sub("", done.stdout)
    assert not CONTROLS.search(shown)
    assert r"\x1b[2J\x1b]0;t\x07" in shown
    assert "bad \\x01 \\x0b \\x1b[31mred" in shown
    for name in NAMES.values():
        assert f"│ {name} " in shown, shown


def test_list_shows_port_names_and_versions_as_typed(root):
    pretty = harness_here("--root", str(root), "list", "--verbose", "--format", "pretty", env={"FORCE_COLOR": "1"})
    assert pretty.returncode == 0, pretty.stdout + pretty.stderr
    assert "\x1b]" not in pretty.stdout
    shown = COLOUR.sub("", pretty.stdout)
    assert not CONTROLS.search(shown)
    for name in NAMES.values():
        assert f"│ {name} " in shown, shown
    plain = harness_here("--root", str(root), "list", "--verbose", "--format", "plain")
    assert not CONTROLS.search(plain.stdout)
    assert f"titled: recursive; found {VERSION_SHOWN}" in plain.stdout.splitlines()


def test_markdown_rows_keep_their_cells_on_one_line(root, compared):
    _, files = compared
    report = (files / "m.md").read_text(encoding="utf-8")
    listed = harness_here("--root", str(root), "list", "--format", "markdown").stdout
    for markdown, columns in ((report, 6), (listed, 4)):
        assert not CONTROLS.search(markdown)
        rows = table_rows(markdown)
        assert len(rows) == 2 + 3 + len(NAMES), markdown  # header, rule, noisy, titled, marked and NAMES
        assert [cells(row) for row in rows] == [columns] * len(rows), markdown
    assert "| a\\|b |" in report
    assert "| `a\\|b/` |" in listed
    assert VERSION_SHOWN.replace("\\", "\\\\") in report


def test_markdown_shows_html_in_names_and_versions_as_text(compared):
    """GitHub's Markdown takes HTML in a table cell as HTML: a port's name and version reach it as text."""
    _, files = compared
    report = (files / "m.md").read_text(encoding="utf-8")
    assert "<img" not in report and "<b>" not in report and "<script>" not in report
    assert "| &lt;img src=x onerror=alert(1)&gt; | Python 3 |" in report
    assert "| marked | &lt;b&gt;1.0&lt;/b&gt; &amp; &lt;script&gt;alert(1)&lt;/script&gt; |" in report


def test_run_shows_the_ports_lines_and_detail_as_escapes(root):
    raw = harness_here("--root", str(root), "run", "titled", "recursive", "--n", "1", "--raw")
    assert raw.returncode == 0, raw.stdout + raw.stderr
    assert raw.stdout.splitlines() == [BANNER_SHOWN, "1 0 2"]
    noisy = harness_here("--root", str(root), "run", "noisy", "recursive", "--n", "1")
    assert noisy.returncode == 1
    assert not CONTROLS.search(noisy.stderr)
    assert STDERR_SHOWN in noisy.stderr


@pytest.mark.parametrize("env", [
    {"PYTHONIOENCODING": "ascii"},
    {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"},
], ids=["PYTHONIOENCODING=ascii", "LC_ALL=C"])
def test_an_ascii_terminal_gets_every_character_written_out_and_the_files_written(root, tmp_path, env):
    report = tmp_path / "report.json"
    done = harness("--root", str(root), "compare", "--n", "1", "--json", str(report), env=env)
    assert done.returncode == 1, done.stdout + done.stderr  # noisy errors
    assert "Traceback" not in done.stdout + done.stderr
    assert done.stdout.isascii()
    assert r"pass \xb7 1 moves" in done.stdout
    assert "  titled: " + VERSION_SHOWN.replace("é", r"\xe9") in done.stdout
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["ports"]["titled"]["versions"]["python3"] == VERSION.decode().strip()
