"""What holds a port in, and what a port never sees: the sandbox reaches no host socket, a port held
in the sandbox or a container sees an allowlisted environment, no report shows the harness's
secrets, each containerised cell starts from its image as built, a Docker engine that stops
answering is an error naming it (and Ctrl-C still ends the run), and the sweep of a killed run
never touches a live run in another process namespace. Each with a fake of this suite's own."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import docker
import docker.errors
import pytest

from conftest import ROOT, harness_here, started_in, suite
from harness import gate, patience
from harness.discover import MANIFEST, load_port
from harness.environment import Secrets, port_environment
from harness.errors import ContainerError
from harness.limits import Limits
from harness.patience import MOST_STRETCH
from harness.runners.modes.container import PortContainer, PortContainers
from harness.runners.process import HARNESS, PID_SPACE, alive
from integration.conftest import compare_json, harness, harness_process, needs_bubblewrap, port_containers, serve_each

ISOLATION_PORTS = ROOT / "tests" / "isolation_ports"
TOKEN = "ghp_" + "x7Kq2Lw9" * 4
PASSWORD = "s3cret-Pa55word"
DSN = f"postgresql://tester:{PASSWORD}@127.0.0.1:9/nowhere"
SECRET_ENVIRONMENT = {"GITHUB_TOKEN": TOKEN, "HANOI_PG_DSN": DSN, "HANOI_VISIBLE": "seen-by-its-manifest"}


class UnixListener:
    """A Unix socket in the machine's /run, where services keep theirs, that answers HTTP as the
    Docker engine's does, and counts who asked."""

    def __init__(self) -> None:
        self.path = Path("/run") / f"hanoi-test-{uuid.uuid4().hex[:12]}.sock"
        self.server = socket.socket(socket.AF_UNIX)
        self.server.bind(str(self.path))
        self.server.listen()
        self.accepted = 0
        serve_each(self.server, self._answer)

    def _answer(self, connection: socket.socket) -> None:
        self.accepted += 1
        connection.recv(1024)
        connection.sendall(b"HTTP/1.0 200 OK\r\n\r\nOK")
        connection.close()

    def close(self) -> None:
        self.server.close()
        self.path.unlink(missing_ok=True)


@pytest.fixture
def host_socket():
    if not os.access("/run", os.W_OK):
        pytest.skip("this test makes a socket in /run, which this user may not write")
    listener = UnixListener()
    yield listener
    listener.close()


@pytest.mark.parametrize("isolated", ["subprocess", pytest.param("sandbox", marks=needs_bubblewrap)])
def test_the_sandbox_reaches_no_host_socket(tmp_path, host_socket, isolated, run_tmpdir):
    """As a port would reach /var/run/docker.sock: outside the sandbox it answers, which shows the fake
    works; inside, /run is empty and the socket is not there to connect to."""
    root = tmp_path / "ports"
    shutil.copytree(ISOLATION_PORTS / "hostile-socket", root / "hostile-socket")
    (root / "hostile-socket" / "socket").write_text(str(host_socket.path))
    _, report = compare_json(tmp_path, "--n", "0", "--method", "binary", "--isolation", isolated, root=root, tmpdir=run_tmpdir)
    [cell] = report["cells"]
    if isolated == "subprocess":
        assert "the socket answered: b'HTTP/1.0 200 OK" in cell["detail"], cell
        assert host_socket.accepted == 1
    else:
        assert "FileNotFoundError" in cell["detail"], cell
        assert host_socket.accepted == 0


@needs_bubblewrap
def test_the_sandbox_reaches_no_docker_engine(tmp_path, docker_engine, run_tmpdir):
    engine_socket = Path("/var/run/docker.sock")
    if not engine_socket.exists():
        pytest.skip("the Docker engine here listens elsewhere than /var/run/docker.sock")
    root = tmp_path / "ports"
    shutil.copytree(ISOLATION_PORTS / "hostile-socket", root / "hostile-socket")
    (root / "hostile-socket" / "socket").write_text(str(engine_socket))
    _, report = compare_json(tmp_path, "--n", "0", "--method", "binary", "--isolation", "sandbox", root=root, tmpdir=run_tmpdir)
    [cell] = report["cells"]
    assert "FileNotFoundError" in cell["detail"] and "answered" not in cell["detail"], cell


def test_a_port_sees_an_allowlist_and_no_report_shows_a_secret(tmp_path, mode, run_tmpdir):
    """A port that prints its environment: held (sandbox, container), it sees no secret at all, and
    the one variable its manifest names; in a plain subprocess it sees everything, and the reports
    mask the secrets' values, whole or in part (a DSN's password alone)."""
    root = suite(tmp_path, "prints-environment", real=(), fakes_from=ISOLATION_PORTS)
    junit, markdown = tmp_path / "report.xml", tmp_path / "report.md"
    done, report = compare_json(
        tmp_path, "--n", "0", "--method", "binary", "--isolation", mode, "--junit", str(junit), "--markdown", str(markdown),
        root=root, env=SECRET_ENVIRONMENT, tmpdir=run_tmpdir,
    )
    [cell] = report["cells"]
    assert cell["reason"] == "crash", cell
    shown = [done.stdout, done.stderr, json.dumps(report), junit.read_text(), markdown.read_text()]
    for text in shown:
        assert TOKEN not in text and PASSWORD not in text
    names = cell["detail"].split("names: ", 1)[1].split(" | ", 1)[0].split()
    # what its manifest passes it, it sees; and no report quotes it, as it might be a secret no pattern tells
    assert "HANOI_VISIBLE=***" in cell["detail"] and "seen-by-its-manifest" not in " ".join(shown), cell["detail"]
    if mode == "subprocess":
        assert {"GITHUB_TOKEN", "HANOI_PG_DSN"} <= set(names)
        assert "GITHUB_TOKEN=***" in cell["detail"] and "password alone: ***" in cell["detail"], cell["detail"]
    else:
        assert not {"GITHUB_TOKEN", "HANOI_PG_DSN", "PIP_DISABLE_PIP_VERSION_CHECK"} & set(names), names
        assert "HOME=/tmp" in cell["detail"]


def test_a_manifest_may_not_pass_a_secret_on(tmp_path):
    folder = tmp_path / "wants-token"
    folder.mkdir()
    (folder / MANIFEST).write_text(
        'command = ["true", "{n}"]\nmethods = ["binary"]\nenv = ["GITHUB_TOKEN"]\n'
        '[output]\npatterns = [\'(?P<src>\\d) (?P<dst>\\d)\']\npegs = ["0", "1", "2"]\n'
    )
    port = load_port(folder / MANIFEST)
    assert port.manifest_error and "'env' may not name GITHUB_TOKEN" in port.manifest_error


def test_secrets_are_masked_longest_first_and_short_values_are_no_secrets():
    secrets = Secrets({"API_KEY": "abcdef", "DEPLOY_TOKEN": "abcdefgh", "SOME_KEY": "1", "PATH": "/usr/bin"})
    assert secrets.mask("abcdefgh abcdef 1 /usr/bin") == "*** *** 1 /usr/bin"
    environment = port_environment(["HOME_OF_TOOL"], home="/tmp", tmpdir="/tmp", path="/bin")
    assert environment["PATH"] == "/bin" and environment["HOME"] == "/tmp"


@pytest.mark.parametrize("isolated", [pytest.param("sandbox", marks=needs_bubblewrap), pytest.param("container", marks=pytest.mark.docker)])
def test_what_one_cell_leaves_never_reaches_the_next(tmp_path, isolated, run_tmpdir, request):
    """Each cell leaves 120 MB in its temporary folder: under a 256 MiB limit, one at a time, every
    cell still passes, because each starts from nothing."""
    if isolated == "container":
        request.getfixturevalue("docker_engine")
    root = suite(tmp_path, "ballast", real=(), fakes_from=ISOLATION_PORTS)
    done, report = compare_json(
        tmp_path, "--n", "1-5", "--method", "recursive", "--memory", "256M", "--jobs", "1", "--isolation", isolated, root=root, tmpdir=run_tmpdir
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert [cell["outcome"] for cell in report["cells"]] == ["pass"] * 5, report["cells"]
    if isolated == "container":
        assert port_containers(run_tmpdir) == set()


def test_a_failed_image_is_made_once_a_run(tmp_path, monkeypatch):
    """However many cells ask for a port's image, a run makes it once, and says why it failed each time."""
    made = []

    def failing(*args, **kwargs):
        made.append(args)
        raise ContainerError("building the image of ballast failed: E: Unable to locate package no-such-package")

    class Engine:
        client = None

        def call(self, what, function, *args, **kwargs):
            return function(*args, **kwargs)

    monkeypatch.setattr(PortContainers, "engine", lambda self: Engine())
    monkeypatch.setattr("harness.runners.modes.container.port_image", failing)
    containers = PortContainers(Limits())
    port = load_port(ISOLATION_PORTS / "ballast" / MANIFEST)
    for _ in range(3):
        with pytest.raises(ContainerError, match="Unable to locate package"):
            containers.image(port)
    assert len(made) == 1


def test_killing_what_a_cell_left_waits_no_longer_than_the_engine_may_take(monkeypatch):
    """The kill of what a cell left runs as an exec in its container: one whose output stream the
    engine never ends (a frozen engine, which the SDK's reading of an attached exec would wait on
    for ever) holds the cell no longer than a call into the engine may take."""
    started, forever = [], threading.Event()

    class Api:
        def exec_create(self, container, argv, **kwargs):
            return {"Id": "killer"}

        def exec_start(self, exec_id, detach=False, **kwargs):
            started.append(exec_id)
            if not detach:
                forever.wait()  # the attached stream, read with no time limit
            return b""

        def exec_inspect(self, exec_id):
            return {"ExitCode": None, "Running": True}  # the engine never says it ended

    class Engine:
        timeout = 1.0
        client = type("Client", (), {"api": Api()})()

        def call(self, what, function, *args, **kwargs):
            return function(*args, **kwargs)

    container = PortContainer.__new__(PortContainer)
    container.engine, container.name, container.user, container.group = Engine(), "ballast", "65534:65534", None
    container.container = type("Container", (), {"id": "cell"})()
    killing = threading.Thread(target=container.kill_cell, daemon=True)
    killing.start()
    killing.join(Engine.timeout + 5)
    forever.set()
    assert started == ["killer"]
    assert not killing.is_alive(), "the kill waited on the engine's stream"


@pytest.mark.docker
def test_a_failed_image_build_is_each_cells_error(tmp_path, docker_engine, run_tmpdir):
    root = tmp_path / "ports"
    shutil.copytree(ISOLATION_PORTS / "ballast", root / "no-image")
    (root / "no-image" / "Containerfile").write_text(f"ARG BASE=debian:bookworm-slim\nFROM ${{BASE}}\nRUN echo {uuid.uuid4().hex} && false\n")
    done, report = compare_json(tmp_path, "--n", "0-2", "--method", "recursive", "--isolation", "container", root=root, tmpdir=run_tmpdir)
    assert done.returncode == 1
    details = {cell["detail"].splitlines()[0] for cell in report["cells"]}
    assert len(details) == 1 and next(iter(details)).startswith("building the image of no-image failed"), details
    assert "Traceback" not in done.stderr


class FreezingEngine:
    """A Unix socket in front of the real Docker engine, passing every byte both ways until it is
    told to freeze: then it holds every connection, old and new, and answers nothing, as an engine
    stopped with SIGSTOP does."""

    def __init__(self, folder: Path, engine: str = "/var/run/docker.sock") -> None:
        self.path, self.engine = folder / "engine.sock", engine
        self.frozen = threading.Event()
        self.thawed = threading.Event()
        self.server = socket.socket(socket.AF_UNIX)
        self.server.bind(str(self.path))
        self.server.listen(64)
        serve_each(self.server, self._forward)

    @property
    def host(self) -> str:
        return f"unix://{self.path}"

    def _forward(self, client: socket.socket) -> None:
        upstream = socket.socket(socket.AF_UNIX)
        upstream.connect(self.engine)
        for source, sink in ((client, upstream), (upstream, client)):
            threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while block := source.recv(65536):
                if self.frozen.is_set():
                    self.thawed.wait()
                sink.sendall(block)
        except OSError:
            pass
        finally:
            for end in (source, sink):
                with contextlib.suppress(OSError):
                    end.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        self.thawed.set()
        self.server.close()


@pytest.fixture
def freezing_engine(tmp_path, docker_engine):
    engine = FreezingEngine(tmp_path)
    yield engine
    engine.close()


def _until(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.1)
    return condition()


@pytest.mark.parametrize("stop", [None, signal.SIGINT, signal.SIGTERM])
def test_an_engine_that_freezes_mid_run_is_named_and_never_a_ports_time_out(tmp_path, freezing_engine, run_tmpdir, stop):
    """The engine freezes while a cell runs: the cell is an error naming the engine, not the port's
    time-out, and the run ends; told to stop meanwhile, it ends within 5 s, naming what it gave up on.
    What it could not remove, the next run removes, once the engine answers again."""
    root = suite(tmp_path, "hostile-hang", real=(), fakes_from=ISOLATION_PORTS)
    report = tmp_path / "report.json"
    with (tmp_path / "stderr").open("w+") as stderr:
        run = harness_process(
            "--root", str(root), "compare", "--n", "0", "--method", "binary", "--isolation", "container", "--timeout", "60", "--json", str(report),
            tmpdir=run_tmpdir, env_extra={"DOCKER_HOST": freezing_engine.host}, stdout=subprocess.DEVNULL, stderr=stderr,
        )
        try:
            assert _until(lambda: bool(port_containers(run_tmpdir)) or run.poll() is not None, 300), "no container started"
            time.sleep(1)  # the cell's program runs
            freezing_engine.frozen.set()
            frozen = patience.Patience(30)  # the engine's bound, which a loaded machine stretches
            if stop:
                time.sleep(1)
                run.send_signal(stop)
                stopped_at = time.monotonic()
                code = run.wait(timeout=30)
                assert time.monotonic() - stopped_at < 5, "the run did not end within 5 s of the signal"
                assert code == 128 + stop
            else:
                code = run.wait(timeout=300)
                assert not frozen.over(), frozen.bound()
                assert code == 1
        finally:
            freezing_engine.thawed.set()
            if run.poll() is None:
                run.kill()
                run.wait()
        stderr.seek(0)
        said = stderr.read()
    assert "Traceback" not in said, said
    if stop:
        assert "the Docker engine" in said, said
    else:
        [cell] = json.loads(report.read_text())["cells"]
        assert cell["outcome"] == "error" and "timed out" not in cell["detail"], cell
        assert cell["detail"].startswith("the Docker engine did not answer within"), cell
    swept = harness("--root", str(root), "list", "--isolation", "container", tmpdir=run_tmpdir)
    assert port_containers(run_tmpdir) == set(), swept.stderr


def test_an_engine_that_never_answers_is_named_on_each_cell(tmp_path, run_tmpdir):
    """A socket that pings back and then answers nothing: every cell errors naming the engine, once
    it has waited its bound, and no cell waits again for an engine already found silent."""
    folder = tmp_path / "engine"
    folder.mkdir()
    silent = socket.socket(socket.AF_UNIX)
    silent.bind(str(folder / "engine.sock"))
    silent.listen(64)
    held = []

    def answer(connection: socket.socket) -> None:
        while request := connection.recv(65536):
            if b"/_ping" in request:
                connection.sendall(b"HTTP/1.1 200 OK\r\nApi-Version: 1.41\r\nContent-Length: 2\r\n\r\nOK")
            elif b"/version" in request:
                body = b'{"ApiVersion": "1.41", "Version": "24.0.0"}'
                connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
            else:
                held.append(connection)  # and never a word more
                return

    serve_each(silent, lambda connection: threading.Thread(target=answer, args=(connection,), daemon=True).start())
    root = suite(tmp_path, "ballast", real=(), fakes_from=ISOLATION_PORTS)
    bound = patience.Patience(45)  # a loaded machine stretches each of the engine's waits, and this with them
    try:
        done, report = compare_json(
            tmp_path, "--n", "0-3", "--method", "recursive", "--isolation", "container", "--timeout", "3", root=root,
            env={"DOCKER_HOST": f"unix://{folder / 'engine.sock'}"}, tmpdir=run_tmpdir,
        )
    finally:
        silent.close()
    assert not bound.over(), bound.bound()
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    for cell in report["cells"]:
        assert cell["outcome"] == "error" and "the Docker engine did not answer" in cell["detail"], cell


def test_only_a_provably_gone_harness_is_swept():
    assert alive(HARNESS)
    pid, _, _ = HARNESS.partition("@")[0].partition("-")
    assert not alive(f"{pid}-1@{PID_SPACE}"), "this pid with another start time is some gone process"
    assert alive(f"{pid}-1@another-boot/4026531836"), "a harness in another namespace is never judged from here"
    assert alive(f"{pid}-1"), "an owner that does not say its namespace is never judged either"


def test_a_live_run_in_another_pid_namespace_keeps_its_ports(tmp_path, run_tmpdir):
    """A run in a process namespace of its own (as in a container that shares the temporary folder)
    whose port hangs: a run here, in the same TMPDIR, leaves it alone, though its pids mean nothing
    here."""
    unshare = shutil.which("unshare")
    probe = subprocess.run([unshare or "unshare", "--pid", "--fork", "--mount-proc", "true"], capture_output=True) if unshare else None
    if probe is None or probe.returncode != 0:
        pytest.skip("this machine cannot start a process namespace (unshare --pid)")
    root = suite(tmp_path, "hostile-hang", real=(), fakes_from=ISOLATION_PORTS)
    said = tmp_path / "inside.txt"
    with said.open("wb") as output:
        inside = subprocess.Popen(
            [unshare, "--pid", "--fork", "--kill-child", "--mount-proc", sys.executable, "-m", "harness", "--root", str(root),
             "compare", "--n", "0", "--timeout", "60", "--format", "plain"],
            cwd=ROOT, env={**os.environ, "TMPDIR": str(run_tmpdir)}, stdout=output, stderr=subprocess.STDOUT,
        )
    try:
        assert _until(lambda: hanging(run_tmpdir) or inside.poll() is not None, 30)
        assert hanging(run_tmpdir), f"the run in its own namespace started no hanging port (exit {inside.poll()}): {said.read_text()}"
        before = hanging(run_tmpdir)  # the hanging port's: a version command of that run may come and go meanwhile
        here = subprocess.run(
            [sys.executable, "-m", "harness", "--root", str(root), "list"], cwd=ROOT, capture_output=True, text=True,
            env={**os.environ, "TMPDIR": str(run_tmpdir)},
        )
        assert "removed what an earlier" not in here.stderr, here.stderr
        assert before <= hanging(run_tmpdir), "the run here killed the live run's processes"
    finally:
        inside.kill()  # and, as --kill-child says, the namespace's first process with it, and so every other
        inside.wait(timeout=30)
    assert _until(lambda: not started_in(run_tmpdir), 10)


def hanging(run: Path) -> set[int]:
    """The processes of the run whose TMPDIR is ``run`` that sleep: its hanging port's."""
    found = set()
    for pid in started_in(run):
        with contextlib.suppress(OSError):
            if b"sleep" in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.add(pid)
    return found


def test_ctrl_c_during_an_image_build_ends_the_run_and_the_build(tmp_path, docker_engine, run_tmpdir):
    """Stopped while the engine builds a port's image, the run ends within 5 s, and the build, whose
    step would run a minute, goes with it: the engine cancels a build whose client is gone."""
    token = uuid.uuid4().hex
    root = tmp_path / "ports"
    shutil.copytree(ISOLATION_PORTS / "ballast", root / "slow-image")
    (root / "slow-image" / "Containerfile").write_text(f"ARG BASE=debian:bookworm-slim\nFROM ${{BASE}}\nRUN echo {token} && sleep 60\n")
    client = docker.from_env()

    def building() -> list:
        return [c for c in client.containers.list(all=True, ignore_removed=True) if token in " ".join(c.attrs["Config"]["Cmd"] or [])]

    run = harness_process(
        "--root", str(root), "compare", "--n", "0", "--isolation", "container", tmpdir=run_tmpdir,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    try:
        assert _until(lambda: bool(building()), 60), "the build's step never started"
        run.send_signal(signal.SIGINT)
        stopped_at = time.monotonic()
        code = run.wait(timeout=30)
        assert time.monotonic() - stopped_at < 5
        assert code == 130
        assert _until(lambda: not [c for c in building() if c.status == "running"], 20), "the build ran on after the run"
    finally:
        if run.poll() is None:
            run.kill()
        run.wait()
        for container in building():
            with contextlib.suppress(docker.errors.DockerException):
                container.remove(force=True)
        client.close()
    assert "Traceback" not in run.stderr.read()


def test_a_version_command_runs_within_the_walls_and_leaves_nothing(tmp_path, mode, run_tmpdir):
    """A version command is code the port sent: it runs as the port's programs do. Held (sandbox,
    container), it sees no secret and writes nothing beside its folder; in every mode, what it leaves
    running is ended before the command ends (harness() checks that nothing of the run is left)."""
    root = tmp_path / "ports"
    shutil.copytree(ISOLATION_PORTS / "hostile-version", root / "hostile-version")
    done = harness("--root", str(root), "list", "--verbose", "--format", "json", "--isolation", mode, env=SECRET_ENVIRONMENT, tmpdir=run_tmpdir)
    assert done.returncode == 0, done.stdout + done.stderr
    [port] = json.loads(done.stdout)["ports"]
    said = port["requires"][0]["version"]
    assert said is not None and said.startswith("hostile 1.0 token="), port
    assert TOKEN not in done.stdout + done.stderr
    written = (root / "written-by-a-version").exists()
    if mode == "subprocess":  # walled in by nothing but the limits, as the port's programs are
        assert (said, written) == ("hostile 1.0 token=***", True)
    else:
        assert (said, written) == ("hostile 1.0 token=none", False)
    if mode == "container":
        assert port_containers(run_tmpdir) == set()


def test_list_without_verbose_runs_no_version_command(tmp_path, run_tmpdir):
    """A version command is the port's code, which a plain list, reading the manifests and PATH, does
    not run: in the default mode it would run as whoever runs the harness, root included, unwalled."""
    root = tmp_path / "ports"
    shutil.copytree(ISOLATION_PORTS / "hostile-version", root / "hostile-version")
    for form in ("json", "plain"):
        done = harness("--root", str(root), "list", "--format", form, env=SECRET_ENVIRONMENT, tmpdir=run_tmpdir)
        assert done.returncode == 0, done.stdout + done.stderr
        assert not (root / "written-by-a-version").exists(), f"list --format {form} ran the version command"
        assert not started_in(run_tmpdir)
    assert "hostile-version: binary; found bash (version not asked: harness list --verbose asks it)" in done.stdout, done.stdout
    [port] = json.loads(harness("--root", str(root), "list", "--format", "json", tmpdir=run_tmpdir).stdout)["ports"]
    assert port["requires"][0]["version"] is None


MOVES_OUTPUT = r"""
[output]
patterns = ['(?P<disk>\d+) (?P<src>\d) (?P<dst>\d)']
pegs = ["0", "1", "2"]
"""
SLOW_VERSIONS = 60


def slow_versions_port(tmp_path: Path) -> Path:
    """A port with SLOW_VERSIONS version commands that each take a minute: its program prints no move,
    right for n = 0."""
    folder = tmp_path / "ports" / "slow-versions"
    folder.mkdir(parents=True)
    requires = "".join(
        f'\n[[requires]]\nexecutable = "sh"\nversion = ["sh", "-c", "sleep 60; echo never {number}"]\n' for number in range(SLOW_VERSIONS)
    )
    (folder / MANIFEST).write_text(
        'command = ["sh", "-c", "true", "slow-versions", "{n}"]\nmethods = ["binary"]\n' + requires + MOVES_OUTPUT
    )
    return folder.parent


def test_slow_version_commands_end_with_the_runs_time_for_them(tmp_path, run_tmpdir):
    """However many there are, the version commands of a run are asked at once, within one bound (the
    --timeout, and 10 s at most), and those still running then are ended: nothing is left running."""
    root = slow_versions_port(tmp_path)
    started = time.monotonic()
    done = harness("--root", str(root), "compare", "--n", "0", "--timeout", "5", tmpdir=run_tmpdir)
    took = time.monotonic() - started
    assert done.returncode == 0, done.stdout + done.stderr
    assert took < 5 * MOST_STRETCH + 30, f"the run took {took:.1f} s"  # 5 s, stretched while the machine is busy


def slow_version_port(tmp_path: Path, seconds: float) -> Path:
    folder = tmp_path / "ports" / "slow-version"
    folder.mkdir(parents=True)
    (folder / MANIFEST).write_text(
        'command = ["sh", "-c", "true", "slow-version", "{n}"]\nmethods = ["binary"]\n'
        f'[[requires]]\nexecutable = "sh"\nversion = ["sh", "-c", "sleep {seconds}; echo slow 1.0"]\n' + MOVES_OUTPUT
    )
    return folder.parent


@pytest.mark.parametrize(("load", "said"), [(0.0, "did not answer within 1 s"), (4.0, "found slow 1.0")])
def test_a_busy_machine_gives_the_version_commands_longer(tmp_path, monkeypatch, load, said):
    """Version commands start as the port's programs do (a container each, in container mode), which
    a loaded machine makes slow: their bound stretches with the load, as every start's does."""
    monkeypatch.setattr(gate, "VERSION_SECONDS", 1.0)
    monkeypatch.setattr(patience, "load", lambda: load)
    root = slow_version_port(tmp_path, 2)
    done = harness_here("--root", str(root), "list", "--verbose")
    assert done.returncode == 0, done.stdout + done.stderr
    assert said in done.stdout, done.stdout


def test_ctrl_c_ends_the_version_commands_too(tmp_path, run_tmpdir):
    root = slow_versions_port(tmp_path)
    run = harness_process("--root", str(root), "list", "--verbose", tmpdir=run_tmpdir, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert _until(lambda: len(started_in(run_tmpdir)) > SLOW_VERSIONS / 2, 30)
    run.send_signal(signal.SIGINT)
    _, err = run.communicate(timeout=patience.Patience(30).limit())  # a loaded machine stretches the ending of each version command
    assert run.returncode == 130, err
    assert _until(lambda: not started_in(run_tmpdir), 5), started_in(run_tmpdir)


@needs_bubblewrap
def test_the_sandboxs_private_folders_hold_no_more_than_the_memory_cap(tmp_path, run_tmpdir):
    """Files in the sandbox's /tmp are memory: where a control group holds the cell, they are charged
    to it; where samples of the port's processes do (which count no file), the folder itself holds
    at most --memory. Either way, 64 MB written a megabyte at a time stops at 32M."""
    folder = tmp_path / "ports" / "fills-tmp"
    folder.mkdir(parents=True)
    (folder / MANIFEST).write_text(
        'command = ["python3", "-c", "out = open(\'/tmp/ballast\', \'wb\')\\nfor _ in range(64): out.write(bytes(1 << 20))", "{n}"]\n'
        'methods = ["binary"]\n'
        + MOVES_OUTPUT
    )
    _, report = compare_json(
        tmp_path, "--n", "0", "--method", "binary", "--isolation", "sandbox", "--memory", "32M", root=folder.parent, tmpdir=run_tmpdir,
    )
    [cell] = report["cells"]
    assert (cell["outcome"], cell["reason"]) in (("error", "limit"), ("error", "crash")), cell
    assert "used more than 32 MiB of memory" in cell["detail"] or "No space left on device" in cell["detail"], cell
