"""A cell's container that goes away under it (stopped, or removed, from outside: what an engine that
dies leaves the harness to see) is the cell's error naming the container, never the port's fail: the
port did nothing wrong."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import docker
import docker.errors
import pytest

from harness.runners.modes.container import PORT_LABEL, RUN_LABEL
from integration.conftest import compare_json

FOUND_SECONDS = 120
"""How long the port's container may take to be there: its image is built first, on a busy machine."""


def waiting_port(root: Path) -> Path:
    """A port that prints its first move, then waits: its cell is under way until it is ended."""
    folder = root / "waiting"
    folder.mkdir(parents=True)
    (folder / "language.toml").write_text(
        'summary = "waits"\ncommand = ["bash", "-c", "echo 1 0 2; exec sleep 600", "waiting", "{n}"]\nmethods = ["binary"]\n\n'
        '[[requires]]\nexecutable = "bash"\ndebian = "bash"\n\n[output]\n'
        "patterns = ['(?P<disk>\\d+) (?P<src>\\d) (?P<dst>\\d)']\npegs = [\"0\", \"1\", \"2\"]\n"
    )
    return root


def end_its_container(tmpdir: Path, how: str, done: threading.Event) -> None:
    """Stop or remove the port's container of this run once its program is running, as an engine that
    goes away would."""
    client = docker.from_env()
    try:
        deadline = time.monotonic() + FOUND_SECONDS
        while time.monotonic() < deadline and not done.is_set():
            labels = [f"{RUN_LABEL}={tmpdir}", f"{PORT_LABEL}=waiting"]
            for container in client.containers.list(filters={"label": labels}):
                if "sleep 600" in " ".join(process[-1] for process in container.top().get("Processes") or []):
                    container.kill() if how == "killed" else container.remove(force=True)
                    return
            time.sleep(0.2)
    finally:
        client.close()


@pytest.mark.docker
@pytest.mark.parametrize("how", ["killed", "removed"])
def test_a_cell_whose_container_goes_away_is_an_error_naming_it(tmp_path, docker_engine, run_tmpdir, how):
    root = waiting_port(tmp_path / "ports")
    done = threading.Event()
    ender = threading.Thread(target=end_its_container, args=(run_tmpdir, how, done), daemon=True)
    ender.start()
    try:
        finished, report = compare_json(tmp_path, "--n", "2", "--isolation", "container", "--timeout", "300", root=root, tmpdir=run_tmpdir)
    finally:
        done.set()
        ender.join()
    [cell] = [cell for cell in report["cells"] if cell["method"] == "binary"]
    assert cell["outcome"] == "error", report["cells"]
    assert "container" in cell["detail"] and "went away" in cell["detail"], cell["detail"]
    assert cell["seconds"] < FOUND_SECONDS + 60, cell
