"""Runs split over machines: --shard K/N runs a stable share of the cells, and harness merge decides
agreement across the shards' reports from their digests, as one run would. Each report carries the
plan of the run it is part of, so a merge that lacks a port, a shard or a cell of it fails, naming it."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import REAL_PORTS, harness, suite, valid_report
from harness.model import METHODS, Shard


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
    merged = harness("--root", str(root), "merge", *paths, "--json", str(merged_file), "--format", "plain")
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
    merged = harness("--root", str(root), "merge", *paths, "--format", "plain")
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
    refused = harness("--root", str(root), "merge", path, str(other))
    assert refused.returncode == 2 and "different commits" in refused.stderr and "Traceback" not in refused.stderr
    assert harness("--root", str(root), "merge", "--mixed", path, str(other)).returncode == 0
    twice = harness("--root", str(root), "merge", path, path)
    assert twice.returncode == 2 and "the cell python/binary/1 is in both" in twice.stderr


def port_reports(tmp_path, *args):
    """One report a port of the checkout, each from its own run, as CI's port jobs make them."""
    paths = {}
    for port in REAL_PORTS:
        path = tmp_path / f"report-{port}.json"
        done = harness("compare", *args, "--port", port, "--json", str(path))
        assert done.returncode == 0, done.stdout + done.stderr
        paths[port] = str(path)
    return paths


def missing_lines(done):
    return [line.strip() for line in done.stdout.split("\nMissing\n", 1)[-1].splitlines() if line.startswith("  ")]


def test_a_merge_without_one_ports_report_fails_naming_that_port(tmp_path):
    paths = port_reports(tmp_path, "--n", "0-2", "--method", "recursive,cyclic")
    everything = harness("merge", *paths.values(), "--format", "plain")
    assert everything.returncode == 0, everything.stdout + everything.stderr
    assert f"All {len(REAL_PORTS) * 2 * 3} cells that ran pass and agree" in everything.stdout
    for absent in (REAL_PORTS[0], REAL_PORTS[-1]):
        merged_file = tmp_path / "merged.json"
        rest = [path for port, path in paths.items() if port != absent]
        merged = harness("merge", *rest, "--format", "plain", "--json", str(merged_file))
        assert merged.returncode == 1
        assert missing_lines(merged) == [f"port {absent}: no report (the checkout's manifests list it)"]
        assert "pass and agree" not in merged.stdout and "Incomplete" in merged.stdout.splitlines()[-1]
        report = valid_report(json.loads(merged_file.read_text()))
        assert report["passed"] is False and report["missing"] == [f"port {absent}: no report (the checkout's manifests list it)"]
        assert absent in report["plan"]["ports"]
    planned = harness("merge", "--expect", "plan", *rest, "--format", "plain")
    assert planned.returncode == 0, planned.stdout


def test_a_merge_without_one_shard_fails_naming_that_shard(tmp_path):
    root = suite(tmp_path, real=("python", "bash"))
    paths = shard_reports(tmp_path, root, "--n", "0-3", shards=3)
    assert harness("--root", str(root), "merge", *paths, "--format", "plain").returncode == 0
    for k in (1, 3):
        rest = [path for path in paths if not path.endswith(f"shard-{k}.json")]
        markdown_file = tmp_path / "summary.md"
        merged = harness("--root", str(root), "merge", *rest, "--format", "plain", "--markdown", str(markdown_file))
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
    merged = harness("--root", str(root), "merge", path, "--format", "plain", "--junit", str(junit_file))
    assert merged.returncode == 1 and missing_lines(merged) == ["cell python/iterative/2: no report"]
    assert 'failure message="cell python/iterative/2: no report"' in junit_file.read_text()


def test_merge_refuses_a_report_without_a_plan_and_a_folder_without_ports(tmp_path):
    root = suite(tmp_path, real=("python",))
    [path] = shard_reports(tmp_path, root, "--n", "1", "--method", "binary", shards=1)
    data = json.loads(Path(path).read_text())
    old = tmp_path / "old.json"
    old.write_text(json.dumps({**{key: value for key, value in data.items() if key != "plan"}, "schema_version": 1}))
    refused = harness("--root", str(root), "merge", str(old))
    assert refused.returncode == 2 and "schema version 1" in refused.stderr and "records no plan" in refused.stderr and "Traceback" not in refused.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    nowhere = harness("--root", str(empty), "merge", path)
    assert nowhere.returncode == 2 and "--expect plan" in nowhere.stderr
    assert harness("--root", str(empty), "merge", "--expect", "plan", path).returncode == 0
