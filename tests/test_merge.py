"""Runs split over machines: --shard K/N runs a stable share of the cells, and harness merge decides
agreement across the shards' reports from their digests, as one run would."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import harness, suite, valid_report
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
    merged = harness("merge", *paths, "--json", str(merged_file), "--format", "plain")
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
    merged = harness("merge", *paths, "--format", "plain")
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
    refused = harness("merge", path, str(other))
    assert refused.returncode == 2 and "different commits" in refused.stderr and "Traceback" not in refused.stderr
    assert harness("merge", "--mixed", path, str(other)).returncode == 0
    twice = harness("merge", path, path)
    assert twice.returncode == 2 and "the cell python/binary/1 is in both" in twice.stderr
