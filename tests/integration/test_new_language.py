"""Adding a language takes a folder and a manifest, no harness code: an awk port, which the project
does not ship, is started with ``harness new-language`` in a folder of its own, written with the
program and the manifest docs/ADDING_A_LANGUAGE.md gives, and found, run and verified by
``harness compare`` beside the project's Python port."""

from __future__ import annotations

import re
import shlex
import shutil

import pytest

from conftest import ROOT, harness_here, suite
from harness.discover import load_port
from integration.conftest import compare_json

pytestmark = pytest.mark.skipif(shutil.which("awk") is None, reason="awk is not on PATH (Debian: apt-get install mawk)")

GUIDE = (ROOT / "docs" / "ADDING_A_LANGUAGE.md").read_text()


def listing(language: str, after: str) -> str:
    """The first ``language`` code block of the guide after the heading ``after``."""
    match = re.search(rf"{re.escape(after)}\n.*?```{language}\n(.*?)```", GUIDE, re.DOTALL)
    assert match, f"docs/ADDING_A_LANGUAGE.md has no {language} block after {after!r}"
    return match[1]


def test_a_port_the_project_does_not_ship_is_scaffolded_written_and_verified(tmp_path):
    root = suite(tmp_path, real=("python",))
    project_ports = sorted(ROOT.glob("*/language.toml"))
    assert not (ROOT / "awk").exists(), "the guide walks through a language the project does not ship"
    started = harness_here("--root", str(root), "new-language", "awk", "--interpreter", "awk -f", "--version-flag", "-W version")
    assert started.returncode == 0, started.stderr
    folder = root / "awk"
    assert sorted(path.name for path in folder.iterdir()) == ["hanoi.awk", "language.toml"]

    # The stub runs at once, and compare says what is left to do.
    done, report = compare_json(tmp_path, "--n", "0-2", "--lang", "awk", root=root, run=harness_here)
    assert done.returncode == 1
    outcomes = {(cell["method"], cell["n"]): cell["outcome"] for cell in report["cells"]}
    assert outcomes[("recursive", 0)] == "pass"
    assert outcomes[("recursive", 2)] == "fail"
    assert outcomes[("binary", 2)] == "skipped"

    # Steps 2 and 3: the guide's program and manifest, as printed, below the manifest's first line.
    (folder / "hanoi.awk").write_text(listing("awk", "## 2. Write the program"))
    first = (folder / "language.toml").read_text().splitlines()[0]
    assert first == "#:schema ../schemas/language.schema.json", first
    (folder / "language.toml").write_text(first + "\n" + listing("toml", "## 3. Tell the manifest"))
    checked = harness_here("--root", str(root), "check", str(folder))
    assert checked.returncode == 0, checked.stdout + checked.stderr

    done, report = compare_json(tmp_path, "--n", "0-8", root=root, run=harness_here)
    assert done.returncode == 0, done.stdout + done.stderr
    awk = [cell for cell in report["cells"] if cell["port"] == "awk"]
    assert {(cell["method"], cell["outcome"]) for cell in awk} == {
        ("binary", "pass"), ("recursive", "pass"), ("cyclic", "pass"), ("iterative", "skipped")
    }
    assert report["ports"]["awk"]["versions"]["awk"].startswith(("mawk ", "GNU Awk ", "awk version ")), report["ports"]["awk"]
    for group in report["agreement"]:
        [(digest, labels)] = group["digests"].items()
        methods = ["binary", "recursive"] if group["puzzle"] == "classic" else ["cyclic"]
        assert {f"awk/{method}" for method in methods} | {f"python/{method}" for method in methods} <= set(labels)
    assert sorted(ROOT.glob("*/language.toml")) == project_ports, "new-language --root wrote only under that root"

    # Step 4: each command the guide shows, as it shows it, says what the guide says it does.
    said = {}
    for line in listing("sh", "## 4. Look, then compare").splitlines():
        command = shlex.split(line.partition("#")[0])
        assert command[0] == "harness", line
        # the guide's commands run in the folder of ports; harness_here runs in the checkout, so a path is made whole
        words = [str(root / word) if command[1] == "check" and (root / word).exists() else word for word in command[1:]]
        said[command[1] + " --raw" * ("--raw" in command)] = done = harness_here("--root", str(root), *words)
        assert done.returncode == 0, f"{line}\n{done.stdout}{done.stderr}"
    assert said["check"].stdout == "1 of 1 manifest sound\n"
    assert re.search(r"^awk\b.*\b(mawk|GNU Awk|awk version)", said["list"].stdout, re.M), said["list"].stdout
    assert said["run --raw"].stdout.splitlines()[:2] == ["Move disc 1 from A to C", "Move disc 2 from A to B"]
    assert said["run"].stdout.splitlines()[:2] == ["1 0 2", "2 0 1"] and len(said["run"].stdout.splitlines()) == 7
    assert "pass and agree" in said["compare"].stdout


def test_a_compiled_language_is_scaffolded_with_a_build(tmp_path):
    root = suite(tmp_path, real=("python",))
    done = harness_here("--root", str(root), "new-language", "c", "--interpreter", "cc", "--program", "hanoi.c", "--comment", "//", "--build")
    assert done.returncode == 0, done.stderr
    port = load_port(root / "c" / "language.toml")
    assert port.manifest_error is None, port.manifest_error
    program = port.program("recursive")
    assert (program.build, program.command) == ((("cc", "-o", "{binary}", "hanoi.c"),), ("{binary}", "{method}", "{n}"))
    assert [(req.executable, req.version) for req in port.requires] == [("cc", ("cc", "--version"))]
    assert (root / "c" / "hanoi.c").read_text().startswith("// The Tower of Hanoi in c: to be written.")


def test_an_interpreter_of_several_words_and_another_version_flag(tmp_path):
    root = suite(tmp_path, real=("python",))
    done = harness_here("--root", str(root), "new-language", "awk", "--interpreter", "awk -f", "--version-flag", "-W version")
    assert done.returncode == 0, done.stderr
    port = load_port(root / "awk" / "language.toml")
    assert port.manifest_error is None, port.manifest_error
    assert port.program("recursive").command == ("awk", "-f", "hanoi.awk", "{method}", "{n}")
    assert port.requires[0].version == ("awk", "-W", "version")
    compared, report = compare_json(tmp_path, "--n", "0", "--lang", "awk", root=root, run=harness_here)
    assert [cell["outcome"] for cell in report["cells"] if cell["method"] == "recursive"] == ["pass"], compared.stdout
