"""What a port may be shown and what it may be passed: ``reads`` is an allowlist (a short grammar
of the places a language's tools keep their data, less every home, the checkout, the harness's own
folders, key places and what the sandbox makes itself), and no secret reaches a port or a report,
whatever its variable is called."""

from __future__ import annotations

import os
import pwd
import shutil
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest

from conftest import ROOT, project_ports
from harness import environment
from harness.environment import Secrets, port_environment, refused_read, secret_name, secret_value
from unit.test_discover import GOOD, port_from

TOKENS = {
    "github": "ghp_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5",
    "github fine-grained": "github_pat_11ABCDEFG0" + "x" * 60,
    "github oauth": "gho_" + "Zx8" * 12,
    "gitlab": "glpat-" + "Ab1-Cd2_Ef3Gh4Ij5Kl6",
    "slack": "xoxb-1234567890-0987654321-" + "aBcDeFgHiJkLmNoPqRsTuVwX",
    "slack webhook": "https://hooks.slack.com/services/T00000000/B00000000/" + "X" * 24,
    "aws": "AKIA" + "IOSFODNN7EXAMPLE",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjaS1qb2IifQ.c2lnbmF0dXJlLW9mLXRoZS1qb2I",
    "pem": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----",
    "url with a password": "redis://default:s3cr3t-pw@redis.internal:6379/0",
    "hugging face": "hf_" + "Qx7Lm2Nv9Rt4Wz8Ky3Jp6Hd1Fb5Gc0Sa",
    "openai": "sk-" + "T3BlbkFJ" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5hJ",
    "openai project": "sk-proj-" + "Ab1-Cd2_Ef3Gh4Ij5Kl6Mn7Op8Qr9St0",
    "anthropic": "sk-ant-api03-" + "Zq9Wx8Ev7Rc6Tb5Yn4Um3Ik2Ol1Pa0Sd" * 3,
    "sendgrid": "SG." + "aB3dE5gH7jK9mN1pQ3sT5v" + "." + "W7yZ9bC1dE3fG5hJ7kL9mN1pQ3sT5vW7yZ9bC1dE3f",
    "google oauth": "ya29." + "a0AfH6SMBx7Lm2Nv9Rt4Wz8Ky3Jp6Hd1Fb5Gc0Sa",
    "vault": "hvs." + "CAESIJx7Lm2Nv9Rt4Wz8Ky3Jp6Hd1Fb5Gc0Sa",
    "digitalocean": "dop_v1_" + "0123456789abcdef" * 4,
    "url with a token": "https://api.example.org/v1/runs?token=s3cr3t-query-token",
    "url with an access token": "https://api.example.org/v1/runs?page=2&access_token=s3cr3t-access",
    "url with a key": "https://maps.example.org/api?key=s3cr3t-map-key&zoom=3",
}
"""A sample of each shape of token, and of each way a URL carries a secret."""
QUERY_SECRETS = {"url with a token": "s3cr3t-query-token", "url with an access token": "s3cr3t-access", "url with a key": "s3cr3t-map-key"}
"""The secret a URL's query carries, which masking removes while the URL's name for it stays."""


def _users(monkeypatch, *homes: tuple[str, str]) -> None:
    """The password database holds these users (name, home) and no other."""
    entries = [pwd.struct_passwd((name, "x", 2000 + index, 2000 + index, "", home, "/bin/sh")) for index, (name, home) in enumerate(homes)]
    monkeypatch.setattr(pwd, "getpwall", lambda: entries)


@pytest.fixture(autouse=True)
def quiet_machine(monkeypatch):
    """No user but root, and the harness's own folders where the grammar never reaches, unless a test says otherwise."""
    _users(monkeypatch, ("root", "/root"), ("systemd-network", "/"), ("daemon", "/usr/sbin"))
    monkeypatch.setenv("TMPDIR", "/tmp")
    monkeypatch.setenv("HANOI_CACHE", "/root/.cache/hanoi-polyglot")
    monkeypatch.setattr(sys, "prefix", sys.base_prefix)


@pytest.mark.parametrize(
    "path, why",
    [
        ("/srv/repo", "where a language's tools keep their data"),
        ("/home/user", "where a language's tools keep their data"),
        ("/root/.ssh", "plain names"),
        ("/root/keys", "where a language's tools keep their data"),
        ("/tmp/x", "where a language's tools keep their data"),
        ("/mnt/data", "where a language's tools keep their data"),
        ("/var/cache/apt", "where a language's tools keep their data"),
        ("/builds/group/hanoi", "where a language's tools keep their data"),
        ("/__w/hanoi/hanoi", "where a language's tools keep their data"),
        ("/etc", "plain names"),
        ("/var/lib", "where a language's tools keep their data"),
        ("/usr/../root/.ssh", "plain names"),
        ("relative/path", "plain names"),
        ("/usr/lib/--bind", "plain names"),
        ("/etc/.hidden/x", "plain names"),
        ("/usr/lib x", "plain names"),
        ("/etc/passwd", "the sandbox makes"),
        ("/etc/group", "the sandbox makes"),
        ("/etc/krb5.keytab", "keys and secrets"),
        ("/etc/wireguard", "keys and secrets"),
        ("/var/lib/kubelet/pki", "keys and secrets"),
        ("/etc/NetworkManager/system-connections", "keys and secrets"),
        ("/etc/NetworkManager", "keys and secrets"),
        ("/var/lib/jenkins", "keys and secrets"),
        ("/etc/ssh", "keys and secrets"),
        ("/etc/ssh/ssh_host_rsa_key", "keys and secrets"),
        ("/etc/ssl/private", "keys and secrets"),
        ("/etc/ssl", "keys and secrets"),
        ("/etc/shadow", "keys and secrets"),
        ("/etc/sudoers.d/x", "keys and secrets"),
        ("/var/lib/docker/volumes", "keys and secrets"),
        ("/var/lib/postgresql", "keys and secrets"),
        ("/opt/actions-runner", "keys and secrets"),
        ("/usr/sbin/x", "the home of daemon"),
        ("/etc/gitconfig", "settings of a language's tools"),
        ("/etc/npmrc", "settings of a language's tools"),
        ("/etc/pip.conf", "settings of a language's tools"),
        ("/etc/shadow.bak", "settings of a language's tools"),
        ("/etc/apt/auth.conf.d", "settings of a language's tools"),
        ("/etc/environment", "settings of a language's tools"),
        ("/etc/java-17-openjdk-x", "settings of a language's tools"),
        ("/etc/sudoers.d", "keys and secrets"),
    ],
)
def test_a_read_outside_the_grammar_or_of_a_secret_place_is_refused_saying_why(path, why):
    said = refused_read(path)
    assert said is not None and why in said, (path, said)


@pytest.mark.parametrize("path", ["/var/lib/runner-x", "/var/lib/runner-x/work", "/opt/ci", "/opt/ci/home/bin", "/usr/local/share/ci/x"])
def test_every_home_of_the_password_database_is_refused_and_so_is_a_folder_that_holds_one(monkeypatch, path):
    _users(monkeypatch, ("root", "/root"), ("runner", "/var/lib/runner-x"), ("ci", "/opt/ci/home"), ("share", "/usr/local/share/ci"))
    said = refused_read(path)
    assert said is not None and "the home of" in said, (path, said)


def test_a_home_that_is_the_whole_machine_is_no_home_a_read_must_avoid(monkeypatch):
    """Debian's systemd-network has / for a home: taken as a home, it would refuse every read."""
    _users(monkeypatch, ("systemd-network", "/"), ("nobody", "/nonexistent"))
    assert refused_read("/etc/java-17-openjdk") is None


@pytest.mark.parametrize("path", ["/var/lib/ci/checkout", "/var/lib/ci/checkout/other-port", "/var/lib/ci", "/var/lib/ci/checkout/.git"])
def test_the_checkout_and_every_folder_above_a_port_are_refused(path):
    said = refused_read(path, [Path("/var/lib/ci/checkout")])
    assert said is not None, path
    assert "the folder that holds the ports" in said or "plain names" in said, said


@pytest.mark.parametrize(
    "setting, path, why",
    [
        (("TMPDIR", "/var/lib/ci-tmp"), "/var/lib/ci-tmp/pg", "temporary folder"),
        (("TMPDIR", "/var/lib/ci-tmp/run"), "/var/lib/ci-tmp", "temporary folder"),
        (("HANOI_CACHE", "/opt/hanoi-cache"), "/opt/hanoi-cache/builds/c", "build cache"),
        (("XDG_CACHE_HOME", "/var/lib/ci-cache"), "/var/lib/ci-cache/hanoi-polyglot", "build cache"),
    ],
)
def test_the_harnesss_temporary_folder_and_cache_are_refused(monkeypatch, setting, path, why):
    if setting[0] == "XDG_CACHE_HOME":
        monkeypatch.delenv("HANOI_CACHE")
    monkeypatch.setenv(*setting)
    said = refused_read(path)
    assert said is not None and why in said, (path, said)


def test_the_harnesss_virtual_environment_is_refused(monkeypatch):
    monkeypatch.setattr(sys, "prefix", "/opt/hanoi-venv")
    said = refused_read("/opt/hanoi-venv/lib")
    assert said is not None and "virtual environment" in said, said


def test_the_system_python_a_harness_may_run_from_is_no_virtual_environment(monkeypatch):
    monkeypatch.setattr(sys, "prefix", "/usr")
    monkeypatch.setattr(sys, "base_prefix", "/usr")
    assert refused_read("/usr/lib/jvm") is None


def test_every_read_of_the_shipped_ports_is_accepted():
    ports = list(project_ports().values())
    asked = {path for port in ports for requirement in port.requires for path in requirement.reads}
    assert {"/etc/mono", "/etc/java-17-openjdk", "/var/lib/ghc/package.conf.d"} <= asked
    assert all(port.manifest_error is None for port in ports), [port.manifest_error for port in ports if port.manifest_error]
    assert {path: refused_read(path, [ROOT]) for path in asked} == dict.fromkeys(asked)


def test_check_refuses_a_read_of_the_sandboxs_own_accounts_with_its_line(tmp_path):
    text = GOOD.replace("[output]", "[[requires]]\nexecutable = 'cc'\nreads = ['/etc/passwd']\n[output]", 1)
    port = port_from(tmp_path, text)
    line = text.splitlines().index("reads = ['/etc/passwd']") + 1
    assert port.manifest_error is not None and f"language.toml:{line}: [[requires]] 'reads'" in port.manifest_error, port.manifest_error


@pytest.mark.parametrize(
    "name",
    ["CI_JOB_JWT", "CI_JOB_JWT_V2", "GH_PAT", "SLACK_WEBHOOK_URL", "DOCKER_AUTH_CONFIG", "SENTRY_DSN", "HANOI_PG_DSN", "GITHUB_TOKEN",
     "DB_PASS", "GPG_PASSPHRASE", "NPM_AUTH", "SSH_AUTH_SOCK", "AZURE_STORAGE_CONNECTION_STRING", "AWS_SECRET_ACCESS_KEY", "REGISTRY_CREDS",
     "MYHOOK", "SENTRYDSN", "DB_URI", "PIP_INDEX_URL", "CI_JOB_URL", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_VALUE_0",
     "MYSQL_PWD", "PWD_FILE", "SSHPASS", "PGPASSFILE", "REGISTRY_LOGIN", "CI_LOGIN_TOKEN"],
)
def test_a_name_that_says_secret_is_one(name):
    assert secret_name(name)


@pytest.mark.parametrize("name", ["PATH", "HOME", "GIT_AUTHOR_NAME", "PATCH_LEVEL", "LANG", "JAVA_HOME", "HANOI_VISIBLE", "PASSAGE", "CURLY", "PWD", "OLDPWD",
                                  "LOGINS", "LOGNAME"])
def test_a_name_that_does_not_is_not(name):
    assert not secret_name(name)


@pytest.mark.parametrize("kind", TOKENS)
def test_a_value_shaped_like_a_known_token_is_a_secret_and_is_masked_wherever_it_appears(kind):
    token = TOKENS[kind]
    assert secret_value(token)
    masked = Secrets({}).mask(f"the port printed: {token} and went on")
    assert masked.startswith("the port printed: ") and masked.endswith(" and went on"), masked
    secret = token.split("@")[0].rsplit(":", 1)[-1] if kind == "url with a password" else QUERY_SECRETS.get(kind, token)
    assert secret not in masked and "***" in masked, masked


@pytest.mark.parametrize("value", ["https://example.org/hanoi", "1", "hello world", "/usr/bin:/bin", "en_US.UTF-8", "eyJ-not-a-token", "ghp_short", "sk-short",
                                   "https://example.org/search?q=hanoi&page=2", "disk-usage-of-the-whole-tower-of-hanoi"])
def test_an_ordinary_value_is_no_secret(value):
    assert not secret_value(value)
    assert Secrets({}).mask(value) == value


def test_a_secret_under_another_name_is_masked_whole_and_its_password_alone():
    secrets = Secrets({"REDIS_URL": TOKENS["url with a password"], "BUILD_INFO": TOKENS["jwt"], "PATH": "/usr/bin"})
    masked = secrets.mask(f"{TOKENS['url with a password']} | s3cr3t-pw | {TOKENS['jwt']} | /usr/bin")
    assert "s3cr3t-pw" not in masked and TOKENS["jwt"] not in masked and masked.endswith("| /usr/bin"), masked


def test_no_secret_shaped_value_reaches_a_port(monkeypatch):
    for name, value in {"REDIS_URL": TOKENS["url with a password"], "BUILD_INFO": TOKENS["jwt"], "DEPLOY": TOKENS["github"], "PLAIN": "x"}.items():
        monkeypatch.setenv(name, value)
    environment = port_environment(["REDIS_URL", "BUILD_INFO", "DEPLOY", "PLAIN"], home="/tmp", tmpdir="/tmp", path="/bin")
    assert environment["PLAIN"] == "x"
    assert not {"REDIS_URL", "BUILD_INFO", "DEPLOY"} & set(environment)


@pytest.mark.parametrize("name", ["CI_JOB_JWT", "GH_PAT", "SLACK_WEBHOOK_URL", "DOCKER_AUTH_CONFIG", "SENTRY_DSN"])
def test_check_refuses_a_manifest_that_passes_a_secret_on_with_its_line(tmp_path, name):
    text = GOOD.replace("[output]", f'env = ["{name}"]\n[output]', 1)
    line = text.splitlines().index(f'env = ["{name}"]') + 1
    port = port_from(tmp_path, text)
    assert port.manifest_error is not None and f"language.toml:{line}: 'env' may not name {name}" in port.manifest_error, port.manifest_error


@pytest.mark.parametrize("text", ["eyJ-" * 50_000, "a." * 100_000, "a+b:" * 50_000, "sk_live_" * 25_000, "?token=abc&" * 20_000, "SG." * 60_000])
def test_masking_takes_a_time_linear_in_what_a_port_prints(text):
    """Each run of token characters is tried once: tried from every letter of it, 200 KB of these
    took minutes."""
    started = time.monotonic()
    assert Secrets({}).mask(text) == text
    assert time.monotonic() - started < 5


def test_a_root_given_relative_is_the_folder_it_names(monkeypatch):
    monkeypatch.chdir("/usr/share")
    said = refused_read("/usr/share/doc", [Path()])
    assert said is not None and "the folder that holds the ports" in said, said


def test_a_setting_under_a_secret_name_is_no_secret_to_mask():
    """``*AUTH*`` names settings too: their words stay in the reports, which would otherwise lose every 'true'."""
    secrets = Secrets({"DOCKER_AUTH_DISABLED": "true", "OAUTH_MODE": "None", "NPM_AUTH": "s3cr3t-npm-auth"})
    assert secrets.mask("true None s3cr3t-npm-auth") == "true None ***"


@pytest.fixture
def system_folder():
    """A fresh folder under /var/lib, where ``reads`` may name things (root alone may make one)."""
    folder = Path("/var/lib") / f"hanoi-test-{uuid.uuid4().hex[:8]}"
    try:
        folder.mkdir()
    except OSError as error:
        pytest.skip(f"cannot make a folder under /var/lib: {error}")
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.parametrize("variable", ["TMP", "TEMP"])
def test_the_temporary_folder_python_finds_is_refused_whichever_variable_names_it(monkeypatch, system_folder, variable):
    """Without TMPDIR, Python takes its temporary folder (the embedded PostgreSQL's) from TEMP or TMP."""
    monkeypatch.delenv("TMPDIR")
    monkeypatch.setenv(variable, str(system_folder))
    monkeypatch.setattr(tempfile, "tempdir", None)  # found afresh, as in a new process
    said = refused_read(f"{system_folder}/pg")
    assert said is not None and "temporary folder" in said, said


@pytest.mark.parametrize("within", ["", "/ci", "/contrib/other-port", "/.git"])
def test_the_whole_checkout_a_root_of_ports_is_in_is_refused(system_folder, within):
    (system_folder / ".git").mkdir()
    (system_folder / "contrib" / "peeker").mkdir(parents=True)
    said = refused_read(f"{system_folder}{within}", [system_folder / "contrib"])
    assert said is not None and ("the checkout" in said or "the folder that holds the ports" in said or "plain names" in said), said


def test_a_folder_above_the_ports_with_no_git_is_no_checkout(system_folder):
    (system_folder / "ci").mkdir()
    (system_folder / "contrib").mkdir()
    assert refused_read(f"{system_folder}/ci", [system_folder / "contrib"]) is None


def test_the_harnesss_own_source_is_refused(monkeypatch):
    monkeypatch.setattr(environment, "HARNESS_SOURCE", Path("/opt/hanoi/harness"))
    said = refused_read("/opt/hanoi/harness/runners")
    assert said is not None and "the harness's own source" in said, said


@pytest.mark.parametrize("within", ["", "/pg", "HOLDER"])
def test_a_folder_of_the_harnesss_own_user_is_refused_as_another_runs_temporary_folder(monkeypatch, system_folder, within):
    """Another run's TMPDIR under /var/lib: owned by the user who runs the harness, not by root."""
    run = system_folder / "run-tmp"
    (run / "pg").mkdir(parents=True)
    os.chown(run, 4242, 4242)
    monkeypatch.setattr(os, "geteuid", lambda: 4242)
    asked = str(system_folder) if within == "HOLDER" else f"{run}{within}"
    said = refused_read(asked)
    assert said is not None and "the harness's own user owns" in said, said


def test_a_folder_every_user_may_write_is_refused(system_folder):
    (system_folder / "shared").mkdir()
    (system_folder / "shared").chmod(0o1777)
    said = refused_read(str(system_folder))
    assert said is not None and "every user may write" in said, said


def test_a_folder_of_the_system_is_accepted(system_folder):
    (system_folder / "share").mkdir()
    assert refused_read(str(system_folder / "share")) is None
