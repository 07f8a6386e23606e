"""The CI workflow: actionlint passes on every workflow, the per-port jobs come from the ports'
manifests through ``harness list --format json``, not from a list kept by hand, each installs what
its port lacks and nothing else, and a failure inside a pipeline fails its step."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FAKE_PORTS, REAL_PORTS, ROOT, harness, suite

WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
CI = (ROOT / ".github" / "workflows" / "ci.yml").read_text()


def actionlint() -> str:
    found = shutil.which("actionlint", path=str(Path(sys.executable).parent)) or shutil.which("actionlint")
    assert found, "actionlint is not installed (pip install -e '.[test]')"
    return found


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda path: path.name)
def test_actionlint_passes(workflow):
    done = subprocess.run([actionlint(), "-no-color", str(workflow)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_actionlint_catches_a_broken_workflow(tmp_path):
    broken = tmp_path / "broken.yml"
    broken.write_text((ROOT / ".github" / "workflows" / "ci.yml").read_text().replace("needs: ports", "needs: no-such-job"))
    done = subprocess.run([actionlint(), "-no-color", str(broken)], capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "no-such-job" in done.stdout


def test_the_port_jobs_come_from_harness_list():
    text = CI
    assert "harness list --format json" in text and "fromJSON(needs.ports.outputs.ports)" in text
    assert not any(f"- {port}" in text or f"[{port}" in text for port in REAL_PORTS)
    assert "harness merge reports/report-*.json" in text and "$GITHUB_STEP_SUMMARY" in text
    assert 'harness doctor --install --port "$PORT"' in text and "apt-get" not in text
    assert "if: ${{ !cancelled() && needs.port.result != 'skipped' }}" in text and "always()" not in text
    assert text.count("cache: pip") == text.count("actions/setup-python@") == text.count("cache-dependency-path: pyproject.toml")

    listed = harness("list", "--format", "json")
    assert listed.returncode == 0, listed.stderr
    ports = {port["name"]: port for port in json.loads(listed.stdout)["ports"]}
    assert set(REAL_PORTS) <= set(ports)
    assert ports["prolog"]["debian"] == ["swi-prolog-nox"] and ports["cpp"]["debian"] == ["g++"]
    assert ports["sql"]["postgresql"] is True and ports["sql"]["debian"] == []


def step_script(step_id: str) -> str:
    """The ``run`` script of the workflow's step ``step_id``, as the runner gets it."""
    lines = CI.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == f"id: {step_id}")
    run = next(i for i in range(start, len(lines)) if lines[i].strip() == "run: |")
    indent = len(lines[run + 1]) - len(lines[run + 1].lstrip())
    body = []
    for line in lines[run + 1:]:
        if line.strip() and len(line) - len(line.lstrip()) < indent:
            break
        body.append(line[indent:])
    return "\n".join(body) + "\n"


def run_as_github_does(script: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """A step's script under ``shell: bash``, which GitHub runs as ``bash --noprofile --norc -eo pipefail``."""
    assert "defaults:\n  run:\n    shell: bash\n" in CI
    return subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script], cwd=cwd, env={**os.environ, **env},
                          capture_output=True, text=True, timeout=120)


@pytest.mark.skipif(shutil.which("jq") is None, reason="the ports step needs jq (Debian: apt-get install jq), as GitHub's runners have it")
def test_the_ports_step_fails_when_harness_list_does_and_lists_every_port_when_it_works(tmp_path):
    script = step_script("list")
    bin_folder = tmp_path / ".venv" / "bin"
    bin_folder.mkdir(parents=True)
    output = tmp_path / "output"
    (bin_folder / "harness").write_text("#!/bin/sh\necho 'harness: no ports here' >&2\nexit 2\n")
    (bin_folder / "harness").chmod(0o755)
    failed = run_as_github_does(script, tmp_path, {"GITHUB_OUTPUT": str(output)})
    assert failed.returncode != 0 and "no ports here" in failed.stderr
    assert not output.exists() or output.read_text() == ""

    (bin_folder / "harness").unlink()
    (bin_folder / "harness").symlink_to(Path(sys.executable).parent / "harness")
    worked = run_as_github_does(script, tmp_path, {"GITHUB_OUTPUT": str(output), "HANOI_ROOT": str(ROOT)})
    assert worked.returncode == 0, worked.stderr
    assert output.read_text() == f"ports={json.dumps(list(REAL_PORTS), separators=(',', ':'))}\n"


def test_a_port_job_installs_what_its_port_lacks_and_nothing_for_one_on_the_jobs_own_python(tmp_path):
    """The port job's install step, with apt-get and sudo that only write down how they were called."""
    lacking = tmp_path / "fakes" / "lacking"
    lacking.mkdir(parents=True)
    manifest = (FAKE_PORTS / "missing-interpreter" / "language.toml").read_text()
    (lacking / "language.toml").write_text(manifest.replace('install = "apt-get install hanoi-interpreter"', 'debian = "hanoi-interpreter"'))
    root = suite(tmp_path, "lacking", real=("python",), fakes_from=tmp_path / "fakes")
    stubs, calls = tmp_path / "stubs", tmp_path / "calls"
    stubs.mkdir()
    for name in ("apt-get", "sudo"):
        (stubs / name).write_text(f'#!/bin/sh\necho "{name} $*" >> {calls}\n' + ('exec "$@"\n' if name == "sudo" else ""))
        (stubs / name).chmod(0o755)
    path = f"{stubs}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"

    python = harness("--root", str(root), "doctor", "--install", "--port", "python", env={"PATH": path})
    assert python.returncode == 0 and python.stdout.startswith("python3      found"), python.stdout + python.stderr
    assert not calls.exists()

    other = harness("--root", str(root), "doctor", "--install", "--port", "lacking", env={"PATH": path})
    called = calls.read_text().splitlines()
    assert [line for line in called if line.startswith("apt-get")] == ["apt-get update -qq", "apt-get install -y -qq -- hanoi-interpreter"]
    assert any(line.startswith("sudo ") for line in called) is (os.geteuid() != 0), "apt-get as root, else through sudo"
    assert other.returncode == 1 and "missing: hanoi-interpreter-nobody-has" in other.stdout


def test_the_merge_step_writes_the_page_and_fails_as_the_merge_does(tmp_path):
    """The merge step as GitHub runs it, on real reports: the page is written and the summary says
    where it is, and a merge that fails (here, a port's report missing) still fails the step."""
    script = step_script("merge")
    assert 'name: report\n          path: report.html' in CI
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / "bin").symlink_to(Path(sys.executable).parent)
    reports = tmp_path / "reports"
    reports.mkdir()
    for port in ("python", "cpp"):
        made = harness("--root", str(ROOT), "compare", "--n", "0-2", "--port", port, "--json", str(reports / f"report-{port}.json"))
        assert made.returncode == 0, made.stdout + made.stderr
    summary = tmp_path / "summary.md"
    env = {"GITHUB_STEP_SUMMARY": str(summary), "HANOI_ROOT": str(ROOT)}

    partial = run_as_github_does(script, tmp_path, env)
    assert partial.returncode == 1, partial.stdout + partial.stderr
    assert "Missing" in partial.stdout and (tmp_path / "report.html").read_text().startswith("<!DOCTYPE html>")
    assert summary.read_text().rstrip().endswith("report.html in the **report** artifact of this run.")

    (tmp_path / "report.html").unlink()
    planned = run_as_github_does(script.replace("harness merge", "harness merge --expect plan"), tmp_path, env)
    assert planned.returncode == 0, planned.stdout + planned.stderr
    assert (tmp_path / "report.html").is_file()

    # No port reported at all: the merge writes no page, and the summary does not point at one.
    for report in reports.iterdir():
        report.unlink()
    (tmp_path / "report.html").unlink()
    summary.unlink()
    empty = run_as_github_does(script, tmp_path, env)
    assert empty.returncode == 2, empty.stdout + empty.stderr
    assert not (tmp_path / "report.html").exists()
    assert "report.html" not in (summary.read_text() if summary.exists() else "")
