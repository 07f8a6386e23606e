"""Manifests: what a port may say about how it runs, and a clear message for what it may not."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from conftest import ROOT, project_ports
from harness.discover import discover, load_port
from harness.patterns import never_matches
from harness.port import Built
from harness.readers import READERS
from harness.readers.lines import LineReader

GOOD = """\
methods = ["binary", "recursive", "cyclic"]
build = ["cc", "-o", "{binary}", "hanoi.c"]
command = ["{binary}", "{method}", "{n}"]
[output]
patterns = ['(?P<src>\\d) (?P<dst>\\d)']
pegs = ["0", "1", "2"]
[method.cyclic]
build = ["cc", "-DN={n}", "-o", "{binary}", "cyclic.c"]
command = ["{binary}"]
[method.cyclic.output]
format = "drawings"
pegs = ["A", "B", "C"]
"""


HINT = "patterns must match the whole line, so they need no '^' or '$'"


def port_from(tmp_path, text: str):
    folder = tmp_path / "lang"
    folder.mkdir(exist_ok=True)
    (folder / "language.toml").write_text(text)
    return load_port(folder / "language.toml")


def test_a_method_table_replaces_only_the_keys_it_gives(tmp_path):
    port = port_from(tmp_path, GOOD)
    assert port.manifest_error is None
    binary, cyclic = port.program("binary"), port.program("cyclic")
    assert (binary.output.format, binary.command) == ("lines", ("{binary}", "{method}", "{n}"))
    built = Built(tmp_path / "build", tmp_path / "built")
    assert binary.argv("binary", 4, built) == [str(tmp_path / "built"), "binary", "4"]
    assert (cyclic.output.format, cyclic.output.pegs, cyclic.output.patterns) == ("drawings", ("A", "B", "C"), ())
    assert cyclic.build == (("cc", "-DN={n}", "-o", "{binary}", "cyclic.c"),)


@pytest.mark.parametrize(
    "change, problem",
    [
        (("[method.cyclic]", "[method.iterative]"), "[method.iterative] is for a method the port does not list in 'methods'"),
        (('command = ["{binary}"]', 'command = ["./cyclic"]'), "[method.cyclic] with 'build', 'command' runs what it made: {binary}"),
        (('"-o", "{binary}", "cyclic.c"', '"cyclic.c"'), "[method.cyclic] 'command' runs {binary}, so 'build' must make it"),
        (('build = ["cc", "-DN={n}", "-o", "{binary}", "cyclic.c"]', 'build = [["cc"], "x"]'), "'build' must be a command (a list of strings) or a list"),
        (('build = ["cc", "-DN={n}", "-o", "{binary}", "cyclic.c"]', 'build = [["cc", "{n}", "{binary}"], []]'), "each command in 'build' must name a program"),
        (('build = ["cc", "-o", "{binary}", "hanoi.c"]\ncommand = ["{binary}",', 'command = ["{build}/a",'), "{binary} and {build} name what 'build' makes"),
        (('"-DN={n}", ', ""), "[method.cyclic] 'command', 'build' or 'stdin' must use {n}"),
        (('"{method}", ', ""), "'command', 'build' or 'stdin' must use {method}, to tell the program which method to run"),
        (('format = "drawings"', 'format = "pictures"'), f"'output.format' must be one of {', '.join(READERS)}, not 'pictures'"),
        (('format = "drawings"', "format = \"drawings\"\npatterns = ['(?P<src>A) (?P<dst>B)']"), "and none for drawings"),
        (('"recursive", ', '"spiral", '), "unknown: spiral"),
        (("[method.cyclic]\n", '[method.cyclic]\nrequire = "cc"\n'), "[method.cyclic] unknown key 'require'; the keys here are command"),
        (("[output]", "[[require]]\nexecutable = 'cc'\n[output]"), "unknown key 'require'; the keys here are summary, methods"),
        (("[output]\n", "[output]\npattern = 'x'\n"), "[output] unknown key 'pattern'"),
        (("[output]", "[[requires]]\nexecutable = 'cc'\ninstal = 'apt-get install gcc'\n[output]"), "[[requires]] unknown key 'instal'"),
        (('"hanoi.c"', '"hanoi.c\\u0000"'), "'command' and 'build' may not hold a NUL character"),
        (('"{method}", "{n}"]', '"{method}\\u0000", "{n}"]'), "may not hold a NUL character"),
        (("[output]\n", "min_n = -1\n[output]\n"), "'min_n' is the smallest number of discs the program takes, from 0 to 64"),
        (("[output]\n", "stdin = 3\n[output]\n"), "'stdin' is a string"),
        (("(?P<src>\\d) (?P<dst>\\d)", "(?P<src>\\d) (?P<to>\\d)"), "needs the named groups src and dst, and may add disk; nothing else"),
        (("[output]\n", "[output]\nseparator = '('\n"), "pattern '(' does not compile"),
        (('format = "drawings"', "format = \"states\"\npatterns = ['(?P<src>A) (?P<dst>B)']"), "needs the named groups discs, and may add peg"),
        # patterns that can never match a line
        (("(?P<src>\\d) (?P<dst>\\d)", "(?P<src>\\d) ^(?P<dst>\\d)"), f"can never match: '^' or '\\A' comes after text the pattern reads first ({HINT})"),
        (("(?P<src>\\d) (?P<dst>\\d)", "(?P<src>\\d)$ (?P<dst>\\d)"), f"can never match: '$' or '\\Z' comes before text the pattern still reads ({HINT})"),
        (("(?P<src>\\d) (?P<dst>\\d)", "Move:\\A(?P<src>\\d) (?P<dst>\\d)"), "'^' or '\\A' comes after text"),
        (("(?P<src>\\d) (?P<dst>\\d)", "(?:(?P<src>\\d)|x)^ (?P<dst>\\d)"), "'^' or '\\A' comes after text"),
        (("(?P<src>\\d) (?P<dst>\\d)", "(?P<src>\\d)\\n(?P<dst>\\d)"), "needs a line break ('\\n'), and a line never holds one"),
        (("(?P<src>\\d) (?P<dst>\\d)", "(?P<src>\\d)[\\n]+(?P<dst>\\d)"), "needs a line break"),
        (("(?P<src>\\d) (?P<dst>\\d)", "(?P<disk>)(?P<src>\\d) (?P<dst>\\d)"), "its group disk never holds a number in the digits 0-9"),
        (("(?P<src>\\d) (?P<dst>\\d)", "(?P<disk>[a-z]*) (?P<src>\\d) (?P<dst>\\d)"), "its group disk never holds a number in the digits 0-9"),
        (("[output]\n", "[output]\nignore = ['Total:\\nmoves']\n"), "pattern 'Total:\\\\nmoves' can never match: it needs a line break"),
        (("[output]\n", "[output]\nseparator = ';$ '\n"), "pattern ';$ ' can never match: '$' or '\\Z' comes before text"),
        (('format = "drawings"', "format = \"states\"\npatterns = ['(?P<discs>[0-9 ]*)$:']"), "'$' or '\\Z' comes before text"),
    ],
)
def test_a_manifest_that_cannot_be_used_says_why(tmp_path, change, problem):
    old, new = change
    assert old in GOOD
    port = port_from(tmp_path, GOOD.replace(old, new, 1))
    assert port.manifest_error is not None and problem in port.manifest_error, port.manifest_error



SQL = """\
methods = ["binary"]
[postgresql]
load = []
query = "SELECT * FROM hanoi.{method}({n})"
[output]
patterns = ['(?P<src>\\d) (?P<dst>\\d)']
pegs = ["0", "1", "2"]
"""


@pytest.mark.parametrize(
    "query",
    ["SELECT * FROM hanoi.{method}({n}, {discs})", "SELECT {method}, {n}, {}", "SELECT {method} {n} }", "SELECT {n}"],
)
def test_a_query_with_a_placeholder_the_harness_does_not_fill_is_the_ports_problem(tmp_path, query):
    port = port_from(tmp_path, SQL.replace("SELECT * FROM hanoi.{method}({n})", query))
    assert port.manifest_error is not None and "'postgresql.query' must be a query that uses {method} and {n}, and no other" in port.manifest_error


@pytest.mark.parametrize(("moves", "notices"), [(None, False), ("rows", False), ("notices", True)])
def test_a_querys_moves_are_its_rows_unless_it_says_its_notices(tmp_path, moves, notices):
    manifest = SQL if moves is None else SQL.replace("[output]", f'moves = "{moves}"\n[output]')
    port = port_from(tmp_path, manifest)
    assert port.manifest_error is None, port.manifest_error
    query = port.programs["binary"].query
    assert query is not None and query.notices is notices


@pytest.mark.parametrize("moves", ['"NOTICES"', '"warnings"', "true", '["notices"]'])
def test_a_query_whose_moves_are_neither_rows_nor_notices_is_the_ports_problem(tmp_path, moves):
    port = port_from(tmp_path, SQL.replace("[output]", f"moves = {moves}\n[output]"))
    assert port.manifest_error is not None and "'postgresql.moves' must be one of rows, notices" in port.manifest_error


def test_a_query_may_write_a_brace_doubled(tmp_path):
    port = port_from(tmp_path, SQL.replace("({n})", "({n}) WHERE '{{' <> ''"))
    assert port.manifest_error is None, port.manifest_error


def test_a_manifest_not_in_utf8_is_that_ports_problem(tmp_path):
    folder = tmp_path / "latin"
    folder.mkdir()
    (folder / "language.toml").write_bytes(GOOD.replace("[output]", 'summary = "caf\xe9"\n[output]', 1).encode("latin-1"))
    port = load_port(folder / "language.toml")
    assert port.manifest_error is not None and "language.toml:4: not UTF-8 text: byte 0xe9 at offset" in port.manifest_error


@pytest.mark.parametrize(("name", "shown", "held"), [
    ("zz\n\nAll pass", "zz\\n\\nAll pass", "'\\n'"), ("a\tb", "a\\tb", "'\\t'"),
    ("a\x1b[2Jb", "a\\x1b[2Jb", "'\\x1b'"), ("rtl\u202e", "rtl\\u202e", "'\\u202e'"),
])
def test_a_folder_named_with_a_line_break_or_a_control_is_that_ports_problem_written_out(tmp_path, name, shown, held):
    folder = tmp_path / name
    folder.mkdir()
    (folder / "language.toml").write_text(GOOD)
    port = load_port(folder / "language.toml")
    assert port.name == shown and port.manifest_error is not None, port
    assert port.manifest_error.startswith(f"{tmp_path / shown / 'language.toml'}: the folder's name holds {held}"), port.manifest_error
    assert port.manifest_error.isprintable(), port.manifest_error


def test_a_folder_named_in_bytes_that_are_not_utf8_is_a_sound_port(tmp_path):
    folder = tmp_path / os.fsdecode(b"undecodable-\xff")
    folder.mkdir()
    (folder / "language.toml").write_text(GOOD)
    assert load_port(folder / "language.toml").manifest_error is None


def test_a_manifest_over_a_mebibyte_is_that_ports_problem_before_it_is_read(tmp_path):
    port = port_from(tmp_path, GOOD + "# " + "x" * (1 << 20) + "\n")
    assert port.manifest_error is not None and port.manifest_error.endswith("language.toml: larger than 1024 KiB, the most a manifest may be")


@pytest.mark.parametrize("depth", [51, 3000])
def test_a_pattern_nested_past_the_bound_is_that_ports_problem_and_the_proof_stays_bounded(tmp_path, depth):
    pattern = "(" * depth + r"(?P<src>\d) (?P<dst>\d)" + ")" * depth
    port = port_from(tmp_path, GOOD.replace(r"(?P<src>\d) (?P<dst>\d)", pattern))
    assert port.manifest_error is not None and f"nests its groups {depth + 1} deep; at most 50" in port.manifest_error
    assert len(port.manifest_error) < 400
    assert never_matches(pattern) is None  # the standard library's parser recurses past its limit: not judged, and no error
    assert never_matches("(" * 49 + "a^" + ")" * 49) == f"'^' or '\\A' comes after text the pattern reads first ({HINT})"


def test_a_requirement_of_one_method_is_that_methods_alone(tmp_path):
    text = GOOD + '[[method.cyclic.requires]]\nexecutable = "tcc"\ndebian = "tcc"\n'
    port = port_from(tmp_path, text)
    assert port.manifest_error is None, port.manifest_error
    assert port.program("binary").requires == ()
    [tcc] = port.program("cyclic").requires
    assert (tcc.executable, tcc.advice) == ("tcc", "Debian: apt-get install tcc")
    assert port.requires == (tcc,)


@pytest.mark.parametrize(
    "pattern",
    [
        "^(?P<src>\\d) (?P<dst>\\d)$",  # anchors at the ends are no use, and no harm
        "\\A(?P<src>\\d) (?=\\d)(?P<dst>\\d)\\Z",  # a lookahead
        "(?P<src>\\d)\\s+?(?P<dst>\\d).*?",  # lazy
        "(?:(?P<disk>\\d+)|-)? ?(?P<src>\\d) (?P<dst>\\d)",  # a disk that may be absent
        "(?P<src>\\d)(?:\\n|\\s|$^)(?P<dst>\\d)",  # an impossible branch beside one that reads
        "(?P<src>\\d)[[:space:]](?P<dst>\\d)",  # regex's POSIX class, which the standard library reads otherwise
        "(?P<src>\\p{Nd}) (?P<dst>\\d)",  # regex's own syntax: not judged
        "(?P<src>\\d)[^\\w\\W](?P<dst>\\d)",  # a set of no character for the standard library, of any for regex
    ],
)
def test_a_pattern_that_may_match_is_taken_and_reads_its_lines(tmp_path, pattern):
    port = port_from(tmp_path, GOOD.replace("(?P<src>\\d) (?P<dst>\\d)", pattern, 1))
    assert port.manifest_error is None, port.manifest_error
    [move] = LineReader(port.program("binary").output).read("0 2")
    assert (move.src, move.dst) == (0, 2)


SQL_PORT = ROOT / "sql"


@pytest.mark.parametrize(
    "leading",
    [
        "a link to a file outside", "a link to a folder outside", "the manifest itself, a link outside", "a load file, a link outside",
        "a link that leads round in a loop",
    ],
)
def test_a_link_out_of_the_ports_folder_is_its_manifest_error_and_nothing_outside_is_read(tmp_path, leading):
    """A port is its folder: the harness reads, copies and mounts nothing else for it, so a link that
    would stand for a file elsewhere on the machine (/etc/shadow, another port) makes the port unusable."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.sql").write_text("SELECT 'secret from outside the port';\n")
    folder = tmp_path / "ports" / "sql"
    shutil.copytree(SQL_PORT, folder)
    if leading == "a link to a file outside":
        (folder / "notes.txt").symlink_to(outside / "secret.sql")
    elif leading == "a link to a folder outside":
        (folder / "more").symlink_to(outside)
    elif leading == "the manifest itself, a link outside":
        (outside / "language.toml").write_text((folder / "language.toml").read_text())
        (folder / "language.toml").unlink()
        (folder / "language.toml").symlink_to(outside / "language.toml")
    elif leading == "a load file, a link outside":
        (folder / "hanoi.sql").unlink()
        (folder / "hanoi.sql").symlink_to(outside / "secret.sql")
    else:
        (folder / "a").symlink_to("b")
        (folder / "b").symlink_to("a")
    port = load_port(folder / "language.toml")
    assert port.manifest_error is not None, leading
    assert "link" in port.manifest_error and "secret from outside" not in port.manifest_error, port.manifest_error
    assert port.programs == {}


def test_a_link_inside_the_ports_folder_is_its_own_file(tmp_path):
    folder = tmp_path / "sql"
    shutil.copytree(SQL_PORT, folder)
    (folder / "same.sql").symlink_to("hanoi.sql")
    assert load_port(folder / "language.toml").manifest_error is None


def test_a_load_file_named_outside_the_folder_is_refused(tmp_path):
    folder = tmp_path / "sql"
    shutil.copytree(SQL_PORT, folder)
    (tmp_path / "elsewhere.sql").write_text("SELECT 1;\n")
    (folder / "language.toml").write_text((folder / "language.toml").read_text().replace('load = ["hanoi.sql"]', 'load = ["../elsewhere.sql"]'))
    error = load_port(folder / "language.toml").manifest_error or ""
    assert "'postgresql.load' names a file outside the port's folder" in error


def test_a_pipe_in_the_ports_folder_is_refused_at_once(tmp_path):
    folder = tmp_path / "sql"
    shutil.copytree(SQL_PORT, folder)
    os.mkfifo(folder / "endless")
    assert "'endless' is neither a file nor a folder" in (load_port(folder / "language.toml").manifest_error or "")


def test_a_port_is_named_as_its_root_lists_it_not_as_the_folder_a_link_leads_to(tmp_path):
    """A link named shadow to a folder named python elsewhere is the port shadow: the real python port
    keeps its name, its cells and its verdict."""
    elsewhere = tmp_path / "elsewhere" / "python"
    shutil.copytree(ROOT / "python", elsewhere)
    root = tmp_path / "ports"
    root.mkdir()
    (root / "python").symlink_to(ROOT / "python")
    (root / "shadow").symlink_to(elsewhere)
    assert [(port.name, port.folder) for port in discover(root)] == [("python", ROOT / "python"), ("shadow", elsewhere)]


SOURCES = """\
[[source]]
title = "The towers of Hanoi"
author = "Eric Martin"
published = "course notes"
terms = "unknown"
methods = ["recursive"]

[[source]]
title = "Some notes"
author = "unknown"
published = "unknown"
terms = "unknown"

[output]"""


def test_a_source_names_its_document_and_the_methods_that_follow_it_all_by_default(tmp_path):
    port = port_from(tmp_path, GOOD.replace("[output]", SOURCES, 1))
    assert port.manifest_error is None, port.manifest_error
    first, second = port.sources
    assert (first.title, first.author, first.published, first.terms, first.methods) == (
        "The towers of Hanoi", "Eric Martin", "course notes", "unknown", ("recursive",),
    )
    assert second.methods == port.methods == ("binary", "recursive", "cyclic")
    assert first.cite() == '"The towers of Hanoi", by Eric Martin; published: course notes; terms: unknown'
    assert port_from(tmp_path, GOOD).sources == ()


def test_a_source_may_say_where_it_is_found(tmp_path):
    text = GOOD.replace("[output]", SOURCES, 1).replace('terms = "unknown"\nmethods', 'terms = "unknown"\nurl = "https://example.org/hanoi"\nmethods', 1)
    first, second = port_from(tmp_path, text).sources
    assert (first.url, second.url) == ("https://example.org/hanoi", "")
    assert first.cite() == '"The towers of Hanoi", by Eric Martin; published: course notes; terms: unknown; https://example.org/hanoi'


@pytest.mark.parametrize("path", ["/etc/java-17-openjdk", "/var/lib/ghc", "/usr/local/lib/foo", "/etc/mono/config"])
def test_a_requirement_may_name_what_it_reads_outside_the_system(tmp_path, path):
    port = port_from(tmp_path, GOOD.replace("[output]", f"[[requires]]\nexecutable = 'cc'\nreads = ['{path}']\n[output]", 1))
    assert port.manifest_error is None, port.manifest_error
    assert port.requires[0].reads == (path,)


@pytest.mark.parametrize(
    "path",
    [
        "/root/.ssh", "/home/user", "/etc/shadow", "/etc/ssh/ssh_host_rsa_key", "/etc", "/", "/var", "/etc/sudoers.d/x", "/srv/repo",
        "/usr/../root/.ssh", "relative/path", "/usr/lib/--bind", "/tmp/x", "/var/lib/docker/volumes", "/etc/ssl/private/key.pem", "/usr/lib x",
    ],
)
def test_a_requirement_may_not_read_a_home_a_key_or_a_secret(tmp_path, path):
    port = port_from(tmp_path, GOOD.replace("[output]", f"[[requires]]\nexecutable = 'cc'\nreads = ['{path}']\n[output]", 1))
    assert port.manifest_error is not None and "[[requires]] 'reads'" in port.manifest_error, (path, port.manifest_error)


@pytest.mark.parametrize(
    "change, problem",
    [
        (('terms = "unknown"\nmethods', "methods"), "[[source]] 'terms' must say, in words, the document's title, author, published, terms"),
        (('author = "unknown"', 'author = "  "'), "[[source]] 'author' must say, in words"),
        (('author = "unknown"', "author = 1"), "[[source]] 'author' must say, in words"),
        (('published = "course notes"', 'published = "course notes"\nlicence = "CC BY"'), "[[source]] unknown key 'licence'; the keys here are title, author"),
        (('methods = ["recursive"]', 'methods = ["iterative"]'), "[[source]] 'methods' names 'iterative', which the port does not list"),
        (('terms = "unknown"\nmethods', 'url = "javascript:alert(1)"\nterms = "unknown"\nmethods'), "[[source]] 'url' is the document's address"),
        (('terms = "unknown"\nmethods', 'url = "https://a.example/x y"\nterms = "unknown"\nmethods'), "[[source]] 'url' is the document's address"),
        (('terms = "unknown"\nmethods', 'url = "https://a.example/\\"><script>"\nterms = "unknown"\nmethods'), "[[source]] 'url' is the document's address"),
    ],
)
def test_a_source_that_leaves_a_fact_out_says_which(tmp_path, change, problem):
    old, new = change
    text = GOOD.replace("[output]", SOURCES, 1)
    assert old in text
    port = port_from(tmp_path, text.replace(old, new, 1))
    assert port.manifest_error is not None and problem in port.manifest_error, port.manifest_error


@pytest.mark.parametrize("source", ['source = "some notes"\n', '[source]\ntitle = "Some notes"\n'])
def test_a_source_is_a_list_of_tables(tmp_path, source):
    port = port_from(tmp_path, source + GOOD if source.startswith("source") else GOOD + source)
    assert port.manifest_error is not None and "'source' is a list of [[source]] tables" in port.manifest_error, port.manifest_error


@pytest.mark.parametrize(
    "change, line",
    [
        (("[output]\n", "[output]\npattern = 'x'\n"), 5),  # a misspelt key: its own line
        (("[output]", "[[require]]\nexecutable = 'cc'\n[output]"), 4),  # a misspelt table: its header
        (("(?P<src>\\d) (?P<dst>\\d)", "(?P<src>\\d) ^(?P<dst>\\d)"), 5),  # a pattern that never matches: the line that writes it
        (('pegs = ["A", "B", "C"]', 'pegs = ["A", "B", "B"]'), 12),  # a key's value: the first line that sets the key
        (('"recursive", ', '"spiral", '), 1),
        (("[method.cyclic]\n", '[method.cyclic]\nrequire = "cc"\n'), 8),  # in a method's table: that table's line
    ],
)
def test_a_manifest_error_names_the_line_it_is_about(tmp_path, change, line):
    old, new = change
    port = port_from(tmp_path, GOOD.replace(old, new, 1))
    assert port.manifest_error is not None and port.manifest_error.startswith(f"{tmp_path / 'lang' / 'language.toml'}:{line}: "), port.manifest_error


def test_a_manifest_error_with_no_line_to_name_names_the_file_alone(tmp_path):
    port = port_from(tmp_path, GOOD.replace('"{method}", ', ""))
    assert port.manifest_error is not None and port.manifest_error.startswith(f"{tmp_path / 'lang' / 'language.toml'}: 'command', 'build'")


def test_every_port_of_this_repository_names_the_documents_it_follows():
    """Each of the project's ports says whose listings it follows, for which of its methods, and on
    what terms as far as they are known: "unknown" where they are not, never left out."""
    for name, port in project_ports().items():
        assert port.sources, f"{name} names no [[source]]"
        assert all(source.title and source.author and source.published and source.terms for source in port.sources)
        assert {method for source in port.sources for method in source.methods} <= set(port.methods)
        assert any("cyclic" in source.methods and source.title.startswith("Cyclic Tower of Hanoi") for source in port.sources), name


def test_a_misspelt_placeholder_is_named(tmp_path):
    port = port_from(tmp_path, GOOD.replace('command = ["{binary}", "{method}", "{n}"]', 'command = ["{binary}", "{methd}", "{n}"]', 1))
    assert port.manifest_error is not None and "uses {methd}, which the harness does not fill in" in port.manifest_error, port.manifest_error


def test_every_broken_manifest_of_the_fake_ports_names_its_line_but_the_one_too_deep_to_read():
    """``path:line:`` for an editor and a commit hook: each fault names the line it is about; only
    arrays nested past what TOML's reader follows have none, the file being unreadable whole."""
    fakes = Path(__file__).resolve().parent.parent / "fake_ports"
    broken = {manifest.parent.name: port.manifest_error for manifest in sorted(fakes.glob("*/language.toml")) if (port := load_port(manifest)).manifest_error}
    assert len(broken) >= 7
    lineless = [name for name, problem in broken.items() if not re.match(rf".*{re.escape(name)}/language\.toml:\d+: ", problem)]
    assert lineless == ["deep-array"], {name: broken[name] for name in lineless}
