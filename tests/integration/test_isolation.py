"""Isolation as a contract: hostile ports (tests/isolation_ports) in each mode. Under sandbox
and container, a network connection and a write outside the port's folder are refused; in every
mode, the memory and process limits and the deadline hold, a crossing is an error that names the
limit, and a daemon a port leaves behind is gone when its cell ends."""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
import time

import docker
import pytest

from conftest import HEADLINE, ROOT, suite, valid_report
from harness.discover import MANIFEST, load_port
from harness.limits import Limits
from harness.runners.images import PORT_LABEL, image_name
from harness.runners.modes.container import NO_EXIT_CODE, ContainerCell, PortContainers
from harness.runners.modes.sandbox import sandboxed
from integration.conftest import (
    NO_SANDBOX,
    REAL_PORTS,
    Listener,
    compare_json,
    harness,
    harness_process,
    needs_bubblewrap,
    offered,
    port_containers,
    reference_digest,
)

HOSTILE = ("hostile-memory", "hostile-forks", "hostile-daemon", "hostile-write", "hostile-hang")
ISOLATION_PORTS = ROOT / "tests" / "isolation_ports"
ESCAPED = ISOLATION_PORTS / "hostile-write-escaped"
LIMITS = ("--memory", "256M", "--processes", "64", "--timeout", "5")


@pytest.mark.docker
def test_hostile_ports_are_named_outcomes(tmp_path, mode, run_tmpdir):
    root = suite(tmp_path, *HOSTILE, real=(), fakes_from=ISOLATION_PORTS)
    shutil.copytree(ISOLATION_PORTS / "hostile-network", root / "hostile-network")
    listener = Listener()
    (root / "hostile-network" / "address").write_text(listener.address)
    try:
        # harness() checks that nothing carrying this TMPDIR runs on after it: the daemon, outside a
        # container; in one, the daemon goes with its container
        done, report = compare_json(tmp_path, "--n", "0", "--method", "binary", "--isolation", mode, *LIMITS, root=root, tmpdir=run_tmpdir)
        escaped = ESCAPED.exists()
        containers = port_containers(run_tmpdir) if mode == "container" else set()
    finally:
        listener.close()
        ESCAPED.unlink(missing_ok=True)
    cells = {cell["port"]: cell for cell in report["cells"]}
    assert done.returncode == 1, done.stdout + done.stderr

    assert cells["hostile-memory"]["outcome"] == "error"
    assert cells["hostile-memory"]["detail"].startswith("used more than 256 MiB of memory after 0 moves")
    assert cells["hostile-forks"]["outcome"] == "error"
    assert cells["hostile-forks"]["detail"].startswith("tried to run more than 64 processes at once after 0 moves")
    assert (cells["hostile-hang"]["outcome"], cells["hostile-hang"]["detail"]) == ("error", "timed out after 5 s, having printed 0 moves")
    assert cells["hostile-daemon"]["outcome"] == "pass"
    assert containers == set()

    if mode == "subprocess":  # nothing but the limits holds a port here
        assert (cells["hostile-network"]["outcome"], listener.accepted) == ("pass", 1)
        assert (cells["hostile-write"]["outcome"], escaped) == ("pass", True)
    else:
        assert cells["hostile-network"]["outcome"] == "error"
        assert "Network is unreachable" in cells["hostile-network"]["detail"], cells["hostile-network"]["detail"]
        assert listener.accepted == 0
        assert cells["hostile-write"]["outcome"] == "error"
        assert "Read-only file system" in cells["hostile-write"]["detail"], cells["hostile-write"]["detail"]
        assert not escaped


@needs_bubblewrap
def test_a_port_inside_the_sandboxs_private_tmp_still_meets_a_read_only_machine(tmp_path, run_tmpdir):
    """A checkout under /tmp lies inside the sandbox's private /tmp: what surrounds the port there is
    read-only all the same, so whether a port passes does not hang on where its checkout is."""
    root = run_tmpdir / "checkout" / "ports"  # inside the harness's TMPDIR, which the sandbox makes private
    shutil.copytree(ISOLATION_PORTS / "hostile-write", root / "hostile-write")
    report = tmp_path / "report.json"
    done = harness("--root", str(root), "compare", "--n", "0", "--isolation", "sandbox", "--json", str(report), tmpdir=run_tmpdir)
    cell = valid_report(json.loads(report.read_text()))["cells"][0]
    assert done.returncode == 1, done.stdout + done.stderr
    assert cell["outcome"] == "error" and "Read-only file system" in cell["detail"], cell


SANDBOX_PROBE = """
cat hanoi.txt >/dev/null && echo folder-readable
echo x 2>/dev/null > ../beside && echo beside-writable || echo beside-read-only
echo y > "$TMPDIR/scratch" && echo tmpdir-writable
echo z > /tmp/scratch && echo tmp-writable
[ -z "$1" ] || { cat "$1" >/dev/null && echo build-readable; }
"""


@needs_bubblewrap
@pytest.mark.parametrize(
    ("tmpdir_at", "folder", "build"),
    [
        ("t", "t/checkout/ports/p", ""),  # the folder inside TMPDIR
        ("c/t", "c", "c/t/cache/0123/program"),  # TMPDIR, and the build in it, inside the folder
        ("checkout/tmp", "checkout/ports/p", "checkout/tmp/cache/0123/program"),  # TMPDIR beside the folder
    ],
)
def test_the_sandbox_keeps_its_promises_however_its_folders_nest(tmp_path, monkeypatch, tmpdir_at, folder, build):
    """Wherever TMPDIR, the port's folder and its build lie, the last two are readable, beside the
    folder is read-only, TMPDIR and /tmp are private and writable, and nothing reaches this machine."""
    for path in (tmp_path / tmpdir_at, tmp_path / folder):
        path.mkdir(parents=True, exist_ok=True)
    (tmp_path / folder / "hanoi.txt").write_text("the port\n")
    binary = tmp_path / build if build else None
    if binary:
        binary.parent.mkdir(parents=True)
        binary.write_text("the build\n")
    before = sorted(tmp_path.rglob("*"))
    monkeypatch.setenv("TMPDIR", str(tmp_path / tmpdir_at))
    readable = [tmp_path / folder, *([binary.parent] if binary else [])]
    argv = sandboxed(["sh", "-c", SANDBOX_PROBE, "probe", str(binary or "")], tmp_path / folder, readable)
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["folder-readable", "beside-read-only", "tmpdir-writable", "tmp-writable"] + ["build-readable"] * bool(binary), (
        done.stdout + done.stderr
    )
    assert sorted(tmp_path.rglob("*")) == before


@needs_bubblewrap
def test_what_a_sandbox_shows_under_tmp_another_user_may_reach(tmp_path):
    """A checkout under /tmp (a CI's clone, say) and its virtual environment, deep inside it: the
    embedded server, which root's sandbox runs as a user of its own, must reach its programs there
    through the folders the sandbox makes on the way, which bubblewrap would make for root alone."""
    if os.geteuid() != 0:
        pytest.skip("only root's sandbox runs a program as another user")
    shown = tmp_path / "clone" / ".venv" / "lib" / "site-packages" / "pginstall"
    shown.mkdir(parents=True)
    (shown / "program").write_text("reached\n")
    for path in (shown, *shown.parents):
        if path == tmp_path.parent:
            break
        path.chmod(0o755)
    argv = sandboxed(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "cat", str(shown / "program")], tmp_path, [shown], own_users=False)
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert done.stdout == "reached\n", done.stderr


@pytest.mark.docker
def test_a_port_reading_n_on_standard_input_is_fed_in_every_mode(tmp_path, mode):
    root = suite(tmp_path, "stdin-reader", real=(), fakes_from=ISOLATION_PORTS)
    done, report = compare_json(tmp_path, "--n", "0-4", "--method", "recursive", "--isolation", mode, root=root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert [(cell["n"], cell["outcome"]) for cell in report["cells"]] == [(n, "pass") for n in range(5)]


@pytest.mark.docker
@pytest.mark.parametrize("isolated", ["sandbox", "container"])
def test_every_port_agrees_when_isolated(tmp_path, isolated, request, run_tmpdir):
    if isolated == "sandbox" and NO_SANDBOX:
        pytest.skip(NO_SANDBOX)
    ports = HEADLINE if isolated == "container" else REAL_PORTS  # every port's image: make compare-all and CI's per-port jobs
    if isolated == "container":
        request.getfixturevalue("docker_engine")
    done, report = compare_json(tmp_path, "--n", "0,1,4", "--isolation", isolated, "--lang", ",".join(ports), tmpdir=run_tmpdir)
    assert done.returncode == 0, done.stdout + done.stderr
    if isolated == "container":
        assert port_containers(run_tmpdir) == set(), "a port's container outlived the run"
    assert {cell["port"] for cell in report["cells"]} == set(ports)
    for cell in report["cells"]:
        if cell["port"] in offered(cell["method"], cell["n"]):
            assert (cell["outcome"], cell["digest"]) == ("pass", reference_digest(cell["n"], cell["method"])), cell
        else:
            assert cell["outcome"] == "skipped", cell


@pytest.mark.docker
def test_a_runs_containers_carry_its_tmpdir_and_go_when_it_closes(tmp_path, docker_engine, monkeypatch):
    """What the checks above look for: each container a run starts is labelled with the run's TMPDIR."""
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    port = load_port(ISOLATION_PORTS / "stdin-reader" / MANIFEST)
    with PortContainers(Limits()) as containers:
        started = containers.start(port).container.id
        assert port_containers(tmp_path) == {started}
    assert port_containers(tmp_path) == set()


@pytest.mark.docker
@pytest.mark.parametrize(("unknown_for", "output", "failure"), [(0.8, b"1 0 2\n", None), (math.inf, b"1 0 2\n", NO_EXIT_CODE)])
def test_an_exec_with_no_exit_code_yet_has_not_ended(docker_engine, monkeypatch, unknown_for, output, failure):
    """The engine answers an exec's start before it starts the program, and until then says it is
    not running and has no exit code; under load that lasts. The cell waits for its program all the
    same, and one that never gets an exit code is an error, not an exit code of 0."""
    with PortContainers(Limits()) as containers:
        container = containers.start(load_port(ISOLATION_PORTS / "stdin-reader" / MANIFEST))
        inspect, started = container.engine.client.api.exec_inspect, time.monotonic()

        def not_started_yet(exec_id: str) -> dict:
            state = inspect(exec_id)
            return {**state, "Running": False, "ExitCode": None} if time.monotonic() - started < unknown_for else state

        monkeypatch.setattr(container.engine.client.api, "exec_inspect", not_started_yet)
        with ContainerCell(container, ["sh", "-c", "sleep 0.3; echo 1 0 2"], timeout=30, done=lambda: None) as cell:
            printed = b"".join(cell.output())
            assert (printed, cell.finish().failure) == (output, failure)


@pytest.mark.docker
def test_the_next_run_removes_the_containers_a_killed_run_left(tmp_path, docker_engine, run_tmpdir):
    """SIGKILL leaves the harness no chance to remove its containers: the next run in the same
    temporary folder that uses the engine does, and says so."""
    root = suite(tmp_path, "hostile-hang", real=(), fakes_from=ISOLATION_PORTS)
    with (tmp_path / "stderr").open("w+") as stderr:
        killed = harness_process(
            "--root", str(root), "compare", "--n", "0", "--isolation", "container", "--timeout", "120",
            tmpdir=run_tmpdir, stdout=subprocess.DEVNULL, stderr=stderr,
        )
        deadline = time.monotonic() + 300  # the port's image may be built first
        while not port_containers(run_tmpdir) and killed.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        killed.kill()
        killed.wait(timeout=30)
        stderr.seek(0)
        left = port_containers(run_tmpdir)
        # the cell's container, and the one that asks the image's interpreter its version, if it still ran
        assert len(left) in (1, 2), f"the killed run had started no container, or it is gone already: {stderr.read()}"

    done = harness("--root", str(root), "list", "--isolation", "container", tmpdir=run_tmpdir)
    assert done.returncode == 0, done.stdout + done.stderr
    said = f"{len(left)} container{'s' * (len(left) != 1)}"
    assert done.stderr.startswith(f"harness: removed what an earlier, killed run left behind: {said}\n"), done.stderr
    assert port_containers(run_tmpdir) == set()


def test_the_sandbox_without_bubblewrap_skips_saying_how(tmp_path):
    tools = tmp_path / "bin"  # bash, but no bwrap
    tools.mkdir()
    (tools / "bash").symlink_to(shutil.which("bash"))
    done, report = compare_json(
        tmp_path, "--n", "2", "--lang", "bash", "--method", "binary", "--isolation", "sandbox", env={"PATH": str(tools)}
    )
    [cell] = report["cells"]
    assert done.returncode == 0, done.stdout + done.stderr
    assert cell["outcome"] == "skipped"
    assert cell["detail"] == "the sandbox needs bubblewrap, and bwrap is not on PATH; Debian: apt-get install bubblewrap"


def test_a_bubblewrap_that_cannot_make_its_namespaces_skips_the_sandbox_saying_what_to_do(tmp_path):
    """As bwrap fails for a user who is not root on Ubuntu 24.04, whose AppArmor restricts user namespaces."""
    tools = tmp_path / "bin"
    tools.mkdir()
    (tools / "bash").symlink_to(shutil.which("bash"))
    (tools / "bwrap").write_text("#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n")
    (tools / "bwrap").chmod(0o755)
    done, report = compare_json(
        tmp_path, "--n", "2", "--lang", "bash", "--method", "binary", "--isolation", "sandbox", env={"PATH": str(tools)}
    )
    [cell] = report["cells"]
    assert done.returncode == 0 and cell["outcome"] == "skipped", done.stdout + done.stderr
    assert cell["detail"].startswith("bwrap cannot make a sandbox here (bwrap: setting up uid map: Permission denied); ")
    assert "sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0" in cell["detail"]
    strict = harness("compare", "--n", "2", "--lang", "bash", "--method", "binary", "--isolation", "sandbox", "--strict", env={"PATH": str(tools)})
    assert strict.returncode == 1 and "kernel.apparmor_restrict_unprivileged_userns" in strict.stdout
    doctor = harness("doctor", env={"PATH": f"{tools}{os.pathsep}{os.environ['PATH']}"})
    assert "sandbox      UNAVAILABLE: bwrap cannot make a sandbox here" in doctor.stdout


@pytest.mark.docker
def test_list_in_containers_shows_the_images_interpreters(docker_engine):
    headline = ",".join(HEADLINE)  # every port's image: make compare-all, not every test run
    done = harness("list", "--isolation", "container", "--lang", headline)
    assert done.returncode == 0, done.stdout + done.stderr
    # no version command run, and no server started, for list
    assert "sql: binary, recursive, iterative, cyclic; found postgresql (version not asked: harness list --verbose asks it)" in done.stdout
    verbose = harness("list", "--isolation", "container", "--verbose", "--lang", headline)
    assert verbose.returncode == 0 and re.search(r"found PostgreSQL [0-9.]+ \(docker\)", verbose.stdout), verbose.stdout
    for version in ("GNU bash 5", "Python 3", "SWI-Prolog version 9", "c++ (Debian"):
        assert version in verbose.stdout, verbose.stdout


@pytest.mark.docker
def test_a_port_without_a_containerfile_runs_on_the_debian_packages_its_manifest_names(tmp_path, docker_engine):
    root = suite(tmp_path, "tcl-to-b", real=(), fakes_from=ROOT / "tests" / "contributed")
    assert not (root / "tcl-to-b" / "Containerfile").exists()  # tclsh is not on the base: only the manifest's "tcl" brings it
    done, report = compare_json(tmp_path, "--n", "0-4", "--isolation", "container", root=root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert [(cell["n"], cell["outcome"]) for cell in report["cells"] if cell["method"] == "recursive"] == [(n, "pass") for n in range(5)]
    assert report["ports"]["tcl-to-b"]["versions"]["tclsh"].startswith("Tcl 8."), report["ports"]


@pytest.mark.docker
def test_a_port_without_a_containerfile_whose_manifest_names_no_package_is_an_error_saying_how(tmp_path, docker_engine):
    root = tmp_path / "ports"
    shutil.copytree(ISOLATION_PORTS / "stdin-reader", root / "stdin-reader", ignore=shutil.ignore_patterns("Containerfile"))
    done, report = compare_json(tmp_path, "--n", "2", "--isolation", "container", root=root)
    assert done.returncode == 1, done.stdout + done.stderr
    [cell] = [cell for cell in report["cells"] if cell["method"] == "recursive"]
    assert cell["outcome"] == "error"
    assert cell["detail"] == (
        'stdin-reader has no Containerfile, and its manifest names no Debian package for bash: '
        'add debian = "PACKAGE" to that [[requires]], or write a Containerfile'
    )


@pytest.mark.docker
def test_a_program_missing_from_its_image_is_a_crash_saying_it_was_not_found(tmp_path, docker_engine):
    root = suite(tmp_path, "missing-in-image", real=(), fakes_from=ISOLATION_PORTS)
    done, report = compare_json(tmp_path, "--n", "2", "--method", "recursive", "--isolation", "container", root=root)
    assert done.returncode == 1
    [cell] = report["cells"]
    assert (cell["outcome"], cell["reason"]) == ("error", "crash"), cell
    assert cell["detail"].startswith("exited with code 127 after 0 moves; stderr:"), cell["detail"]
    assert "ghost-interpreter: not found" in cell["detail"]


HOSTILE_NAMES = ("<svg onload=alert(1)>", "--help", "Bash")
"""Port folders named what Docker takes in no image's name: markup, an option, capitals."""
DOCKER_NAME = re.compile("[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*")
"""A repository's name as Docker's reference grammar allows it (distribution/reference)."""


@pytest.mark.parametrize("name", [*HOSTILE_NAMES, "python", "py\udcfe", "-", "a" * 300])
def test_an_images_name_is_one_docker_takes_whatever_the_port_is_called(name):
    made = image_name(name)
    assert DOCKER_NAME.fullmatch(made) and len(made) < 100, made
    assert made == "hanoi-polyglot/python" if name == "python" else made != image_name(name + "x")


@pytest.mark.docker
def test_ports_named_what_no_image_may_be_called_run_in_their_containers(tmp_path, docker_engine, run_tmpdir):
    root = suite(tmp_path, real=("bash",))
    for name in HOSTILE_NAMES:
        shutil.copytree(ROOT / "bash", root / name)
    done, report = compare_json(tmp_path, "--n", "3", "--method", "recursive,cyclic", "--isolation", "container", root=root, tmpdir=run_tmpdir)
    assert "Traceback" not in done.stdout + done.stderr
    assert done.returncode == 0, done.stdout + done.stderr
    assert {(cell["port"], cell["method"], cell["outcome"]) for cell in report["cells"]} == {
        (port, method, "pass") for port in ("bash", *HOSTILE_NAMES) for method in ("recursive", "cyclic")
    }
    assert port_containers(run_tmpdir) == set(), "a port's container outlived the run"
    client = docker.from_env()
    try:
        labelled = {image.labels[PORT_LABEL] for image in client.images.list(filters={"label": PORT_LABEL})}
    finally:
        client.close()
    assert set(HOSTILE_NAMES) <= labelled


def test_each_private_folder_of_the_sandbox_is_bounded_in_size(tmp_path):
    argv = sandboxed(["true"], tmp_path, readable=[tmp_path], size=32 << 20)
    tmpfs = [index for index, part in enumerate(argv) if part == "--tmpfs"]
    assert tmpfs and all(argv[index - 2:index] == ["--size", str(32 << 20)] for index in tmpfs), argv
