"""What a manifest hands an installer or a page: package names by each installer's grammar and
addresses with no control or bidi character, each refusal naming the line that wrote it; and what
remains of an address reaches every page's markup escaped."""

from __future__ import annotations

import json

import pytest

from conftest import project_ports
from harness.discover import load_port
from harness.gallery import gallery
from harness.port import Port, Source
from harness.report import WRITERS, PortInfo, Report
from harness.settings import RunPlan

MANIFEST = """\
methods = ["recursive", "cyclic"]
command = ["hanoi", "{{method}}", "{{n}}"]
[[requires]]
executable = "hanoi"
debian = "hanoi"
homebrew = "hanoi"
[[requires]]
executable = "tool"
{key} = {value}
[[source]]
title = "Notes"
author = "unknown"
published = "unknown"
terms = "unknown"
url = {url}
[output]
patterns = ['(?P<src>\\d) (?P<dst>\\d)']
pegs = ["0", "1", "2"]
"""
PACKAGE_LINE, URL_LINE = 9, 15


def manifest_error(tmp_path, key: str = "debian", value: str = "tool", url: str = "https://example.org/notes", text: str = "") -> str | None:
    """The error of a port whose second requirement gives ``key = value`` and whose source gives ``url``
    (both as TOML's basic strings, so that a control character is written as its escape)."""
    folder = tmp_path / "port"
    folder.mkdir(exist_ok=True)
    (folder / "language.toml").write_text(text or MANIFEST.format(key=key, value=json.dumps(value), url=json.dumps(url)))
    return load_port(folder / "language.toml").manifest_error


def at_line(tmp_path, line: int) -> str:
    return f"{tmp_path / 'port' / 'language.toml'}:{line}: "


@pytest.mark.parametrize(
    "value",
    [
        "openssh-server- sudo-",  # apt removes a package named with a trailing '-'
        "sudo-",
        "tool+",  # and installs one named with a trailing '+', the rest of the line being read the same way
        "lib.+",  # a regular expression: every package whose name holds "lib"
        "lib.++",
        "lib.",
        "bash/bookworm",  # a release
        "bash=5.2-15",  # a version
        "bash:amd64",
        "?installed",  # apt's patterns
        "lib[a-z]*",
        "-oDir::Bin::dpkg=/tmp/evil.sh",  # an option
        "Bash",
        "b",  # Debian's names are two characters at least
        "tool\tsudo-",
    ],
)
def test_a_debian_value_apt_would_read_as_an_action_a_pattern_or_an_option_is_refused_with_its_line(tmp_path, value):
    error = manifest_error(tmp_path, "debian", value)
    assert error is not None and error.startswith(at_line(tmp_path, PACKAGE_LINE)), error
    assert "'debian' names packages" in error, error


@pytest.mark.parametrize(
    "value",
    [
        "--HEAD", "evil.rb", "./evil.rb", "https://example.org/evil.rb", "user/tap", "user/tap/name/more", "Node", "node;id", "-s",
        "user/tap/formula", "homebrew/core/gcc",  # a tap: brew would tap another's repository to install it
        "gcc--13.2.0.arm64_sonoma.bottle.tar.gz", "gcc.bottle.tar.gz", "gcc.tar.gz", "python@3.12.tar.gz", "gcc@",
    ],
)
def test_a_homebrew_value_brew_would_read_as_an_option_a_file_or_an_address_is_refused_with_its_line(tmp_path, value):
    error = manifest_error(tmp_path, "homebrew", value)
    assert error is not None and error.startswith(at_line(tmp_path, PACKAGE_LINE)), error
    assert "'homebrew' names packages" in error, error


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("debian", "g++"),
        ("debian", "gcc libc6-dev"),
        ("debian", "lua5.4 libstdc++6 openjdk-17-jdk-headless"),
        ("debian", "dbus-c++"),
        ("homebrew", "openjdk@17"),
        ("homebrew", "python@3.12 gtk+3"),
        ("homebrew", "tcl-tk gnu-sed swi-prolog node@18 lua@5.4"),
    ],
)
def test_package_names_are_taken(tmp_path, key, value):
    assert manifest_error(tmp_path, key, value) is None


def test_every_package_the_shipped_manifests_name_is_taken():
    named = {requirement.debian for port in project_ports().values() for requirement in port.requires}
    assert "g++" in named and "gcc libc6-dev" in named and "lua5.4" in named
    assert not [port.manifest_error for port in project_ports().values() if port.manifest_error]


@pytest.mark.parametrize(
    "character",
    ["\0", "\x07", "\x1b", "\x7f", "\x85", "\u202e", "\u202a", "\u2066", "\u2069", "\u200e", "\u200f", "\u200b", "\u2060", "\ufeff", "\u00ad"],
)
def test_a_source_url_holding_a_control_or_bidi_character_is_refused_with_its_line(tmp_path, character):
    error = manifest_error(tmp_path, url=f"https://example.org/{character}gpj.exe")
    assert error is not None and error.startswith(at_line(tmp_path, URL_LINE)), error
    assert f"U+{ord(character):04X}" in error, error


def test_a_url_written_with_an_escape_is_refused_with_its_line(tmp_path):
    text = MANIFEST.format(key="debian", value='"tool"', url='"https://example.org/\\u202Egpj.exe"')
    error = manifest_error(tmp_path, text=text)
    assert error is not None and error.startswith(at_line(tmp_path, URL_LINE)), error


def test_a_method_table_nested_in_itself_is_refused_with_its_line(tmp_path):
    text = MANIFEST.format(key="debian", value='"tool"', url='"https://example.org/"') + '[method.cyclic.method.cyclic]\ncommand = ["x", "{n}"]\n'
    error = manifest_error(tmp_path, text=text)
    assert error is not None and error.startswith(at_line(tmp_path, 19)), error
    assert "unknown key 'method'" in error, error


def test_a_dotted_key_that_opens_an_unknown_table_is_refused_with_its_line(tmp_path):
    text = MANIFEST.format(key="debian", value='"tool"', url='"https://example.org/"') + "[method.cyclic]\nmethod.cyclic.min_n = 1\n"
    error = manifest_error(tmp_path, text=text)
    assert error is not None and error.startswith(at_line(tmp_path, 20)), error


ODD_URL = "https://example.org/a?b=\"c\"&d='e'<f>"
"""An address no manifest may give (the parser refuses its quotes and brackets): a writer escapes it all the same."""


def test_every_page_that_links_a_source_escapes_its_address(tmp_path):
    source = Source("Notes", "unknown", "unknown", "unknown", ("recursive",), ODD_URL)
    escaped = "https://example.org/a?b=&#34;c&#34;&amp;d=&#39;e&#39;&lt;f&gt;"
    plan = RunPlan(("good",), ("recursive",), (2,))
    info = PortInfo("good", "summary", ("recursive",), {}, None, (source,))
    report = Report("compare", "2026-01-01T00:00:00+00:00", "2026-01-01T00:00:01+00:00", "abc1234", plan, {"jobs": 1}, {"cores": 1}, [info], ["recursive"], [])
    page = WRITERS["html"].text(report)
    assert f'<a href="{escaped}" rel="noreferrer">{escaped}</a>' in page and ODD_URL not in page
    port = Port(name="good", folder=tmp_path, methods=("recursive",), sources=(source,))
    site = gallery(report, [port], {})
    assert f'<a href="{escaped}" rel="noreferrer">' in site and ODD_URL not in site


@pytest.mark.parametrize(
    ("old", "new", "line"),
    [
        ('executable = "tool"', 'executable = "../bin/tool"', 8),  # an executable that is a path
        ('debian = "tool"', "install = 3", 9),  # advice that is no string
        ('"hanoi", "{method}"', '"{binary}", "{method}"', 2),  # {binary} without a build
        ('command = ["hanoi"', 'build = ["cc", "-o", "{binary}", "x.c"]\ncommand = ["hanoi"', 3),  # a build whose program is not run
        ("methods = [", "method = 3\nmethods = [", 1),  # [method] that is no table
    ],
)
def test_every_fault_of_a_key_that_is_written_names_its_line(tmp_path, old, new, line):
    text = MANIFEST.format(key="debian", value='"tool"', url='"https://example.org/"')
    assert old in text
    error = manifest_error(tmp_path, text=text.replace(old, new, 1))
    assert error is not None and error.startswith(at_line(tmp_path, line)), error
