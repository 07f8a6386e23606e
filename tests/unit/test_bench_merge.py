"""bench's figures made one port at a time (as CI's port jobs make them) and merged into one table
(``harness bench --merge``): the same summary as one bench of every port; the machine each port was
measured on and how busy it was, said; figures merged on another machine than the one measured,
said; figures that cannot share a table refused, a port with none named and failing the merge; and a
file that is not figures refused by its schema, never a traceback."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest

from harness.bench import CHAR_WIDTH, bench_svg, bench_to_json
from harness.errors import MergeError, ReportError
from harness.report import WRITERS
from harness.report.figures import catalogue, merge_figures, provenance
from harness.report.json import read_figures
from tests.conftest import ROOT, harness_here
from tests.unit.test_bench_summary import MACHINE, SVG, made_up

PORTS = [path.parent.name for path in sorted(ROOT.glob("*/language.toml"))]
OTHER = {**MACHINE, "cpu": "Intel Xeon", "cores": 4}


def per_port(ports: list[str], machine: dict | None = None, load: float | None = None) -> dict[str, dict]:
    """Each port's figures on their own, as its job writes them, its cells timed at ``load``."""
    cells, _ = made_up(ports)
    for cell in cells:
        cell.load = load
    return {
        port: json.loads(json.dumps(bench_to_json([cell for cell in cells if cell.port == port], machine or MACHINE,
                                                  {port: {"interpreter": f"{port} 1.0"}}, 3)))
        for port in ports
    }


def test_figures_made_a_port_at_a_time_merge_into_the_table_one_bench_of_them_all_makes():
    cells, whole = made_up(PORTS)
    merged = merge_figures(list(per_port(PORTS).items()), MACHINE, PORTS)
    assert catalogue(merged) == catalogue(whole)
    assert merged["versions"] == {port: {"interpreter": f"{port} 1.0"} for port in PORTS}
    assert merged["missing"] == [] and merged["machines"] == [{"machine": MACHINE, "ports": PORTS}]
    table = [line for line in WRITERS["markdown"].figures_text(merged).splitlines() if line.startswith("| ")]
    assert table == [line for line in WRITERS["markdown"].figures_text(whole).splitlines() if line.startswith("| ")]
    assert len(table) == 4 * (len(PORTS) + 2)  # a row a port and method, beside each table's two heading lines


def test_the_table_says_how_busy_the_machine_was_and_which_machine_measured_which_port():
    figures = per_port(["c", "go", "rust"], load=1.0)
    figures["rust"] = per_port(["rust"], OTHER, load=7.5)["rust"]
    for cell in figures["go"]["cells"]:
        cell["load_average"] = 3.25
    said = provenance(merge_figures(list(figures.items()), MACHINE))
    assert said[1] == "Measured on AMD EPYC, 2 cores, Linux-6.18, Python 3.11.7 (ports c, go), busy: load average (1 min) 1.0 to 3.2 as its cells were timed."
    assert said[2] == "Measured on Intel Xeon, 4 cores, Linux-6.18, Python 3.11.7 (ports rust), busy: load average (1 min) 7.5 to 7.5 as its cells were timed."
    quiet = provenance(merge_figures([("c", per_port(["c"], load=0.5)["c"])], MACHINE))
    assert quiet[1] == "Measured on AMD EPYC, 2 cores, Linux-6.18, Python 3.11.7, load average (1 min) 0.5 to 0.5 as its cells were timed."


def test_figures_merged_on_another_machine_than_the_one_measured_say_so():
    figures = list(per_port(["c"]).items())
    assert not any("Merged on" in sentence for sentence in provenance(merge_figures(figures, MACHINE)))
    elsewhere = merge_figures(figures, OTHER)
    assert provenance(elsewhere)[-1] == (
        "Merged on Intel Xeon, 4 cores, Linux-6.18, Python 3.11.7, not the machine measured: these figures are not this machine's."
    )
    assert "not the machine measured" in WRITERS["markdown"].figures_text(elsewhere)


@pytest.mark.parametrize(("key", "value", "said"), [
    ("commit", "def5678", "different commits"),
    ("isolation", "sandbox", "different commits, harnesses, isolations"),
])
def test_figures_that_cannot_share_one_table_are_refused(key, value, said):
    figures = per_port(["c", "go"])
    figures["go"]["machine"] = {**figures["go"]["machine"], key: value}
    with pytest.raises(MergeError, match=said):
        merge_figures(list(figures.items()), MACHINE)
    figures = per_port(["c", "go"])
    figures["go"]["repeat"] = 5
    with pytest.raises(MergeError, match="repeat counts"):
        merge_figures(list(figures.items()), MACHINE)


def test_a_port_in_two_files_is_refused_and_a_port_in_none_is_named():
    figures = per_port(["c", "go"])
    with pytest.raises(MergeError, match="the port c has figures in both one.json and two.json"):
        merge_figures([("one.json", figures["c"]), ("two.json", figures["c"])], MACHINE)
    merged = merge_figures(list(figures.items()), MACHINE, ["c", "go", "rust", "zig"])
    assert merged["missing"] == ["rust", "zig"]
    assert "No bench's figures hold these ports: rust, zig." in WRITERS["markdown"].figures_text(merged)


def test_the_schema_describes_the_figures_bench_writes_and_merges(tmp_path):
    schema = json.loads((ROOT / "harness" / "bench.schema.json").read_text())
    figures = per_port(["c", "go"], load=2.0)
    merged = merge_figures(list(figures.items()), MACHINE, ["c", "go", "rust"])
    for data in (*figures.values(), merged):
        jsonschema.validate(data, schema)
        path = tmp_path / "figures.json"
        path.write_text(json.dumps(data))
        assert read_figures(path) == data


@pytest.mark.parametrize(("text", "said"), [
    ("not json", "not JSON"),
    ("[" * 1000 + "]" * 1000, "not a harness figures file: its values nest more than 32 deep"),
    (json.dumps({"cells": []}), "not harness bench figures: the figures has no 'harness'"),
    ("@cells", "not harness bench figures: cells[0].n is '20', not integer"),
])
def test_a_file_that_is_not_figures_is_refused_naming_it_and_why(tmp_path, text, said):
    if text == "@cells":
        data = per_port(["c"])["c"]
        data["cells"][0]["n"] = "20"
        text = json.dumps(data)
    path = tmp_path / "broken.json"
    path.write_text(text)
    with pytest.raises(ReportError) as raised:
        read_figures(path)
    assert str(raised.value).startswith(f"{path}: ") and said in str(raised.value), raised.value


def test_bench_merge_writes_the_table_json_and_plot_and_fails_where_a_port_has_no_figures(tmp_path):
    figures = per_port(PORTS, load=4.0)
    for port, data in figures.items():
        (tmp_path / f"bench-{port}.json").write_text(json.dumps(data))
    paths = sorted(str(path) for path in tmp_path.glob("bench-*.json"))
    out = {form: tmp_path / f"merged.{form}" for form in ("md", "json", "svg")}
    done = harness_here("bench", "--merge", *paths, "--markdown", str(out["md"]), "--json", str(out["json"]), "--plot", str(out["svg"]))
    assert done.returncode == 0, done.stderr
    merged = read_figures(out["json"])
    assert merged["sources"] == paths and merged["missing"] == []
    assert out["md"].read_text() == WRITERS["markdown"].figures_text(merged)
    assert "load average (1 min) 4.0 to 4.0" in out["md"].read_text() and "load average (1 min) 4.0" in out["svg"].read_text()
    assert len(re.findall(r"^\| python \|", out["md"].read_text(), re.MULTILINE)) == 4
    partial = harness_here("bench", "--merge", *paths[1:], "--markdown", str(out["md"]))
    assert partial.returncode == 1, partial.stderr
    assert f"No figures for: {Path(paths[0]).stem.removeprefix('bench-')}" in partial.stdout


@pytest.mark.parametrize(("args", "said"), [
    (["--merge"], "--merge takes the FIGURES files to merge"),
    (["some.json"], "FIGURES are read only with --merge"),
    (["--merge", "/nonexistent/bench.json"], "cannot read /nonexistent/bench.json"),
])
def test_bench_merge_misused_says_so_and_exits_non_zero(args, said):
    done = harness_here("bench", *args)
    assert done.returncode == 2 and said in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_the_plot_says_where_its_figures_come_from_in_sentences_that_fit_its_width():
    long = {**OTHER, "os": "Linux-6.18.44-fc-v657-x86_64-with-glibc2.36-and-a-long-build-name"}
    figures = per_port(["c", "go"], load=13.25)
    figures["go"] = per_port(["go"], long, load=2.0)["go"]
    merged = merge_figures(list(figures.items()), {**long, "cpu": "ARM"})
    svg = ET.fromstring(bench_svg(merged))
    said = [text.text for text in svg.iter(f"{SVG}text") if text.get("fill") == "#444444"]
    assert said == provenance(merged) and len(said) == 4
    assert all(16 + CHAR_WIDTH * len(sentence) <= float(svg.get("width")) for sentence in said)
