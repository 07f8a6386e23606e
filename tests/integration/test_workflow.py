"""The CI workflow and the action it runs (action.yml, which other repositories use too): actionlint
passes on every workflow and zizmor finds nothing above informational; every action is pinned by
commit and checkout keeps no credentials; the per-port jobs come from the ports' manifests through
``harness list --format json``, not from a list kept by hand, each installs what its port lacks and
nothing else; and a failure inside a pipeline fails its step."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from conftest import FAKE_PORTS, ROOT, harness_here, suite
from harness import __version__
from harness.bench import BenchCell, Run, bench_to_json
from harness.doctor import APT_LOCK_SECONDS
from harness.model import METHODS
from harness.report.about import machine
from integration.conftest import REAL_PORTS, harness, stubbed_installers

WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
CI = (ROOT / ".github" / "workflows" / "ci.yml").read_text()
ACTION = (ROOT / "action.yml").read_text()


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
    assert "      - uses: ./  # zizmor: ignore[self-repository]\n        with:\n          ports: ${{ matrix.port }}\n" in text
    assert '"$HARNESS" doctor --install ${PORTS:+--port "$PORTS"}' in ACTION and "apt-get" not in text + ACTION
    assert "if: ${{ !cancelled() && needs.port.result != 'skipped' }}" in text and "always()" not in text
    assert text.count("cache: pip") == text.count("actions/setup-python@") == text.count("cache-dependency-path: pyproject.toml")

    listed = harness_here("list", "--format", "json")
    assert listed.returncode == 0, listed.stderr
    data = json.loads(listed.stdout)
    jsonschema.validate(data, json.loads((ROOT / "harness" / "list.schema.json").read_text()))
    ports = {port["name"]: port for port in data["ports"]}
    assert set(REAL_PORTS) <= set(ports)
    assert ports["prolog"]["debian"] == ["swi-prolog-nox"] and ports["cpp"]["debian"] == ["g++"]
    assert ports["sql"]["postgresql"] is True and ports["sql"]["debian"] == []


def step_script(step_id: str, document: str = CI) -> str:
    """The ``run`` script of the step ``step_id`` of the workflow (or of the action), as the runner gets it."""
    lines = document.splitlines()
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
    """The action's install step, as a port job runs it, with apt-get and sudo that only write down how
    they were called (integration.conftest.stubbed_installers)."""
    lacking = tmp_path / "fakes" / "lacking"
    lacking.mkdir(parents=True)
    manifest = (FAKE_PORTS / "missing-interpreter" / "language.toml").read_text()
    (lacking / "language.toml").write_text(manifest.replace('install = "apt-get install hanoi-interpreter"', 'debian = "hanoi-interpreter"'))
    root = suite(tmp_path, "lacking", real=("python",), fakes_from=tmp_path / "fakes")
    path, calls = stubbed_installers(tmp_path)

    script = step_script("doctor", ACTION)
    env = {"PATH": path, "HARNESS": str(Path(sys.executable).parent / "harness"), "HANOI_ROOT": str(root), "GITHUB_OUTPUT": str(tmp_path / "output")}
    python = run_as_github_does(script, tmp_path, {**env, "PORTS": "python"})
    assert python.returncode == 0 and python.stdout.startswith("python3      found"), python.stdout + python.stderr
    assert outputs(tmp_path / "output") == {"status": "0"}
    assert not calls.exists()

    other = run_as_github_does(script, tmp_path, {**env, "PORTS": "lacking"})
    called = calls.read_text().splitlines()
    waits = f"--option=DPkg::Lock::Timeout={APT_LOCK_SECONDS}"
    assert [line for line in called if line.startswith("apt-get")] == [f"apt-get {waits} update -qq", f"apt-get {waits} install -y -qq -- hanoi-interpreter"]
    assert any(line.startswith("sudo ") for line in called) is (os.geteuid() != 0), "apt-get as root, else through sudo"
    assert other.returncode == 0 and "missing: hanoi-interpreter-nobody-has" in other.stdout, "a missing tool does not stop the action"
    assert outputs(tmp_path / "output") == {"status": "1"}


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


def test_each_port_job_benches_its_port_and_the_merge_job_merges_every_ports_figures_for_the_site(tmp_path):
    """A port job times its port after compare (bench's own gate lists it failed if it fails) and
    uploads its figures; the merge job's bench step, as GitHub runs it, merges every port's into
    docs/bench.* before the site is built from docs/, writes the table to the summary, and fails,
    naming it, where a port has no figures."""
    port_job, merge_job = CI.split("\n  port:\n", 1)[1].split("\n  merge:\n", 1)
    assert '"$RUNNER_TEMP/hanoi-harness/bin/harness" bench --port "$PORT" --repeat 2 --json "bench-$PORT.json"' in port_job
    assert "name: bench-${{ matrix.port }}\n          path: bench-${{ matrix.port }}.json\n" in port_job
    assert merge_job.index("pattern: bench-*") < merge_job.index("id: bench") < merge_job.index("id: site")
    script = step_script("bench")
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / "bin").symlink_to(Path(sys.executable).parent)
    (tmp_path / "docs").mkdir()
    (tmp_path / "figures").mkdir()
    ports = [path.parent.name for path in sorted(ROOT.glob("*/language.toml"))]
    here = {**machine(), "commit": "abc1234", "isolation": "subprocess"}
    for port in ports:
        cells = [BenchCell(port, method, n, runs=[Run(METHODS[method].optimal_count(n), 0.5, 0.25, 3.0)]) for method in METHODS for n in (0, 5)]
        figures = bench_to_json(cells, here, {port: {"interpreter": f"{port} 1.0"}}, 1)
        (tmp_path / "figures" / f"bench-{port}.json").write_text(json.dumps(figures))
    summary = tmp_path / "summary.md"
    env = {"GITHUB_STEP_SUMMARY": str(summary), "HANOI_ROOT": str(ROOT)}

    done = run_as_github_does(script, tmp_path, env)
    assert done.returncode == 0, done.stdout + done.stderr
    table = (tmp_path / "docs" / "bench.md").read_text()
    assert summary.read_text() == table and all(f"\n| {port} | 5 |" in table for port in ports)
    assert json.loads((tmp_path / "docs" / "bench.json").read_text())["missing"] == []
    assert (tmp_path / "docs" / "bench.svg").read_text().startswith("<svg ")

    (tmp_path / "figures" / "bench-sql.json").unlink()
    partial = run_as_github_does(script, tmp_path, env)
    assert partial.returncode == 1 and "No figures for: sql" in partial.stdout, partial.stdout + partial.stderr


USES = re.compile(r"^\s*-? ?uses: (\S+)(.*)$", re.M)


@pytest.mark.parametrize("document", ["ci", "action"])
def test_every_action_is_pinned_by_its_commit_with_the_tag_beside_it(document):
    """A tag can be moved to other code; a commit cannot. The tag is kept beside it for people (and dependabot)."""
    text = {"ci": CI, "action": ACTION}[document]
    used = USES.findall(text)
    assert len(used) >= 2
    for target, rest in used:
        if target == "./":
            continue
        assert re.fullmatch(r"[\w-]+/[\w-]+@[0-9a-f]{40}", target) and re.fullmatch(r"  # v\d+\.\d+\.\d+", rest), (target, rest)


def test_checkout_keeps_no_credentials():
    """No job pushes: a token left in .git/config would only be something for a step to leak (or upload)."""
    checkouts = re.findall(r"uses: actions/checkout@\S+  # \S+\n(?:        with:\n          persist-credentials: false\n)?", CI)
    assert len(checkouts) == CI.count("actions/checkout@") == 4
    assert all(checkout.endswith("persist-credentials: false\n") for checkout in checkouts), checkouts


def test_dependabot_updates_the_actions_and_the_python_packages():
    text = (ROOT / ".github" / "dependabot.yml").read_text()
    assert "package-ecosystem: github-actions\n    directory: /" in text and "package-ecosystem: pip\n    directory: /" in text


def zizmor(*paths: Path) -> subprocess.CompletedProcess[str]:
    found = shutil.which("zizmor", path=str(Path(sys.executable).parent)) or shutil.which("zizmor")
    assert found, "zizmor is not installed (pip install -e '.[test]')"
    return subprocess.run([found, "--offline", "--no-progress", "--min-severity", "low", *map(str, paths)], capture_output=True, text=True, timeout=120)


def test_zizmor_finds_nothing_above_informational():
    done = zizmor(*WORKFLOWS, ROOT / "action.yml", ROOT / ".github" / "dependabot.yml")
    assert done.returncode == 0 and "No findings to report" in done.stdout, done.stdout + done.stderr


def test_zizmor_catches_an_unpinned_action_and_kept_credentials(tmp_path):
    """The audit above can fail: the workflow as it was, by tag and with credentials kept, is caught."""
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    old = re.sub(r"@[0-9a-f]{40}  # (v\d+)\.\d+\.\d+", r"@\1", CI).replace("        with:\n          persist-credentials: false\n", "")
    (tmp_path / ".github" / "workflows" / "ci.yml").write_text(old)
    (tmp_path / "action.yml").write_text(ACTION)
    done = zizmor(tmp_path / ".github" / "workflows" / "ci.yml")
    assert done.returncode != 0 and "unpinned-uses" in done.stdout and "artipacked" in done.stdout, done.stdout + done.stderr


def action_env(tmp_path: Path, root: Path, ports: str) -> dict[str, str]:
    """What the action's steps get from their ``env:``, here, for a run of ``ports`` under ``root``."""
    out = tmp_path / "hanoi-report"
    out.mkdir(exist_ok=True)
    return {
        "HARNESS": str(Path(sys.executable).parent / "harness"), "HANOI_ROOT": str(root), "PORTS": ports, "DISCS": "0-3",
        "ISOLATION": "subprocess", "OUT": str(out), "LABEL": ports, "ARTIFACT": f"report-{ports}", "REPORT": str(out / f"report-{ports}.json"),
        "GITHUB_OUTPUT": str(tmp_path / "output"), "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
    }


def outputs(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text().splitlines())


@pytest.mark.parametrize("ports, passed", [("python", True), ("illegal", False)])
def test_the_action_runs_compare_and_merge_writes_the_summary_and_the_page_and_fails_as_they_do(tmp_path, ports, passed):
    """The action's compare, merge and verdict steps as GitHub runs them, on a real port and on one
    that breaks the rules: the merge of the run's own report writes the step summary, the JUnit XML
    and the page, and the verdict fails the step exactly when the run did not pass."""
    root = suite(tmp_path, "illegal", real=("python",))
    env = action_env(tmp_path, root, ports)
    for step in ("compare", "merge"):
        done = run_as_github_does(step_script(step, ACTION), tmp_path, env)
        assert done.returncode == 0, done.stdout + done.stderr
    said = outputs(tmp_path / "output")
    assert said == {"status": "0" if passed else "1"}, said  # the merge step's, written last
    out = Path(env["OUT"])
    assert sorted(path.name for path in out.iterdir()) == [f"junit-{ports}.xml", f"report-{ports}.html", f"report-{ports}.json"]
    summary = (tmp_path / "summary.md").read_text()
    assert summary.rstrip().endswith(f"report-{ports}.html in the **report-{ports}** artifact of this run.")
    assert ("All" in summary and "pass and agree" in summary) if passed else "illegal" in summary, summary

    verdict = run_as_github_does(step_script("verdict", ACTION), tmp_path, {**env, "COMPARED": "0" if passed else "1", "MERGED": said["status"]})
    assert verdict.returncode == (0 if passed else 1), verdict.stdout + verdict.stderr
    assert outputs(tmp_path / "output")["passed"] == ("true" if passed else "false")


def test_the_action_says_so_when_compare_writes_no_report(tmp_path):
    root = suite(tmp_path, real=("python",))
    env = {**action_env(tmp_path, root, "python"), "DISCS": "not-a-number"}
    compared = run_as_github_does(step_script("compare", ACTION), tmp_path, env)
    assert compared.returncode == 0 and outputs(tmp_path / "output") == {"status": "2"}, compared.stdout + compared.stderr
    merged = run_as_github_does(step_script("merge", ACTION), tmp_path, env)
    assert merged.returncode == 0 and "harness compare wrote no report" in (tmp_path / "summary.md").read_text()
    verdict = run_as_github_does(step_script("verdict", ACTION), tmp_path, {**env, "COMPARED": "2", "MERGED": "1"})
    assert verdict.returncode == 1 and "harness compare exited 2, harness merge 1" in verdict.stdout


def test_the_merge_job_builds_the_site_and_main_publishes_it_with_no_more_rights_than_that_needs():
    """The site (make site: the documentation, the schemas, the gallery from the merged report) is
    built by the merge job, its gallery an artifact on every run, and on main the whole site is what
    the pages job deploys, which alone may write to Pages and ask for an OIDC token."""
    script = step_script("site")
    assert "make site VENV=.venv REPORT=merged.json" in script
    merge, pages = CI.split("\n  merge:\n", 1)[1].split("\n  pages:\n", 1)
    assert "name: gallery\n          path: site/gallery\n" in merge
    assert "upload-pages-artifact@" in merge and merge.rstrip().endswith("path: site")
    assert "actions/upload-pages-artifact@" in merge and "github.event_name == 'push' && github.ref == 'refs/heads/main'" in merge
    assert "pages: write" not in merge and "id-token" not in merge
    assert "    needs: merge\n    if: ${{ github.event_name == 'push' && github.ref == 'refs/heads/main' }}\n" in pages
    permissions = re.search(r"    permissions:\n((?:      .*\n)+)", pages)
    assert permissions and [line.split(":")[0].strip() for line in permissions[1].splitlines()] == ["pages", "id-token"]
    assert "actions/deploy-pages@" in pages and "name: github-pages" in pages
    assert CI.count("pages: write") == CI.count("id-token: write") == 1


RELEASE = (ROOT / ".github" / "workflows" / "release.yml").read_text()


@pytest.mark.parametrize("tag, changelog, says", [
    (f"v{__version__}", None, None),
    ("v9.9.9", None, f"the tag v9.9.9 does not name the version the package holds, v{__version__}"),
    (f"v{__version__}", "# Changelog\n\n## Unreleased\n\n- something\n", f'CHANGELOG.md has no section "## {__version__} (YYYY-MM-DD)"'),
], ids=["the version's tag", "another tag", "no section"])
def test_the_release_needs_the_versions_tag_and_its_changelog_section(tmp_path, tag, changelog, says):
    """The release workflow's first step, as GitHub runs it on a pushed tag: it makes a release only
    of the version the package holds, with CHANGELOG.md's section of it as the notes."""
    assert "defaults:\n  run:\n    shell: bash\n" in RELEASE
    checkout = tmp_path / "checkout"
    (checkout / "harness").mkdir(parents=True)
    shutil.copy2(ROOT / "harness" / "__init__.py", checkout / "harness")
    (checkout / "CHANGELOG.md").write_text(changelog or (ROOT / "CHANGELOG.md").read_text())
    notes = tmp_path / "notes.md"
    done = run_as_github_does(step_script("version", RELEASE), checkout, {"TAG": tag, "NOTES": str(notes)})
    if says is None:
        assert done.returncode == 0, done.stdout + done.stderr
        section = (ROOT / "CHANGELOG.md").read_text().split(f"## {__version__} (", 1)[1].split("\n", 1)[1].split("\n## ", 1)[0]
        assert notes.read_text() == section.rstrip("\n") + "\n" and "- " in section
    else:
        assert done.returncode == 1 and says in done.stdout, done.stdout + done.stderr
