"""Secrets under names that do not say "token": a port's manifest may name a variable whose value is
a URL with a password or a token (REDIS_URL, BUILD_INFO), and the harness may hold others whose
names say so in other words (CI_JOB_JWT, GH_PAT, SLACK_WEBHOOK_URL, DOCKER_AUTH_CONFIG). A port held
in the sandbox or a container is passed none of them; in every mode, no report shows their values,
nor a token the port prints of its own."""

from __future__ import annotations

import json

from conftest import ROOT, suite
from integration.conftest import compare_json

ISOLATION_PORTS = ROOT / "tests" / "isolation_ports"
REDIS_PASSWORD = "R3dis-pa55word"
SHAPED = {
    "CI_JOB_JWT": "eyJhbGciOiJSUzI1NiJ9.eyJuYW1lc3BhY2VfaWQiOiI0MiJ9.c2lnbmVkLWJ5LXRoZS1DSQ",
    "GH_PAT": "github_pat_11AAAAAAA0" + "b" * 40,
    "REDIS_URL": f"redis://default:{REDIS_PASSWORD}@redis.internal:6379/0",
    "SLACK_WEBHOOK_URL": "https://hooks.slack.com/services/T0000/B0000/" + "Wh00k" * 4,
    "DOCKER_AUTH_CONFIG": '{"auths":{"registry.example":{"auth":"aGFub2k6ZG9ja2VyLXB3"}}}',
    "BUILD_INFO": "glpat-" + "Bu1ld-1nfo_" * 2,
}
OWN_TOKEN = "ghp_" + "Own0Token" * 4
NAMES = ("CI_JOB_JWT", "GH_PAT", "REDIS_URL", "SLACK_WEBHOOK_URL", "DOCKER_AUTH_CONFIG", "BUILD_INFO")


def test_no_secret_under_another_name_reaches_a_held_port_or_any_report(tmp_path, mode, run_tmpdir):
    root = suite(tmp_path, "prints-secret-shapes", real=(), fakes_from=ISOLATION_PORTS)
    junit, markdown = tmp_path / "report.xml", tmp_path / "report.md"
    done, report = compare_json(
        tmp_path, "--n", "0", "--method", "binary", "--isolation", mode, "--junit", str(junit), "--markdown", str(markdown),
        root=root, env={**SHAPED, "HANOI_VISIBLE": "seen-by-its-manifest"}, tmpdir=run_tmpdir,
    )
    [cell] = report["cells"]
    assert cell["reason"] == "crash", cell
    shown = "\n".join([done.stdout, done.stderr, json.dumps(report), junit.read_text(), markdown.read_text()])
    for secret in (*SHAPED.values(), REDIS_PASSWORD, OWN_TOKEN):
        assert secret not in shown, secret
    assert "its own: ***" in cell["detail"], cell["detail"]
    names = set(cell["detail"].split("names: ", 1)[1].split(" | ", 1)[0].split())
    assert "HANOI_VISIBLE=***" in cell["detail"], cell["detail"]  # passed, as its manifest asks, and masked
    if mode == "subprocess":
        assert set(NAMES) <= names, names
        assert "CI_JOB_JWT=***" in cell["detail"] and "REDIS_URL=***" in cell["detail"], cell["detail"]
    else:
        assert not set(NAMES) & names, names


def test_what_a_manifest_passes_a_port_is_masked_in_every_report(tmp_path, mode, run_tmpdir):
    """A name and a value no pattern tells from a setting (a webhook under HANOI_SETTING): the port
    may be given it, as its manifest asks, but no report quotes it."""
    folder = tmp_path / "ports" / "quoting"
    folder.mkdir(parents=True)
    (folder / "hanoi.sh").write_text('echo "the setting is $HANOI_SETTING" >&2\nexit 3\n')
    (folder / "language.toml").write_text(
        'summary = "quotes its setting"\ncommand = ["sh", "hanoi.sh", "{n}"]\nmethods = ["recursive"]\nenv = ["HANOI_SETTING"]\n\n'
        '[[requires]]\nexecutable = "sh"\ndebian = "dash"\n\n[output]\n'
        "patterns = ['(?P<disk>\\d+) (?P<src>\\d) (?P<dst>\\d)']\npegs = [\"0\", \"1\", \"2\"]\n"
    )
    value = "https-hooks-example-com-services-T000-B000-XXXXXXXX"
    done, report = compare_json(
        tmp_path, "--n", "1", "--method", "recursive", "--isolation", mode, "--markdown", str(tmp_path / "report.md"),
        root=folder.parent, env={"HANOI_SETTING": value}, tmpdir=run_tmpdir,
    )
    [cell] = report["cells"]
    assert cell["outcome"] == "error" and "the setting is ***" in cell["detail"], cell
    assert value not in done.stdout + done.stderr + json.dumps(report) + (tmp_path / "report.md").read_text()


def test_a_line_cut_through_a_secret_shows_none_of_it(tmp_path, run_tmpdir):
    """A report cuts a long line short (stderr's lines at 400 bytes, a quoted line at 120 characters):
    a secret the cut falls in must not leave its start behind, where masking no longer knows it."""
    folder = tmp_path / "ports" / "cutting"
    folder.mkdir(parents=True)
    (folder / "hanoi.sh").write_text(
        'pad() { printf "x%.0s" $(seq "$1"); }\n'
        'if [ "$1" = binary ]; then echo "$(pad 380) $HANOI_SETTING $(pad 50)" >&2; echo "$(pad 380) ghp_$(printf "Own0Token%.0s" 1 2 3 4)" >&2; exit 3; fi\n'
        'echo "$(pad 110) $HANOI_SETTING and more"\n'
        'echo "$(pad 100) ghp_$(printf "Own0Token%.0s" 1 2 3 4) and more"\n'
    )
    (folder / "language.toml").write_text(
        'summary = "quotes its setting in long lines"\ncommand = ["sh", "hanoi.sh", "{method}", "{n}"]\nmethods = ["binary", "recursive"]\n'
        'env = ["HANOI_SETTING"]\n\n[[requires]]\nexecutable = "sh"\ndebian = "dash"\n\n[output]\n'
        "patterns = ['(?P<disk>\\d+) (?P<src>\\d) (?P<dst>\\d)']\npegs = [\"0\", \"1\", \"2\"]\n"
    )
    value = "Qw3rty-S3tting-Value-0123456789"
    done, report = compare_json(tmp_path, "--n", "1", "--isolation", "subprocess", root=folder.parent, env={"HANOI_SETTING": value}, tmpdir=run_tmpdir)
    cells = {cell["method"]: cell for cell in report["cells"]}
    assert cells["binary"]["reason"] == "crash" and "more bytes)" in cells["binary"]["detail"], cells["binary"]
    assert cells["recursive"]["outcome"] == "error" and "more characters)" in cells["recursive"]["detail"], cells["recursive"]
    shown = done.stdout + done.stderr + json.dumps(report)
    for secret in (value, OWN_TOKEN):
        for start in range(6, len(secret)):
            assert secret[:start] not in shown, secret[:start]
