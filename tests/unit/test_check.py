"""``harness check``: the manifests alone, as a commit hook needs them checked. Every fault a run would
find in a manifest is named with its file and line; nothing is run, built, started or asked its
version. (The real pre-commit running the hook is tests/integration/test_check.py.)"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import harness_here, project_ports, run_folder
from harness.discover import OUTPUT_KEYS

PORT = """\
summary = "a port whose every step would leave a mark"
methods = ["recursive"]
build = ["sh", "-c", "touch {marks}/built; cp run.sh {{binary}}"]
command = ["{{binary}}", "{{n}}"]

[[requires]]
executable = "sh"
version = ["sh", "-c", "touch {marks}/asked; echo 1"]

[output]
patterns = ['(?P<disk>\\d+) (?P<src>\\d) (?P<dst>\\d)']
pegs = ["0", "1", "2"]
"""


SQL = """\
methods = ["recursive"]

[postgresql]
load = ["hanoi.sql"]
query = "SELECT disk, source, target FROM hanoi.{method}({n})"

[output]
patterns = ['(?P<disk>\\d+) (?P<src>\\d) (?P<dst>\\d)']
pegs = ["0", "1", "2"]
"""


def ports(tmp_path: Path, **manifests: str) -> Path:
    root = tmp_path / "ports"
    for name, text in manifests.items():
        (root / name).mkdir(parents=True)
        (root / name / "language.toml").write_text(text)
    return root


def test_this_repository_is_sound():
    done = harness_here("check")
    assert (done.returncode, done.stdout, done.stderr) == (0, f"{len(project_ports())} of {len(project_ports())} manifests sound\n", "")


def test_a_misspelt_key_is_named_with_its_file_and_line_and_fails_the_check(tmp_path):
    root = ports(tmp_path, good=PORT.format(marks=tmp_path), bad=PORT.format(marks=tmp_path).replace("pegs =", "peg ="))
    done = harness_here("check", str(root / "good" / "language.toml"), str(root / "bad"))
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.splitlines() == [
        f"{root / 'bad' / 'language.toml'}:12: [output] unknown key 'peg'; the keys here are {', '.join(OUTPUT_KEYS)}",
        f"{root / 'bad' / 'language.toml'}: 'output.pegs' must give 3 distinct names, for pegs 0, 1 and 2",
    ]
    assert done.stderr == "1 of 2 manifests sound, 1 broken\n"


def test_every_fault_of_a_manifest_is_named_in_one_run_each_with_its_line(tmp_path):
    """Three faults in three parts of one manifest (a stray key at the top, a placeholder the harness
    does not fill in, a [[requires]] whose package is no package's name) and two in its [output] (a
    pattern that cannot match, an ignore that does not compile): one check names all five, in the
    order of the manifest, each with its line, and says the manifest is one broken manifest."""
    text = (
        PORT.format(marks=tmp_path)
        .replace('methods = ["recursive"]', 'methods = ["recursive"]\nsumary = "a typo"')
        .replace('"{n}"]', '"{count}"]')
        .replace("[[requires]]", "[[requires]]\ndebian = '-sh'")
        .replace("(?P<src>", "^(?P<src>")
        .replace('pegs = ["0", "1", "2"]', 'pegs = ["0", "1", "2"]\nignore = ["(unclosed"]')
    )
    root = ports(tmp_path, port=text)
    done = harness_here("check", str(root))
    manifest = root / "port" / "language.toml"
    lines = done.stdout.splitlines()
    assert [line.split(": ", 1)[0] for line in lines] == [f"{manifest}:{line}" for line in (3, 5, 8, 13, 15)], done.stdout
    said = ["unknown key 'sumary'", "uses {count}", "'-sh' is not a debian package's name", "can never match", "'(unclosed' does not compile"]
    assert all(words in line for words, line in zip(said, lines, strict=True)), done.stdout
    assert (done.returncode, done.stderr) == (1, "0 of 1 manifest sound, 1 broken\n")


def test_a_fault_in_what_every_method_shares_is_named_once(tmp_path):
    """A key at the manifest's top is read with each [method.NAME] table too: its fault is one line."""
    text = PORT.format(marks=tmp_path).replace('methods = ["recursive"]', 'methods = ["recursive", "cyclic"]\nenv = ["GITHUB_TOKEN"]')
    root = ports(tmp_path, port=text + '\n[method.cyclic]\ncommand = ["{binary}", "{n}", "cyclic"]\n')
    done = harness_here("check", str(root))
    assert done.stdout.count("may not name GITHUB_TOKEN") == 1 and done.returncode == 1, done.stdout


@pytest.mark.parametrize(
    "change, line, problem",
    [
        (('"{{n}}"]', '"{{count}}"]'), 4, "'command' uses {count}, which the harness does not fill in"),
        (('"{{n}}"]', '"count"]'), None, "'command', 'build' or 'stdin' must use {n}"),
        (("(?P<src>", "^(?P<src>"), 11, "can never match: '^' or '\\A' comes after text"),
        (("[[requires]]", "[[requires]]\ninstal = 'apt-get install sh'"), 7, "[[requires]] unknown key 'instal'"),
        (('methods = ["recursive"]', 'methods = ["recursive"]\nsource = [{{ title = "notes" }}]'), 3, "[[source]] 'author' must say, in words"),
        (("[output]", "[output\n"), 10, "Expected ']' at the end of a table declaration"),
    ],
)
def test_each_fault_a_run_would_find_is_found_with_its_line(tmp_path, change, line, problem):
    old, new = change
    root = ports(tmp_path, port=PORT.replace(old, new, 1).format(marks=tmp_path))
    done = harness_here("check", str(root))
    where = f"{root / 'port' / 'language.toml'}:{line}: " if line else f"{root / 'port' / 'language.toml'}: "
    assert done.returncode == 1 and done.stdout.startswith(where) and problem in done.stdout, done.stdout + done.stderr


def test_nothing_is_built_run_started_or_asked(tmp_path):
    """A port whose build and version command would leave a mark, and one that runs in PostgreSQL:
    checked, they leave none, and no server is started (the helper fails a run that leaves one)."""
    root = ports(tmp_path, marks=PORT.format(marks=tmp_path), sql=SQL)
    (root / "sql" / "hanoi.sql").write_text("SELECT 1;\n")
    (root / "marks" / "run.sh").write_text("#!/bin/sh\ntouch marks/ran\n")
    tmpdir = run_folder()
    done = harness_here("--root", str(root), "check", tmpdir=tmpdir)
    assert (done.returncode, done.stdout, done.stderr) == (0, "2 of 2 manifests sound\n", ""), done.stdout + done.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == ["ports"], "a build ran, or a version was asked"
    assert not list(tmpdir.iterdir()), "the check made something in its TMPDIR (a server's data, a build)"
    shutil.rmtree(tmpdir)


def test_a_path_with_no_manifest_is_a_usage_error(tmp_path):
    done = harness_here("check", str(tmp_path))
    assert done.returncode == 2 and f"no manifests in {tmp_path}" in done.stderr, done.stderr
    program = tmp_path / "hanoi.rb"
    program.write_text("puts 1\n")
    not_a_manifest = harness_here("check", str(program))
    assert not_a_manifest.returncode == 2 and "hanoi.rb is not a language.toml" in not_a_manifest.stderr, not_a_manifest.stderr
    missing = harness_here("check", str(tmp_path / "nowhere"))
    assert missing.returncode == 2 and "does not exist" in missing.stderr, missing.stderr


def test_a_containerfile_the_engine_would_build_past_the_walls_is_named_with_its_line(tmp_path):
    """A port's recipe is checked as its image's build checks it, before a run would meet it."""
    root = ports(tmp_path, good=PORT.format(marks=tmp_path), fetching=PORT.format(marks=tmp_path))
    (root / "good" / "Containerfile").write_text("ARG BASE=debian:bookworm-slim\nFROM ${BASE}\nCOPY run.sh /usr/local/bin/\n")
    (root / "fetching" / "Containerfile").write_text("ARG BASE=debian:bookworm-slim\nFROM ${BASE}\nADD https://example.org/x /x\n")
    done = harness_here("check", str(root))
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout == f"{root / 'fetching' / 'Containerfile'}:3: ADD fetches what a URL names, past the build's walls: use COPY\n", done.stdout
    assert done.stderr == "1 of 2 manifests sound, 1 broken\n", done.stderr


SOUND = """\
summary = "a port"
methods = ["recursive"]
command = ["sh", "run.sh", "{method}", "{n}"]

[[requires]]
executable = "sh"
version = ["sh", "-c", "echo 1"]

[output]
patterns = ['(?P<disk>\\d+) (?P<src>\\d) (?P<dst>\\d)']
pegs = ["0", "1", "2"]
"""


def test_a_schema_line_that_points_at_nothing_is_named_with_its_line(tmp_path):
    """A port copied from this repository keeps ``#:schema ../harness/language.schema.json``, which
    points at nothing in another one: taplo and editors then fail the file, so check says so, with
    the line, and what to write instead. An address is not fetched (check reads no network)."""
    root = ports(
        tmp_path,
        copied="# The copied port\n#:schema ../harness/language.schema.json\n" + SOUND,
        local="#:schema ../schemas/language.schema.json\n" + SOUND,
        published='#:schema https://hanoi-polyglot.github.io/hanoi-polyglot/schemas/language.schema.json\n' + SOUND,
        plain=SOUND,
        later=SOUND + "#:schema nowhere.json\n",  # not a directive below the first key: a comment
    )
    (root / "schemas").mkdir()
    (root / "schemas" / "language.schema.json").write_text(harness_here("schema", "language").stdout)
    done = harness_here("--root", str(root), "check")
    assert done.returncode == 1
    [line] = [line for line in done.stdout.splitlines() if "language.toml" in line]
    assert line.endswith(f"{root.name}/copied/language.toml:2: " + line.partition(":2: ")[2]), line
    assert "../harness/language.schema.json" in line and "harness schema language" in line, line
    assert "4 of 5 manifests sound, 1 broken" in done.stderr
