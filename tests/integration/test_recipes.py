"""A port's own Containerfile is the port's code: its build reaches no network and is held to
``--build-timeout``, and either fault is the port's build error, leaving nothing of the build running.
The Debian packages its manifest names come from the harness's own step, beneath it."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import docker
import docker.errors
import pytest

from conftest import ROOT
from integration.conftest import Listener, compare_json

ISOLATION_PORTS = ROOT / "tests" / "isolation_ports"
BUILD_SECONDS = 5
GRACE_SECONDS = 20
"""How much longer than its --build-timeout a run with one cell, whose image build runs past it, may take:
the harness's start, the engine's answer, and a busy machine."""
LEFT_SECONDS = 10
"""How long the engine may take, after the run, to remove the stopped step's container."""


def recipe_port(root: Path, name: str, steps: str) -> Path:
    """A port that prints its moves with Bash, whose Containerfile adds ``steps`` to the base."""
    shutil.copytree(ISOLATION_PORTS / "ballast", root / name)
    (root / name / "Containerfile").write_text(f"ARG BASE=debian:bookworm-slim\nFROM ${{BASE}}\n{steps}\n")
    return root / name


def left_of(token: str) -> tuple[list[str], list[int]]:
    """What a build whose step names ``token`` left: the engine's containers that run it, and this
    machine's processes."""
    client = docker.from_env()
    try:
        containers = [c.id for c in client.containers.list(all=True, ignore_removed=True) if token in " ".join(c.attrs["Config"]["Cmd"] or [])]
    finally:
        client.close()
    processes = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        with contextlib.suppress(OSError):
            if token.encode() in cmdline.read_bytes():
                processes.append(int(cmdline.parent.name))
    return containers, processes


def remove_containers(ids: list[str]) -> None:
    client = docker.from_env()
    for id_ in ids:
        with contextlib.suppress(docker.errors.DockerException):
            client.containers.get(id_).remove(force=True)
    client.close()


def built_beside_a_listener(
    tmp_path: Path, run_tmpdir: Path, name: str, step: Callable[[str], str],
) -> tuple[int, subprocess.CompletedProcess[str], dict]:
    """A port whose Containerfile's step is ``step(address)``, the address (HOST/PORT) of a listener
    on this machine, compared in a container: how many connections the listener took, the run, and its one cell."""
    listener = Listener()
    recipe_port(tmp_path / "ports", name, step(listener.address))
    try:
        done, report = compare_json(tmp_path, "--n", "0", "--method", "recursive", "--isolation", "container", root=tmp_path / "ports", tmpdir=run_tmpdir)
    finally:
        listener.close()
    [cell] = report["cells"]
    return listener.accepted, done, cell


@pytest.mark.docker
def test_a_containerfile_reaches_no_network(tmp_path, docker_engine, run_tmpdir):
    """Its step connects to this machine's own address, which a container on Docker's default
    network reaches: the build has no network at all, so the connection is never made, and the cell
    is a build error that quotes the step's words."""
    token = uuid.uuid4().hex

    def step(address: str) -> str:
        host, port = address.split("/")
        return f'RUN ["bash", "-c", "echo {token}; exec 3<>/dev/tcp/{host}/{port}"]'

    accepted, done, cell = built_beside_a_listener(tmp_path, run_tmpdir, "reaching", step)
    assert accepted == 0, "the recipe's step reached the network"
    assert (cell["outcome"], cell["reason"]) == ("error", "build"), cell
    assert cell["detail"].startswith("building the image of reaching failed"), cell["detail"]
    assert "Network is unreachable" in cell["detail"] and "\x1b" not in cell["detail"], cell["detail"]
    assert "Traceback" not in done.stderr


@pytest.mark.docker
@pytest.mark.parametrize(
    ("step", "refused"),
    [
        ("ADD http://{address}/{token} /fetched", "line 3: ADD fetches what a URL names, past the build's walls: use COPY"),
        ("COPY --from=hanoi-polyglot/base:bookworm /etc/hostname /{token}", "line 3: COPY --from=hanoi-polyglot/base:bookworm: a port copies"),
    ],
    ids=["add-a-url", "copy-from-another-image"],
)
def test_a_containerfile_takes_nothing_the_engine_fetches_for_it(tmp_path, docker_engine, run_tmpdir, step, refused):
    """The engine itself fetches what ADD names by URL, network or not, and reads any image it holds
    that COPY --from names: the harness refuses such a recipe before the engine sees it, and
    nothing is fetched."""
    token = uuid.uuid4().hex
    accepted, done, cell = built_beside_a_listener(
        tmp_path, run_tmpdir, "fetching", lambda address: step.format(address=address.replace("/", ":"), token=token),
    )
    assert accepted == 0, "the engine fetched what the recipe named"
    assert (cell["outcome"], cell["reason"]) == ("error", "build"), cell
    assert cell["detail"].startswith(f"building the image of fetching failed: its Containerfile {refused}"), cell["detail"]


@pytest.mark.docker
def test_a_containerfile_that_runs_past_the_build_timeout_is_a_build_error_and_leaves_nothing(tmp_path, docker_engine, run_tmpdir):
    """A step that would sleep 150 s, under --build-timeout 5: the build is stopped at its time, the
    cell says so, and neither the step's container nor its processes outlive the run."""
    token = str(uuid.uuid4().int)[:16]  # in the shell's command line, and in sleep's as its fraction of a second
    recipe_port(tmp_path / "ports", "sleeping", f"RUN echo {token} && sleep 150.{token}")
    started = time.monotonic()
    try:
        done, report = compare_json(
            tmp_path, "--n", "0", "--method", "recursive", "--isolation", "container", "--timeout", str(BUILD_SECONDS), "--build-timeout", str(BUILD_SECONDS),
            root=tmp_path / "ports", tmpdir=run_tmpdir,
        )
        took = time.monotonic() - started
        left = left_of(token)
        deadline = time.monotonic() + LEFT_SECONDS
        while left != ([], []) and time.monotonic() < deadline:
            time.sleep(0.2)
            left = left_of(token)
    finally:
        remove_containers(left_of(token)[0])
    assert took < BUILD_SECONDS + GRACE_SECONDS, f"the run took {took:.0f} s"
    [cell] = report["cells"]
    assert (cell["outcome"], cell["reason"]) == ("error", "build"), cell
    assert cell["detail"].startswith(f"building the image of sleeping ran past its {BUILD_SECONDS} s (--build-timeout)"), cell["detail"]
    assert left == ([], []), "the build ran on after the run"
    assert "Traceback" not in done.stderr


@pytest.mark.docker
def test_an_image_whose_context_takes_past_the_build_timeout_is_never_tagged(tmp_path, docker_engine, run_tmpdir):
    """A port's folder of almost 1 GiB (a sparse file, within the bound on a context) under
    --build-timeout 1: packing and sending it takes the build's time, so the build is its error,
    and no image of the port is tagged, which a later run would find and take for built in time."""
    root = tmp_path / "ports"
    recipe_port(root, "packed", "")
    (root / "packed" / "fresh").write_text(uuid.uuid4().hex)  # an image of its own, never one an earlier run left
    with (root / "packed" / "blob").open("wb") as blob:
        blob.truncate(1000 << 20)
    client = docker.from_env()
    try:
        before = {tag for image in client.images.list(name="hanoi-polyglot/packed") for tag in image.tags}
        started = time.monotonic()
        done, report = compare_json(
            tmp_path, "--n", "0", "--method", "recursive", "--isolation", "container", "--timeout", str(BUILD_SECONDS), "--build-timeout", "1",
            root=root, tmpdir=run_tmpdir,
        )
        took = time.monotonic() - started
        after = {tag for image in client.images.list(name="hanoi-polyglot/packed") for tag in image.tags}
    finally:
        client.close()
    [cell] = report["cells"]
    assert (cell["outcome"], cell["reason"]) == ("error", "build"), cell
    assert cell["detail"].startswith("building the image of packed ran past its 1 s (--build-timeout)"), cell["detail"]
    assert after == before, f"tagged after its time: {sorted(after - before)}"
    assert took < 1 + GRACE_SECONDS, f"the run took {took:.0f} s"
    assert "Traceback" not in done.stderr


@pytest.mark.docker
def test_a_containerfile_is_built_on_the_packages_its_manifest_names(tmp_path, docker_engine, run_tmpdir):
    """Tcl is not on the base, and the recipe, with no network, cannot fetch it: the harness's own
    step installs the package the manifest names beneath it, and the recipe's step uses it."""
    root = tmp_path / "ports"
    shutil.copytree(ROOT / "tests" / "contributed" / "tcl-to-b", root / "tcl-recipe")
    (root / "tcl-recipe" / "Containerfile").write_text(
        f"ARG BASE=debian:bookworm-slim\nFROM ${{BASE}}\nRUN echo 'puts {uuid.uuid4().hex}' | tclsh\n",
    )
    done, report = compare_json(tmp_path, "--n", "0-2", "--isolation", "container", root=root, tmpdir=run_tmpdir)
    assert done.returncode == 0, done.stdout + done.stderr
    assert [(cell["n"], cell["outcome"]) for cell in report["cells"] if cell["method"] == "recursive"] == [(n, "pass") for n in range(3)]


@pytest.mark.docker
def test_the_package_step_gives_apt_only_names_its_lists_hold_exactly(tmp_path, docker_engine, run_tmpdir):
    """``zlib1g.de`` is a Debian name by the grammar, but apt's lists hold no package of that name,
    and apt-get would read it as a pattern (``zlib1g-dev`` among what it matches): the image is not
    built, and the cell's build error names it."""
    root = tmp_path / "ports"
    shutil.copytree(ISOLATION_PORTS / "ballast", root / "patterned")
    manifest = root / "patterned" / "language.toml"
    manifest.write_text(manifest.read_text().replace('executable = "bash"\n', 'executable = "bash"\ndebian = "bash zlib1g.de"\n', 1))
    done, report = compare_json(tmp_path, "--n", "0", "--isolation", "container", root=root, tmpdir=run_tmpdir)
    [cell] = [cell for cell in report["cells"] if cell["method"] == "recursive"]
    assert (cell["outcome"], cell["reason"]) == ("error", "build"), cell
    assert "apt's lists hold no package named zlib1g.de" in cell["detail"], cell["detail"]
    assert "Traceback" not in done.stderr
