"""language.schema.json, which editors read to underline a misspelt key: it names exactly the keys
the manifest parser knows, table by table, so neither can change alone; and a real validator agrees
with the parser on every manifest in the repository."""

from __future__ import annotations

import json
import tomllib
import unicodedata

import jsonschema
import pytest

from conftest import ROOT, harness_here
from harness import SCHEMAS, discover, published, scaffold, schema_file
from harness.discover import load_port
from harness.model import METHODS, PEGS
from harness.readers import READERS
from harness.scaffold import new_language

SCHEMA_FILE = scaffold.SCHEMA
"""The schema of the harness under test: beside its modules, as the scaffold finds it."""
SCHEMA = json.loads(SCHEMA_FILE.read_text())
DEFINITIONS = SCHEMA["definitions"]
VALIDATOR = jsonschema.Draft7Validator(SCHEMA)
MANIFESTS = sorted(path for path in ROOT.rglob(discover.MANIFEST) if not {".git", ".venv"} & set(path.relative_to(ROOT).parts))


def test_the_schema_is_a_valid_draft_7_schema():
    jsonschema.Draft7Validator.check_schema(SCHEMA)


def test_the_schema_names_the_parsers_keys_table_by_table():
    """Each of the parser's key tables against the schema's table; a key added, renamed or dropped
    on either side alone fails here."""
    tables = {
        "the manifest": (SCHEMA["properties"], discover.PORT_KEYS),
        "[method.NAME]": (SCHEMA["properties"]["method"]["additionalProperties"]["properties"], discover.PROGRAM_KEYS),
        "[output]": (DEFINITIONS["output"]["properties"], discover.OUTPUT_KEYS),
        "[[requires]]": (DEFINITIONS["requires"]["items"]["properties"], discover.REQUIRE_KEYS),
        "[postgresql]": (DEFINITIONS["postgresql"]["properties"], discover.QUERY_KEYS),
        "[[source]]": (DEFINITIONS["source"]["properties"], discover.SOURCE_KEYS),
        "[code]": (DEFINITIONS["code"]["properties"], discover.CODE_KEYS),
    }
    for table, (properties, keys) in tables.items():
        assert sorted(properties) == sorted(keys), table
    for table in ("the manifest", "[method.NAME]"):
        properties = tables[table][0]
        assert all(properties[key] == {"$ref": f"#/definitions/{key}"} for key in discover.PROGRAM_KEYS), table
    assert DEFINITIONS["method"]["enum"] == list(METHODS)
    assert DEFINITIONS["output"]["properties"]["pegs"]["minItems"] == DEFINITIONS["output"]["properties"]["pegs"]["maxItems"] == PEGS
    assert DEFINITIONS["source"]["required"] == list(discover.SOURCE_TEXTS)
    assert DEFINITIONS["requires"]["items"]["required"] == ["executable"]


def problems(data: dict) -> list[str]:
    return [f"{'/'.join(map(str, error.absolute_path))}: {error.message}" for error in VALIDATOR.iter_errors(data)]


@pytest.mark.parametrize("name", list(READERS))
def test_every_output_format_the_harness_reads_is_one_the_schema_takes(name):
    """The schema names no format itself, so that a new reader is one module and one line in READERS:
    a name with no reader is refused by the parser (and harness check), naming those there are."""
    data = tomllib.loads((ROOT / "python" / discover.MANIFEST).read_text(encoding="utf-8"))
    data["output"]["format"] = name
    assert not problems(data)


@pytest.mark.parametrize("manifest", MANIFESTS, ids=lambda path: str(path.relative_to(ROOT).parent))
def test_every_manifest_in_the_repository_the_parser_takes_the_schema_takes(manifest):
    """Every manifest of the ports and the test suites: one the parser takes is valid by the schema;
    one the schema refuses, the parser refuses too (it checks more: placeholders, patterns, files)."""
    port = load_port(manifest)
    try:
        data = tomllib.loads(manifest.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):  # not TOML, or too deep for its reader
        assert port.manifest_error is not None
        return
    found = problems(data)
    if port.manifest_error is None:
        assert not found, found
    if found:
        assert port.manifest_error is not None, found


def test_the_suites_hold_manifests_of_every_kind():
    """The manifests above are many, and some broken, so the agreement is tried both ways."""
    assert len(MANIFESTS) > 50
    assert problems(tomllib.loads((ROOT / "tests" / "fake_ports" / "misspelt-require" / "language.toml").read_text()))
    readable = [path for path in MANIFESTS if "not-utf8" not in path.parent.name]
    assert any(not problems(tomllib.loads(path.read_text())) and load_port(path).manifest_error for path in readable), "none the parser alone refuses"


@pytest.mark.parametrize(
    "change, where",
    [
        (("pegs =", "peg ="), "output: Additional properties are not allowed ('peg' was unexpected)"),
        (("[[requires]]", "[[require]]"), ": Additional properties are not allowed ('require' was unexpected)"),
        (('terms = "unknown"', 'licence = "unknown"'), "source/0: 'terms' is a required property"),
        (('methods = ["binary", "recursive", "iterative", "cyclic"]', 'methods = ["spiral"]'), "methods/0: 'spiral' is not one of"),
        (('title = "Tower of Hanoi"', 'title = " "'), "source/0/title: ' ' does not match"),
    ],
)
def test_the_schema_refuses_what_the_parser_refuses(change, where):
    old, new = change
    text = (ROOT / "python" / "language.toml").read_text()
    assert old in text
    changed = text.replace(old, new, 1)
    assert any(problem.startswith(where) for problem in problems(tomllib.loads(changed))), problems(tomllib.loads(changed))


def test_the_ports_and_a_new_port_point_editors_at_the_schema(tmp_path):
    """taplo and the editors built on it follow a first line ``#:schema PATH``, relative to the manifest."""
    for manifest in (ROOT / name / discover.MANIFEST for name in ("bash", "cpp", "prolog", "python", "sql")):
        first = manifest.read_text().splitlines()[0]
        assert first == "#:schema ../harness/language.schema.json"
        assert (manifest.parent / first.split()[1]).resolve() == ROOT / "harness" / "language.schema.json"  # this checkout's

    elsewhere, _, copy, taplo = new_language(tmp_path, "awk", "awk -f", "hanoi.awk", "#")
    # the harness is installed outside these ports: a copy beside them, which reads offline and in
    # every clone, not this machine's path to the installed one; a second port finds it there
    assert elsewhere.read_text().splitlines()[0] == "#:schema ../schemas/language.schema.json"
    assert copy == tmp_path / "schemas" / "language.schema.json" and copy.read_text() == SCHEMA_FILE.read_text()
    assert taplo == tmp_path / ".taplo.toml" and 'path = "./schemas/language.schema.json"' in taplo.read_text()
    assert not problems(tomllib.loads(elsewhere.read_text()))
    assert len(new_language(tmp_path, "tcl", "tclsh", "hanoi.tcl", "#")) == 2


def test_a_new_port_beside_the_harness_points_at_its_schema_by_a_relative_path(tmp_path, monkeypatch):
    """Where the schema the harness ships lies inside the folder of ports (as in this checkout, or a
    repository that keeps the harness beside its ports), the path is relative, so it holds in any clone."""
    import harness.scaffold

    shipped = tmp_path / "tools" / "harness" / "language.schema.json"
    shipped.parent.mkdir(parents=True)
    shipped.write_text(SCHEMA_FILE.read_text())
    monkeypatch.setattr(harness.scaffold, "SCHEMA", shipped)
    made = new_language(tmp_path, "perl", "perl", "hanoi.pl", "#")[0]
    first = made.read_text().splitlines()[0]
    assert first == "#:schema ../tools/harness/language.schema.json" and (made.parent / first.split()[1]).resolve() == shipped


def test_the_schema_takes_the_package_names_the_parser_takes_separated_by_spaces():
    """The parser checks each name of a ``debian`` or ``homebrew`` value; the schema, the whole value:
    its pattern is the parser's name, repeated, so that neither changes alone."""
    properties = DEFINITIONS["requires"]["items"]["properties"]
    for key, name in discover.PACKAGE_NAMES.items():
        assert properties[key]["pattern"] == rf"^\s*(?:{name}(?:\s+{name})*)?\s*$", key


@pytest.mark.parametrize(
    ("key", "value"),
    [("debian", "openssh-server- sudo-"), ("debian", "lib.+"), ("debian", "-oAPT::Get::x=1"), ("debian", "bash=5.2"), ("homebrew", "evil.rb")],
)
def test_the_schema_refuses_a_package_value_the_parser_refuses(key, value):
    text = (ROOT / "python" / "language.toml").read_text()
    changed = tomllib.loads(text)
    changed["requires"][0][key] = value
    assert any(problem.startswith(f"requires/0/{key}: ") for problem in problems(changed)), problems(changed)


def test_the_schema_refuses_every_control_and_format_character_in_a_url_that_the_parser_refuses():
    """Every such character of the Basic Multilingual Plane, as this Python's Unicode database names
    them: a right-to-left override (U+202E), a NUL, a zero-width space."""
    data = tomllib.loads((ROOT / "python" / "language.toml").read_text())
    unseen = [chr(code) for code in range(0x10000) if unicodedata.category(chr(code)) in ("Cc", "Cf")]
    assert "\u202e" in unseen and "\0" in unseen
    taken = []
    for character in unseen:
        data["source"][0]["url"] = f"https://example.org/{character}gpj.exe"
        if not any(problem.startswith("source/0/url: ") for problem in problems(data)):
            taken.append(f"U+{ord(character):04X}")
    assert not taken, taken


@pytest.mark.parametrize("name", SCHEMAS)
def test_harness_schema_prints_the_schema_the_harness_holds(name):
    """What a repository without network or without this checkout copies, byte for byte, its ``$id``
    the address the site publishes it at."""
    done = harness_here("schema", name)
    assert done.returncode == 0, done.stderr
    assert done.stdout == schema_file(name).read_text()
    assert json.loads(done.stdout)["$id"] == published(f"schemas/{name}.schema.json")


def test_harness_schema_prints_the_manifests_by_default_and_refuses_another_name():
    assert harness_here("schema").stdout == schema_file("language").read_text()
    refused = harness_here("schema", "manifest")
    assert refused.returncode == 2 and "'manifest' is not one of 'language', 'report', 'list'" in refused.stderr
