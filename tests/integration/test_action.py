"""The action run whole, as a runner runs a composite action for a second repository's workflow: its
steps in order, each `if:` decided, `${{ }}` filled in from the inputs, the runner and the steps
before, outputs read back from $GITHUB_OUTPUT, the harness installed for real with pip (from a
copy of the checkout, as the runner has the action's own). That
repository holds three correct ports and one whose tool no runner has (its apt-get fails): the run
must still end in a verdict and an uploaded report, naming the missing tool."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import ROOT
from integration.conftest import checkout_copy

ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
EXPRESSION = re.compile(r"\$\{\{\s*(.+?)\s*\}\}")
COMPARISON = re.compile(r"(.+?)\s*(==|!=)\s*'(.*)'")

GHOST = """\
summary = "needs a tool no runner has"
command = ["ghostlang", "hanoi.ghost", "{method}", "{n}"]
methods = ["recursive"]

[[requires]]
executable = "ghostlang"
version = ["ghostlang", "--version"]
debian = "ghostlang"

[output]
patterns = ['(?P<disk>\\d+) (?P<src>\\d) (?P<dst>\\d)']
pegs = ["0", "1", "2"]
"""


@dataclass
class Runner:
    """One job of a runner, running the action's steps as GitHub does for a composite action."""

    workspace: Path
    temp: Path
    path: str
    action: Path
    job: str = "verify"
    steps: dict[str, dict[str, Any]] = field(default_factory=dict)
    uploads: dict[str, list[str]] = field(default_factory=dict)
    job_path: list[str] = field(default_factory=list)
    setup_python: bool = False

    def value(self, expression: str, inputs: dict[str, str]) -> str:
        if expression == "toJSON(inputs)":
            return json.dumps(inputs, indent=2)
        head, _, rest = expression.partition(".")
        if head == "inputs":
            return inputs[rest]
        if head == "steps":
            step, kind, name = rest.split(".", 2) if rest.count(".") == 2 else (*rest.split("."), "")
            found = self.steps.get(step, {})
            return found.get("outputs", {}).get(name, "") if kind == "outputs" else found.get("outcome", "")
        context = {
            "runner.temp": str(self.temp), "runner.os": "Linux", "runner.arch": "X64", "github.job": self.job, "github.action_path": str(self.action),
        }
        return context[expression]

    def fill(self, text: str, inputs: dict[str, str]) -> str:
        return EXPRESSION.sub(lambda match: self.value(match.group(1), inputs), text)

    def runs(self, condition: str | None, inputs: dict[str, str], failed: bool) -> bool:
        """A step's `if:`: success() unless it says always(); a comparison of a context with a string."""
        if condition is None:
            return not failed
        condition = EXPRESSION.sub(lambda match: match.group(1), condition).strip()
        if condition == "always()":
            return True
        left, operator, right = COMPARISON.fullmatch(condition).groups()
        equal = self.value(left, inputs) == right
        return not failed and (equal if operator == "==" else not equal)

    def run(self, given: dict[str, str]) -> dict[str, str]:
        inputs = {name: given.get(name, spec.get("default", "")) for name, spec in ACTION["inputs"].items()}
        failed = False
        for index, step in enumerate(ACTION["runs"]["steps"]):
            name = step.get("id", f"step{index}")
            if not self.runs(step.get("if"), inputs, failed):
                self.steps[name] = {"outcome": "skipped", "outputs": {}}
                continue
            outcome = self._uses(name, step, inputs) if "uses" in step else self._run(name, step, inputs)
            self.steps[name]["outcome"] = outcome
            failed = failed or outcome == "failure"
        return {name: self.fill(spec["value"], inputs) for name, spec in ACTION["outputs"].items()}

    def _uses(self, name: str, step: dict[str, Any], inputs: dict[str, str]) -> str:
        self.steps[name] = {"outputs": {}}
        settings = {key: self.fill(str(value), inputs) for key, value in step.get("with", {}).items()}
        if step["uses"].startswith("actions/setup-python@"):
            self.setup_python = True
            return "success"
        assert step["uses"].startswith("actions/upload-artifact@"), step["uses"]
        files = sorted(path.name for path in Path(settings["path"]).glob("*")) if Path(settings["path"]).is_dir() else []
        if not files or settings["name"] in self.uploads:  # if-no-files-found: error; upload-artifact refuses a name twice
            return "failure"
        self.uploads[settings["name"]] = files
        return "success"

    def _run(self, name: str, step: dict[str, Any], inputs: dict[str, str]) -> str:
        files = {kind: self.temp / f"{name}.{kind}" for kind in ("output", "path", "summary")}
        env = {
            **os.environ, "PATH": os.pathsep.join([*self.job_path, self.path]), "RUNNER_TEMP": str(self.temp), "GITHUB_JOB": self.job,
            "GITHUB_OUTPUT": str(files["output"]), "GITHUB_PATH": str(files["path"]), "GITHUB_STEP_SUMMARY": str(files["summary"]),
            **{key: self.fill(str(value), inputs) for key, value in step.get("env", {}).items()},
        }
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", self.fill(step["run"], inputs)], cwd=self.workspace, env=env,
            capture_output=True, text=True, timeout=600,
        )
        outputs = dict(line.split("=", 1) for line in files["output"].read_text().splitlines()) if files["output"].exists() else {}
        if files["path"].exists():
            self.job_path = [*files["path"].read_text().split(), *self.job_path]
        self.steps[name] = {"outputs": outputs, "log": done.stdout + done.stderr}
        return "success" if done.returncode == 0 else "failure"


@pytest.fixture
def second_repository(tmp_path) -> Path:
    """Another project's checkout: the python, bash and cpp ports of this one, and a ghostlang port."""
    workspace = tmp_path / "workspace"
    for port in ("python", "bash", "cpp"):
        shutil.copytree(ROOT / port, workspace / port)
    (workspace / "ghost").mkdir()
    (workspace / "ghost" / "language.toml").write_text(GHOST)
    (workspace / "ghost" / "hanoi.ghost").write_text("no runner runs this\n")
    return workspace


def runner_path(tmp_path: Path) -> str:
    """The runner's PATH: its own tools, with an apt-get that has no ghostlang (and sudo, as runners have)."""
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    (stubs / "apt-get").write_text('#!/bin/sh\ncase "$*" in *ghostlang*) echo "E: Unable to locate package ghostlang" >&2; exit 100;; esac\n')
    (stubs / "sudo").write_text('#!/bin/sh\nexec "$@"\n')
    for stub in stubs.iterdir():
        stub.chmod(0o755)
    return os.pathsep.join([str(stubs), str(Path(sys.executable).parent), os.environ["PATH"]])


def python3_version(path: str, job_path: list[str]) -> str:
    found = shutil.which("python3", path=os.pathsep.join([*job_path, path]))
    return subprocess.run([found, "--version"], capture_output=True, text=True, check=True).stdout.strip()


@pytest.mark.slow
def test_a_missing_tool_still_ends_in_a_verdict_and_a_report(tmp_path, second_repository):
    path = runner_path(tmp_path)
    first = Runner(second_repository, tmp_path / "temp-first", path, checkout_copy(tmp_path / "action"))
    first.temp.mkdir()
    before = python3_version(path, [])
    said = first.run({"n": "0-3", "isolation": "subprocess"})

    assert said["passed"] == "false", first.steps
    assert first.steps["doctor"]["outcome"] == "success" and first.steps["doctor"]["outputs"]["status"] == "1"
    assert first.steps["verdict"]["outcome"] == "failure" and "could not install everything" in first.steps["verdict"]["log"]
    assert list(first.uploads) == [said["artifact"]]
    label = first.steps["label"]["outputs"]["label"]
    assert first.uploads[said["artifact"]] == [f"junit-{label}.xml", f"report-{label}.html", f"report-{label}.json"], first.steps["merge"]["log"]
    report = json.loads((tmp_path / "temp-first" / f"hanoi-report-{label}" / f"report-{label}.json").read_text())
    outcomes = {(cell["port"], cell["outcome"]) for cell in report["cells"] if cell["reason"] != "not-offered"}
    assert outcomes == {("python", "pass"), ("bash", "pass"), ("cpp", "pass"), ("ghost", "error")}, outcomes
    ghost = [cell for cell in report["cells"] if cell["port"] == "ghost" and cell["outcome"] == "error"]
    assert ghost and all("not installed here: ghostlang not found on PATH" in cell["detail"] for cell in ghost)

    assert not first.setup_python, "with python-version unset the caller's Python is left alone"
    assert python3_version(path, first.job_path) == before
    assert [Path(folder).name for folder in first.job_path] == ["hanoi-bin"]
    assert sorted(path.name for path in Path(first.job_path[0]).iterdir()) == ["harness"]


def test_a_named_artifact_keeps_its_name_and_every_leg_differs_in_its_label(tmp_path):
    label = ACTION["runs"]["steps"][0]
    assert label["id"] == "label" and "NAMED" in label["env"] and "toJSON(inputs)" in label["env"]["LEG"]
    leg = hashlib.sha256(b"x").hexdigest()[:8]
    done = subprocess.run(
        ["bash", "-eo", "pipefail", "-c", label["run"]],
        env={**os.environ, "PORTS": "a,b", "ISOLATION": "sandbox", "NAMED": "", "LEG": "x", "GITHUB_JOB": "verify", "RUNNER_TEMP": str(tmp_path),
             "GITHUB_OUTPUT": "/dev/stdout"},
        capture_output=True, text=True, check=True,
    )
    assert f"label=a-b-sandbox-verify-{leg}\n" in done.stdout and f"artifact=report-a-b-sandbox-verify-{leg}\n" in done.stdout
    named = subprocess.run(
        ["bash", "-eo", "pipefail", "-c", label["run"]],
        env={**os.environ, "PORTS": "", "ISOLATION": "subprocess", "NAMED": "mine", "LEG": "x", "GITHUB_JOB": "j", "RUNNER_TEMP": str(tmp_path),
             "GITHUB_OUTPUT": "/dev/stdout"},
        capture_output=True, text=True, check=True,
    )
    assert "artifact=mine\n" in named.stdout
    assert "label=all-subprocess-j-" in named.stdout, "two legs with the same ports and another isolation are apart by name alone"
