"""The project's ports, run for real: every method at small n (0..6: both parities, where even n
relabels the pegs), against the reference and each other; and their own command lines, refusing bad
input. The whole catalogue at larger n is `make compare-all` and CI's per-port jobs."""

from __future__ import annotations

import subprocess

import pytest

from conftest import ROOT
from harness.evaluate import evaluate
from harness.model import METHODS, Outcome
from harness.report.markdown import ports_markdown
from integration.conftest import OFFERED, PORTS, REAL_PORTS, compare_json, offered, program_argv, reference_digest

NS = range(7)
PATIENT_SECONDS = 300
"""How long a port's program may take to start and refuse or print nothing: seconds on an idle machine, but a
virtual machine of a runtime (BEAM, the JVM) takes far longer to start on a loaded one."""
TAKES_METHOD_N = [
    (name, taking[0]) for name, port in PORTS.items() if not port.query
    if (taking := [method for method in port.methods if port.program(method).command[-2:] == ("{method}", "{n}")])
]
"""Each port whose program takes the method and n as its last two arguments, as SPEC.md suggests,
with the first method it does so for: one program, so one way of refusing bad input, a port."""


@pytest.mark.parametrize("port, method", OFFERED)
def test_each_method_prints_the_reference_moves(real_ports, gate, port, method):
    for n in NS:
        cell = evaluate(real_ports[port], method, n, gate=gate)
        if port not in offered(method, n):
            assert cell.outcome is Outcome.SKIPPED, cell.label
            continue
        assert (cell.outcome, cell.detail) == (Outcome.PASS, ""), cell.label
        assert cell.moves == METHODS[method].optimal_count(n)
        assert cell.digest == reference_digest(n, method), cell.label
        assert cell.diff == []


def test_all_ports_and_methods_agree_through_compare(tmp_path):
    done, report = compare_json(tmp_path, "--n", f"0-{NS[-1]}")
    assert done.returncode == 0, done.stdout + done.stderr
    assert report["passed"] is True
    assert len(report["cells"]) == len(REAL_PORTS) * len(METHODS) * len(NS)
    for cell in report["cells"]:
        ran = cell["port"] in offered(cell["method"], cell["n"])
        assert cell["outcome"] == ("pass" if ran else "skipped"), cell
    rules = {rules.name: [name for name in METHODS if METHODS[name] is rules] for rules in METHODS.values()}
    assert [(group["n"], group["puzzle"]) for group in report["agreement"]] == [(n, name) for n in NS for name in sorted(rules)]
    for group in report["agreement"]:
        assert group["agrees"] is True
        [(digest, labels)] = group["digests"].items()
        methods = rules[group["puzzle"]]
        assert digest == reference_digest(group["n"], methods[0])
        expected = [f"{port}/{method}" for method in methods for port in offered(method, group["n"])]
        assert sorted(labels) == sorted(expected)


@pytest.mark.parametrize("language, method", TAKES_METHOD_N)
@pytest.mark.parametrize(
    "args, complaint",
    [
        (["{method}", "-1"], "-1"),
        (["{method}", "2.5"], "2.5"),
        (["{method}", "three"], "three"),
        (["{method}"], ""),
        ([], ""),
        (["sideways", "3"], "sideways"),
    ],
)
def test_port_refuses_bad_input_with_usage_and_exit_2(real_ports, language, method, args, complaint):
    port = real_ports[language]
    argv = program_argv(port, method, 0)[:-2] + [arg.replace("{method}", method) for arg in args]
    done = subprocess.run(argv, cwd=port.folder, capture_output=True, text=True, timeout=PATIENT_SECONDS)
    assert done.returncode == 2
    assert done.stdout == ""
    assert "usage" in done.stderr.lower()
    assert complaint in done.stderr
    assert "Traceback" not in done.stderr


def test_bash_takes_the_most_disks_its_manifest_declares_and_refuses_one_more(real_ports):
    """Binary's formula counts moves up to 2^n in Bash's 64-bit signed arithmetic, right up to 62
    discs: the manifest says so, so the harness skips n = 63 rather than reporting a crash."""
    port = real_ports["bash"]
    for method in port.methods:
        max_n = port.program(method).max_n
        assert max_n == 62
        with subprocess.Popen(program_argv(port, method, max_n), cwd=port.folder, stdout=subprocess.PIPE, text=True) as started:
            first = started.stdout.readline() if started.stdout else ""
            started.kill()
        assert first == "1 from 0 to 1\n", method
        done = subprocess.run(program_argv(port, method, max_n + 1), cwd=port.folder, capture_output=True, text=True, timeout=PATIENT_SECONDS)
        assert (done.returncode, done.stdout) == (2, ""), method
        assert "usage" in done.stderr


@pytest.mark.parametrize("language", [name for name, port in PORTS.items() if not port.query])
def test_zero_discs_print_no_move_and_succeed(real_ports, language):
    port = real_ports[language]
    for method in (method for method in port.methods if language in offered(method, 0) and port.program(method).stdin(method, 0) is None):
        done = subprocess.run(program_argv(port, method, 0), cwd=port.folder, capture_output=True, text=True, timeout=PATIENT_SECONDS)
        drawings = port.program(method).output.format == "drawings"
        assert (done.returncode, done.stdout, done.stderr) == (0, "|A\n|B\n|C\n\n" if drawings else "", "")


def test_the_readme_table_of_ports_is_the_one_their_manifests_give(real_ports):
    text = (ROOT / "README.md").read_text()
    table = text.partition("<!-- ports:")[2].partition("-->")[2].partition("<!-- end of ports -->")[0].strip()
    assert table == ports_markdown(list(real_ports.values())), (
        "README.md's table of ports is not the manifests' own: put what `harness list --format markdown` prints"
        " below its line that starts <!-- ports: and above <!-- end of ports -->"
    )
