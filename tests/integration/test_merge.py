"""Runs split over machines: --shard K/N runs a stable share of the cells, and harness merge decides
agreement across the shards' reports from their digests, as one run would. Each report carries the
plan of the run it is part of, so a merge that lacks a port, a shard or a cell of it fails, naming it."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from conftest import HEADLINE, ROOT, harness_here, suite, valid_report
from harness.model import METHODS, Shard
from harness.report.json import schema_error
from integration.conftest import harness


def test_every_cell_is_in_exactly_one_shard_and_always_the_same_one():
    for count in (1, 2, 3, 7):
        for port in ("python", "bash", "some-port"):
            for method in METHODS:
                for n in range(12):
                    holders = [k for k in range(1, count + 1) if Shard(k, count).holds(port, method, n)]
                    assert len(holders) == 1
    assert Shard(2, 3).holds("python", "recursive", 5) == Shard(2, 3).holds("python", "recursive", 5)


def shard_reports(tmp_path, root, *args, shards=3):
    paths = []
    for k in range(1, shards + 1):
        path = tmp_path / f"shard-{k}.json"
        done = harness("--root", str(root), "compare", *args, "--shard", f"{k}/{shards}", "--json", str(path))
        assert path.exists(), done.stderr
        paths.append(str(path))
    return paths


def test_merging_three_shards_gives_the_verdict_and_digests_of_one_run(tmp_path):
    root = suite(tmp_path, real=("python", "bash", "prolog"))
    args = ("--n", "0-4")
    whole = tmp_path / "whole.json"
    one = harness("--root", str(root), "compare", *args, "--json", str(whole))
    paths = shard_reports(tmp_path, root, *args)
    shard_cells = [len(json.loads(Path(path).read_text())["cells"]) for path in paths]
    assert all(shard_cells) and sum(shard_cells) == 3 * len(METHODS) * 5
    merged_file = tmp_path / "merged.json"
    merged = harness_here("--root", str(root), "merge", *paths, "--json", str(merged_file), "--format", "plain")
    assert (one.returncode, merged.returncode) == (0, 0), merged.stdout + merged.stderr
    single, combined = valid_report(json.loads(whole.read_text())), valid_report(json.loads(merged_file.read_text()))
    assert combined["command"] == "merge" and len(combined["sources"]) == 3
    assert combined["passed"] is single["passed"] is True
    assert combined["agreement"] == single["agreement"]
    fields = lambda report: {cell["id"]: (cell["outcome"], cell["digest"], cell["moves"]) for cell in report["cells"]}  # noqa: E731
    assert fields(combined) == fields(single)
    assert [cell["id"] for cell in combined["cells"]] == [cell["id"] for cell in single["cells"]]
    assert merged.stdout.splitlines()[-1] == one.stdout.splitlines()[-1]


def test_a_port_that_disagrees_in_one_shard_fails_the_merge_naming_it(tmp_path):
    root = suite(tmp_path, "seed-b_toh", real=("python",))
    paths = shard_reports(tmp_path, root, "--n", "2", "--method", "binary", shards=2)
    holder = [path for path in paths if any(c["port"] == "seed-b_toh" for c in json.loads(Path(path).read_text())["cells"])]
    assert len(holder) == 1
    merged = harness_here("--root", str(root), "merge", *paths, "--format", "plain")
    assert merged.returncode == 1
    assert "n=2 (classic): the ports print 2 different sequences" in merged.stdout
    assert any(line.strip().endswith("  seed-b_toh/binary") for line in merged.stdout.splitlines())
    assert "seed-b_toh: fail (violation) binary n=2" in merged.stdout


def test_merge_refuses_other_commits_unless_told_and_overlapping_shards(tmp_path):
    root = suite(tmp_path, real=("python",))
    [path] = shard_reports(tmp_path, root, "--n", "1", "--method", "binary", shards=1)
    data = json.loads(Path(path).read_text())
    other = tmp_path / "other.json"
    data["commit"] = "0000000"
    data["cells"][0]["id"] = "python/binary/1"
    other.write_text(json.dumps({**data, "cells": []}))
    refused = harness_here("--root", str(root), "merge", path, str(other))
    assert refused.returncode == 2 and "different commits" in refused.stderr and "Traceback" not in refused.stderr
    assert harness_here("--root", str(root), "merge", "--mixed", path, str(other)).returncode == 0
    twice = harness_here("--root", str(root), "merge", path, path)
    assert twice.returncode == 2 and "the cell python/binary/1 is in both" in twice.stderr


def port_reports(tmp_path, root, *args):
    """One report a port of ``root``, each from its own run, as CI's port jobs make them."""
    paths = {}
    for port in HEADLINE:
        path = tmp_path / f"report-{port}.json"
        done = harness("--root", str(root), "compare", *args, "--port", port, "--json", str(path))
        assert done.returncode == 0, done.stdout + done.stderr
        paths[port] = str(path)
    return paths


def missing_lines(done):
    return [line.strip() for line in done.stdout.split("\nMissing\n", 1)[-1].splitlines() if line.startswith("  ")]


def test_a_merge_without_one_ports_report_fails_naming_that_port(tmp_path):
    root = suite(tmp_path)
    paths = port_reports(tmp_path, root, "--n", "0-2", "--method", "recursive,cyclic")
    everything = harness_here("--root", str(root), "merge", *paths.values(), "--format", "plain")
    assert everything.returncode == 0, everything.stdout + everything.stderr
    assert f"All {len(HEADLINE) * 2 * 3} cells that ran pass and agree" in everything.stdout
    for absent in (HEADLINE[0], HEADLINE[-1]):
        merged_file = tmp_path / "merged.json"
        rest = [path for port, path in paths.items() if port != absent]
        merged = harness_here("--root", str(root), "merge", *rest, "--format", "plain", "--json", str(merged_file))
        assert merged.returncode == 1
        assert missing_lines(merged) == [f"port {absent}: no report (the checkout's manifests list it)"]
        assert "pass and agree" not in merged.stdout and "Incomplete" in merged.stdout.splitlines()[-1]
        report = valid_report(json.loads(merged_file.read_text()))
        assert report["passed"] is False and report["missing"] == [f"port {absent}: no report (the checkout's manifests list it)"]
        assert absent in report["plan"]["ports"]
    planned = harness_here("--root", str(root), "merge", "--expect", "plan", *rest, "--format", "plain")
    assert planned.returncode == 0, planned.stdout


def test_a_merge_without_one_shard_fails_naming_that_shard(tmp_path):
    root = suite(tmp_path, real=("python", "bash"))
    paths = shard_reports(tmp_path, root, "--n", "0-3", shards=3)
    assert harness_here("--root", str(root), "merge", *paths, "--format", "plain").returncode == 0
    for k in (1, 3):
        rest = [path for path in paths if not path.endswith(f"shard-{k}.json")]
        markdown_file = tmp_path / "summary.md"
        merged = harness_here("--root", str(root), "merge", *rest, "--format", "plain", "--markdown", str(markdown_file))
        assert merged.returncode == 1
        [line] = missing_lines(merged)
        assert line.startswith(f"shard {k}/3: no report (of the run of ports bash, python; n=0-3;")
        assert markdown_file.read_text().startswith("### ❌") and f"shard {k}/3: no report" in markdown_file.read_text()


def test_a_cell_of_the_plan_that_no_report_holds_is_named(tmp_path):
    root = suite(tmp_path, real=("python",))
    [path] = shard_reports(tmp_path, root, "--n", "1-2", "--method", "binary,iterative", shards=1)
    data = json.loads(Path(path).read_text())
    data["cells"] = [cell for cell in data["cells"] if cell["id"] != "python/iterative/2"]
    Path(path).write_text(json.dumps(data))
    junit_file = tmp_path / "merged.xml"
    merged = harness_here("--root", str(root), "merge", path, "--format", "plain", "--junit", str(junit_file))
    assert merged.returncode == 1 and missing_lines(merged) == ["cell python/iterative/2: no report"]
    assert 'failure message="cell python/iterative/2: no report"' in junit_file.read_text()


def test_merge_refuses_a_report_without_a_plan_and_a_folder_without_ports(tmp_path):
    root = suite(tmp_path, real=("python",))
    [path] = shard_reports(tmp_path, root, "--n", "1", "--method", "binary", shards=1)
    data = json.loads(Path(path).read_text())
    old = tmp_path / "old.json"
    old.write_text(json.dumps({**{key: value for key, value in data.items() if key != "plan"}, "schema_version": 1}))
    refused = harness_here("--root", str(root), "merge", str(old))
    assert refused.returncode == 2 and "schema version 1" in refused.stderr and "records no plan" in refused.stderr and "Traceback" not in refused.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    nowhere = harness_here("--root", str(empty), "merge", path)
    assert nowhere.returncode == 2 and "--expect plan" in nowhere.stderr
    assert harness_here("--root", str(empty), "merge", "--expect", "plan", path).returncode == 0


@pytest.fixture(scope="module")
def one_report(tmp_path_factory) -> dict:
    """A report of the Python port and a failing fake, n = 2: cells that pass, fail with a diff, and are skipped."""
    tmp_path = tmp_path_factory.mktemp("merge-input")
    root = suite(tmp_path, "illegal", real=("python",))
    path = tmp_path / "report.json"
    harness("--root", str(root), "compare", "--n", "2", "--json", str(path))
    return valid_report(json.loads(path.read_text()))


def changed(report: dict, where: tuple, value) -> dict:
    """A deep copy of ``report`` with the value at ``where`` (keys and indices) replaced."""
    copy = json.loads(json.dumps(report))
    inner = copy
    for step in where[:-1]:
        inner = inner[step]
    inner[where[-1]] = value
    return copy


HOSTILE_REPORTS = {
    "nested": ("[" * 100_000 + "]" * 100_000, "not a harness report: its values nest more than 32 deep"),
    "started-a-number": (("started",), 5, "not a harness report: started is 5, not string"),
    "digest-a-list": (("cells", 0, "digest"), [], "not a harness report: cells[0].digest is a list of 0 items, not string or null"),
    "detail-a-number": (("cells", 1, "detail"), 7, "not a harness report: cells[1].detail is 7, not string"),
    "ten-million-n": (("plan", "n"), [1] * 10_000_000, "not a harness report: plan.n holds 10,000,000 items, not from 0 to 65"),
    "n-past-64": (("cells", 0, "n"), 65, "not a harness report: cells[0].n is 65, not from 0 to 64"),
    "empty": ("", "not JSON (Expecting value: line 1 column 1 (char 0))"),
    "a-list": ("[]", "not a harness report: the report is a list of 0 items, not object"),
}


@pytest.mark.parametrize("case", HOSTILE_REPORTS)
def test_merge_refuses_a_report_that_breaks_its_schema_naming_the_file_and_the_place(tmp_path, one_report, case):
    *where, value, problem = HOSTILE_REPORTS[case]
    path = tmp_path / "hostile.json"
    path.write_text(value if not where else json.dumps(changed(one_report, where[0], value)))
    done = harness_here("merge", "--expect", "plan", str(path), "--json", str(tmp_path / "merged.json"))
    assert done.returncode == 2, done.stdout + done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith(f"python -m harness merge: {path}: {problem} (see "), line
    assert done.stdout == "" and not (tmp_path / "merged.json").exists()


def test_merge_refuses_a_report_over_32_mib_before_it_reads_it(tmp_path, one_report):
    path = tmp_path / "huge.json"
    path.write_text(json.dumps(changed(one_report, ("cells", 0, "detail"), "x" * (32 << 20))))
    done = harness_here("merge", "--expect", "plan", str(path))
    assert done.returncode == 2
    assert done.stderr.startswith(f"python -m harness merge: {path}: larger than 32 MiB, the most a report may be; it was not read (see "), done.stderr


def test_a_long_detail_or_diff_in_a_report_is_cut_where_merge_shows_it(tmp_path, one_report):
    failed = next(index for index, cell in enumerate(one_report["cells"]) if cell["outcome"] == "fail")
    report = changed(changed(one_report, ("cells", failed, "detail"), "y" * (4 << 20)), ("cells", failed, "diff"), ["- 1 0 2"] * 100_000)
    path = tmp_path / "long.json"
    path.write_text(json.dumps(report))
    merged = tmp_path / "merged.json"
    done = harness_here("merge", "--expect", "plan", str(path), "--format", "plain", "--json", str(merged))
    assert done.returncode == 1, done.stderr
    assert "y" * 8_000 + "'… (4,186,304 more characters)" in done.stdout
    assert "y" * 8_001 not in done.stdout and len(done.stdout) < 40_000
    cell = json.loads(merged.read_text())["cells"][failed]
    assert len(cell["diff"]) == 201 and cell["diff"][-1] == "… and 99,800 more lines"


def test_a_plan_of_every_n_for_a_thousand_ports_is_counted_not_held(tmp_path, one_report):
    ports = [f"port{number}" for number in range(1_000)]
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(changed(changed(one_report, ("plan", "ports"), ports), ("plan", "n"), list(range(65)))))
    done = harness_here("merge", "--expect", "plan", str(path), "--format", "plain")
    assert done.returncode == 1
    assert f"  … and {1_000 * 4 * 65 - 20} more cells: no report" in done.stdout, done.stdout[-2000:]


def schema_paths(value, where=()):
    """Every place in a report: each key of each object and each index of each list, with what is there."""
    yield where, value
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        yield from schema_paths(item, (*where, key))


def test_the_harness_reads_the_schema_as_jsonschema_does(one_report):
    """Every value of a real report replaced by each kind of JSON value, each key removed and one
    added: the harness's reading of report.schema.json accepts exactly what jsonschema accepts."""
    validator = jsonschema.Draft202012Validator(json.loads((ROOT / "harness" / "report.schema.json").read_text()))
    replacements = [None, True, 0, -1, 65, 2.5, "", "x", "1/2", "pass", "2024-01-01T00:00:00Z", [], [0, 1, 2], {}]
    variants = [one_report]
    for where, value in schema_paths(one_report):
        if where:
            variants += [changed(one_report, where, replacement) for replacement in replacements]
        if isinstance(value, dict):
            variants += [changed(one_report, (*where, "unexpected"), 1) if where else {**one_report, "unexpected": 1}]
            variants += [{key: item for key, item in value.items() if key != dropped} if not where else changed(
                one_report, where, {key: item for key, item in value.items() if key != dropped}) for dropped in value]
    disagree = [variant for variant in variants if (schema_error(variant) is None) != validator.is_valid(variant)]
    assert len(variants) > 2000 and not disagree, [schema_error(variant) for variant in disagree[:3]]


def test_the_schema_uses_only_keywords_the_harness_reads():
    known = {"type", "const", "enum", "pattern", "minimum", "maximum", "maxLength", "required", "properties", "additionalProperties",
             "propertyNames", "items", "prefixItems", "minItems", "maxItems", "$ref", "$schema", "$id", "$defs", "title", "description"}
    schema = json.loads((ROOT / "harness" / "report.schema.json").read_text())
    places = [value for _, value in schema_paths(schema) if isinstance(value, dict)]
    named = {name for value in places for name in (*value.get("properties", {}), *(value.get("$defs", {})))}
    used = {key for value in places for key in value} - named
    assert used <= known, used - known
