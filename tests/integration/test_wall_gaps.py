"""Ways past the walls that a campaign of hostile ports found, each as the port that found it, with
what the harness does instead: a Containerfile whose keyword or option is cut across lines, which
the engine joins back; ``reads`` of the harness's temporary folder when TMP, not TMPDIR, names it;
secrets under names and in shapes the masking did not know; ``reads`` of the checkout beside a root
of ports inside it; a build that holds the disk through files it has unlinked; a port's folder whose
name holds a line break, written into the plain report as a line of its own; sandboxes whose first
processes were left as zombies of the harness; builds that hold the disk out of the watcher's sight, and
processes that left their marker behind, as zombies of the harness."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from conftest import ROOT
from harness.build import own_disks
from integration.conftest import NO_SANDBOX, compare_json, harness, needs_bubblewrap, usable
from integration.test_recipes import BUILD_SECONDS, GRACE_SECONDS, built_beside_a_listener, recipe_port

ISOLATION_PORTS = ROOT / "tests" / "isolation_ports"

PRINTER = """\
summary = "prints what it is asked to, and fails"
methods = ["recursive"]
command = ["bash", "-c", SCRIPT, "printer", "{n}"]
EXTRA

[[requires]]
executable = "bash"
REQUIRES

[output]
patterns = ['(?P<disk>\\d+) (?P<src>\\d) (?P<dst>\\d)']
pegs = ["0", "1", "2"]
"""


def printer(folder: Path, script: str, extra: str = "", requires: str = "") -> Path:
    """A port at ``folder`` that runs the Bash ``script`` and fails, so that reports quote its stderr."""
    folder.mkdir(parents=True)
    text = PRINTER.replace("SCRIPT", json.dumps(script)).replace("EXTRA", extra).replace("REQUIRES", requires)
    (folder / "language.toml").write_text(text)
    return folder


@pytest.mark.docker
def test_an_add_cut_across_two_lines_is_refused_and_fetches_nothing(tmp_path, docker_engine, run_tmpdir):
    """``AD\\`` then ``D http://…`` is ``ADD http://…`` to the engine, which fetches it from this
    machine's network whatever the step's network: the harness reads the recipe as the engine does,
    refuses it naming the line, and nothing is fetched."""
    token = uuid.uuid4().hex
    accepted, done, cell = built_beside_a_listener(
        tmp_path, run_tmpdir, "split-add", lambda address: f"AD\\\nD http://{address.replace('/', ':')}/{token} /fetched",
    )
    assert accepted == 0, "the engine fetched what the recipe named"
    assert (cell["outcome"], cell["reason"]) == ("error", "build"), cell
    assert cell["detail"].startswith("building the image of split-add failed: its Containerfile line 3: ADD"), cell["detail"]


@pytest.mark.parametrize(
    "recipe",
    [
        "ARG BASE=debian:bookworm-slim\nFR\\\nOM hanoi-polyglot/base:bookworm\n",
        "ARG BASE=debian:bookworm-slim\nFROM ${BASE}\nCOPY --fr\\\nom=hanoi-polyglot/base:bookworm /etc/hostname /copied\n",
        "ARG BASE=debian:bookworm-slim\nFROM ${BASE}\nAD\\\nD http://169.254.169.254/latest/meta-data/ /fetched\n",
    ],
    ids=["from-another-image", "copy-from-another-image", "add-a-url"],
)
def test_a_keyword_or_option_cut_across_lines_is_read_as_the_engine_reads_it(recipe):
    """Docker joins a line that ends in its escape character to the next with nothing between, even
    within a word: what the engine reads as FROM, COPY --from or ADD, the recipe's check refuses."""
    from harness.recipe import recipe_fault

    assert recipe_fault(recipe) is not None


@pytest.mark.parametrize("variable", ["TMP", "TEMP"])
def test_check_refuses_a_read_of_the_temporary_folder_that_tmp_names(tmp_path, variable):
    """Without TMPDIR, Python's temporary folder (where the embedded PostgreSQL keeps its files and
    its socket) is what TEMP or TMP names: a CI runner's ``/var/lib/...``. A port that asks to read
    it is refused by ``harness check`` as it is when TMPDIR names it."""
    temporary = Path("/var/lib") / f"hanoi-tmp-{uuid.uuid4().hex[:8]}"
    temporary.mkdir()
    try:
        printer(tmp_path / "ports" / "peeker", f"ls -laR {temporary} >&2; exit 3", requires=f"reads = [{json.dumps(str(temporary))}]")
        env = {name: value for name, value in os.environ.items() if name not in ("TMPDIR", "TEMP", "TMP")}
        done = subprocess.run(
            [sys.executable, "-m", "harness", "--root", str(tmp_path / "ports"), "check"],
            cwd=ROOT, env={**env, variable: str(temporary)}, capture_output=True, text=True, timeout=120,
        )
    finally:
        shutil.rmtree(temporary, ignore_errors=True)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"{temporary} is the harness's temporary folder" in done.stdout, done.stdout


SECRETS = {
    "MYSQL_PWD": "mysql-pwd-5f2c9e1d",
    "SSHPASS": "sshpass-8b7e6a4c",
    "BUILD_NOTE": "hf_" + "Qx7Lm2Nv9Rt4Wz8Ky3Jp6Hd1Fb5Gc0Sa",
    "RELEASE_NOTE": "sk-ant-api03-" + "Zq9Wx8Ev7Rc6Tb5Yn4Um3Ik2Ol1Pa0Sd" * 3,
}
"""Secrets of the harness's environment that neither the names nor the shapes it knows catch: MySQL's
and sshpass's password variables, a Hugging Face token, an Anthropic key."""


def test_secrets_under_names_and_shapes_it_does_not_know_are_masked_in_every_report(tmp_path, run_tmpdir):
    """In a subprocess a port sees the harness's whole environment: what it prints of a secret is
    masked in every form of report."""
    names = " ".join(SECRETS)
    printer(tmp_path / "ports" / "leaker", f'for name in {names}; do echo "$name=${{!name}}" >&2; done; exit 3')
    files = {form: tmp_path / f"report.{form}" for form in ("md", "xml", "html")}
    done, report = compare_json(
        tmp_path, "--n", "0", "--method", "recursive", "--format", "plain",
        "--markdown", str(files["md"]), "--junit", str(files["xml"]), "--html", str(files["html"]),
        root=tmp_path / "ports", env=SECRETS, tmpdir=run_tmpdir,
    )
    [cell] = report["cells"]
    assert "MYSQL_PWD=" in cell["detail"], cell  # the port ran and printed
    shown = {"terminal": done.stdout, "json": json.dumps(report)} | {form: path.read_text() for form, path in files.items()}
    leaked = {(form, name) for form, text in shown.items() for name, value in SECRETS.items() if value in text}
    assert not leaked, sorted(leaked)


@pytest.mark.skipif(NO_SANDBOX is not None or os.geteuid() != 0, reason=NO_SANDBOX or "needs root, to make a checkout under /opt")
def test_a_read_of_the_checkout_beside_a_root_of_ports_inside_it_is_refused():
    """A checkout where the grammar allows reads (``/opt/NAME``, as a container's CI has it), its
    ports' root a folder of it (``--root contrib``, as tests/isolation_ports is), run from the
    checkout: a port may not read the checkout's other folders (its CI files, the harness, the
    other ports), neither by ``harness check`` nor in the sandbox."""
    checkout = Path("/opt") / f"hanoi-checkout-{uuid.uuid4().hex[:8]}"
    try:
        subprocess.run(["git", "init", "-q", str(checkout)], check=True, timeout=60)
        (checkout / "ci").mkdir()
        (checkout / "ci" / "deploy.env").write_text("DEPLOY=checkout-secret-3e9a\n")
        printer(checkout / "contrib" / "peeker", f"cat {checkout}/ci/deploy.env >&2; exit 3", requires=f'reads = ["{checkout}/ci"]')
        env = {**os.environ, "COLUMNS": "200"}
        check = subprocess.run(
            [sys.executable, "-m", "harness", "--root", "contrib", "check"], cwd=checkout, env=env, capture_output=True, text=True, timeout=120,
        )
        run = subprocess.run(
            [sys.executable, "-m", "harness", "--root", "contrib", "compare", "--n", "0", "--isolation", "sandbox", "--format", "plain"],
            cwd=checkout, env=env, capture_output=True, text=True, timeout=300,
        )
    finally:
        shutil.rmtree(checkout, ignore_errors=True)
    assert "checkout-secret-3e9a" not in run.stdout + run.stderr, run.stdout
    assert check.returncode == 1, check.stdout + check.stderr


def built_cell(tmp_path: Path, run_tmpdir: Path, isolation: str, name: str, step: str, requires: str = "") -> dict:
    """The one cell of a port ``name`` whose build is the Bash ``step`` (given {build} and {binary}
    as $1 and $2) and whose program is what it made, compared at n = 0 in ``isolation``."""
    folder = printer(tmp_path / "ports" / name, "", requires=requires)
    manifest = folder / "language.toml"
    lines = [line for line in manifest.read_text().splitlines() if not line.startswith("command = ")]
    lines.insert(1, f'command = ["{{binary}}", "{{n}}"]\nbuild = [["bash", "-c", {json.dumps(step)}, "{name}", "{{build}}", "{{binary}}"]]')
    manifest.write_text("\n".join(lines) + "\n")
    _, report = compare_json(
        tmp_path, "--n", "0", "--method", "recursive", "--isolation", isolation, root=tmp_path / "ports",
        env={"HANOI_CACHE": str(tmp_path / "cache")}, tmpdir=run_tmpdir,
    )
    [cell] = report["cells"]
    return cell


@pytest.mark.parametrize("isolation", ["subprocess", "sandbox", pytest.param("container", marks=pytest.mark.docker)])
def test_a_build_that_holds_the_disk_through_unlinked_files_is_held_to_the_cache_bound(request, tmp_path, run_tmpdir, isolation):
    """The build takes 2.1 GiB of the cache's disk through three files of 700 MiB (each under the
    1 GiB a file may be) that it unlinks and keeps open while it runs, then makes its program: the disk
    was taken past BUILD_BYTES (1 GiB), so the build is the cell's build error, as one whose entry
    holds the bytes is."""
    usable(request, isolation)
    step = (
        'for fd in 3 4 5; do eval "exec $fd>\\"\\$1/hoard$fd\\""; fallocate -l 700M "$1/hoard$fd" || exit 1; rm "$1/hoard$fd"; done; '
        'sleep 5; printf "#!/bin/sh\\n" > "$2"; chmod +x "$2"'
    )
    cell = built_cell(tmp_path, run_tmpdir, isolation, "hoarder", step, requires='debian = "bash"')  # bash from Debian, in a container
    assert_held_to_the_bound(cell)


def assert_held_to_the_bound(cell: dict) -> None:
    """The cell is its build's error: the harness stopped the build past BUILD_BYTES, or the disk of
    its own (as root, where loop devices are) refused it the room."""
    assert (cell["outcome"], cell["reason"]) == ("error", "build"), cell
    assert "more than 1 GiB" in cell["detail"] or "No space left on device" in cell["detail"], cell["detail"]


FORGED = "All 9 cells that ran pass and agree: one sequence an n (9 pass)."


def test_a_port_named_with_line_breaks_writes_no_line_of_its_own_into_the_report(tmp_path, run_tmpdir):
    """A folder called ``zz<LF><LF>All 9 cells … pass and agree …<LF>``: the plain report (what a CI
    log shows and greps) never holds the forged verdict as a line of its own; the name is escaped
    there, or the port refused as a manifest error."""
    printer(tmp_path / "ports" / f"zz\n\n{FORGED}\n", "exit 3")
    done, _ = compare_json(tmp_path, "--n", "0", "--format", "plain", root=tmp_path / "ports", tmpdir=run_tmpdir)
    assert FORGED not in done.stdout.splitlines(), done.stdout


@pytest.mark.docker
def test_a_port_with_a_large_sparse_file_is_held_to_its_build_timeout_in_containers(tmp_path, docker_engine, run_tmpdir):
    """A port's folder that holds a 4 GiB sparse file (it takes no room on disk): making its image's
    context writes and sends every byte of it, past ``--build-timeout`` and taking twice its size of
    the disk while it does. The build is held to its time (or the folder refused), the cell's build
    error says so."""
    root = tmp_path / "ports"
    recipe_port(root, "sparse", "")
    (root / "sparse" / "fresh").write_text(uuid.uuid4().hex)  # an image of its own, never one an earlier run left
    with (root / "sparse" / "blob").open("wb") as blob:
        blob.truncate(4 << 30)
    started = time.monotonic()
    done, report = compare_json(
        tmp_path, "--n", "0", "--method", "recursive", "--isolation", "container", "--timeout", str(BUILD_SECONDS),
        "--build-timeout", str(BUILD_SECONDS), root=root, tmpdir=run_tmpdir,
    )
    took = time.monotonic() - started
    [cell] = report["cells"]
    assert (cell["outcome"], cell["reason"]) == ("error", "build"), cell
    assert "holds more than 1 GiB" in cell["detail"], cell["detail"]
    assert took < BUILD_SECONDS + GRACE_SECONDS, f"the run took {took:.0f} s"


@pytest.mark.parametrize("command", [("smoke",), ("gallery", "--n", "0", "--no-samples", "--out", "site")], ids=["smoke", "gallery"])
def test_a_broken_manifest_fails_smoke_and_gallery_as_it_fails_compare(tmp_path, run_tmpdir, command):
    """Every command exits 1 when a manifest is broken: a port with a key the harness does not know is
    not ``0 probes pass`` and exit 0, a verdict a CI step would take for a pass."""
    manifest = printer(tmp_path / "ports" / "broken", "exit 3") / "language.toml"
    manifest.write_text(manifest.read_text() + "bogus = 1\n")
    args = [part.replace("site", str(tmp_path / "site")) for part in command]
    done = harness("--root", str(tmp_path / "ports"), *args, tmpdir=run_tmpdir)
    assert done.returncode == 1, done.stdout + done.stderr


LEFT_CHILDREN = """\
import os, sys
from harness.cli import invoke

code = invoke(sys.argv[1:])
left = []
for entry in os.listdir("/proc"):
    try:
        status = dict(line.split(":", 1) for line in open(f"/proc/{entry}/status").read().splitlines())
    except (OSError, ValueError):
        continue
    if status["PPid"].strip() == str(os.getpid()):
        left.append(status["Name"].strip() + " " + status["State"].strip())
print(code, sorted(left))
"""
"""Runs a harness command in this process, then names the children it still has: what it adopted and
never reaped stays its child, as a zombie, until it exits."""


@needs_bubblewrap
def test_a_run_of_sandboxed_cells_leaves_no_zombie_behind(tmp_path):
    """Bubblewrap's first process outlives bubblewrap by a moment, and the harness, a subreaper, adopts
    it: a smoke of three ports left 224 of them as zombies, one a cell. Each is reaped as its cell ends."""
    root = tmp_path / "ports"
    root.mkdir()
    (root / "python").symlink_to(ROOT / "python")
    done = subprocess.run(
        [sys.executable, "-c", LEFT_CHILDREN, "--root", str(root), "compare", "--n", "0-7", "--isolation", "sandbox", "--timeout", "60"],
        capture_output=True, text=True, timeout=900, cwd=ROOT, env={**os.environ, "TMPDIR": str(tmp_path)},
    )
    assert done.stdout.splitlines()[-1:] == ["0 []"], done.stdout[-2000:] + done.stderr[-2000:]


HOARDS = {
    "mapped": (
        "import ctypes, os, sys, time\n"
        "libc = ctypes.CDLL(None)\n"
        "libc.mmap.restype, libc.mmap.argtypes = ctypes.c_void_p, [ctypes.c_void_p, ctypes.c_size_t] + [ctypes.c_int] * 3 + [ctypes.c_long]\n"
        "held = []\n"
        "for i in range(3):\n"
        "    path = sys.argv[1] + '/hoard%d' % i\n"
        "    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)\n"
        "    os.posix_fallocate(fd, 0, 700 << 20)\n"
        "    held.append(libc.mmap(None, 700 << 20, 3, 1, fd, 0))\n"
        "    os.close(fd)\n"
        "    os.unlink(path)\n"
        "assert all(address not in (None, ctypes.c_void_p(-1).value) for address in held)\n"
        "time.sleep(5)\n"
    ),
    "in-flight": (
        "import os, socket, sys, time\n"
        "mine, other = socket.socketpair()\n"
        "for i in range(3):\n"
        "    path = sys.argv[1] + '/hoard%d' % i\n"
        "    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)\n"
        "    os.posix_fallocate(fd, 0, 700 << 20)\n"
        "    os.unlink(path)\n"
        "    socket.send_fds(mine, [b'x'], [fd])\n"
        "    os.close(fd)\n"
        "time.sleep(5)\n"
    ),
    "unmarked": (
        "import os, sys, time\n"
        "if 'HANOI_HARNESS_CELL' in os.environ:\n"
        "    os.execve(sys.executable, [sys.executable, *sys.orig_argv[1:]], {'PATH': os.environ['PATH']})\n"
        "held = []\n"
        "for i in range(3):\n"
        "    path = sys.argv[1] + '/hoard%d' % i\n"
        "    held.append(open(path, 'wb'))\n"
        "    os.posix_fallocate(held[-1].fileno(), 0, 700 << 20)\n"
        "    os.unlink(path)\n"
        "time.sleep(5)\n"
    ),
}
"""Ways a build holds 2.1 GiB of the cache's disk in three unlinked files of 700 MiB that no
descriptor of a marked process shows: mapped into memory and then closed, sent on a socket to
itself and closed (the descriptors live in the socket's queue), or held by a process that has
left the cell's marker out of its environment."""


@pytest.mark.parametrize("isolation", ["subprocess", "sandbox"])
@pytest.mark.parametrize(
    "hoard",
    [
        pytest.param("in-flight", marks=pytest.mark.xfail(not own_disks(), strict=True, reason="a descriptor in a socket's queue shows in no process")),
        *(hoard for hoard in sorted(HOARDS) if hoard != "in-flight"),
    ],
)
def test_a_build_that_holds_unlinked_files_out_of_sight_is_held_to_the_cache_bound(request, tmp_path, run_tmpdir, isolation, hoard):
    """The build takes 2.1 GiB of the cache's disk through files it has unlinked, held where no
    descriptor of a process with the cell's marker shows them, for five seconds (twenty of the
    watcher's measures), then makes its program: past BUILD_BYTES, it is the cell's build error, as
    a build that keeps its descriptors open is."""
    usable(request, isolation)
    step = f'python3 -c {shlex.quote(HOARDS[hoard])} "$1" && printf "#!/bin/sh\\n" > "$2" && chmod +x "$2"'
    cell = built_cell(tmp_path, run_tmpdir, isolation, "hider", step)
    assert_held_to_the_bound(cell)


UNMARKED_CHILDREN = (
    'for i in $(seq 20); do setsid env -u HANOI_HARNESS_CELL sleep 600 </dev/null >/dev/null 2>&1 & done; sleep 0.3; exit 3'
)
"""A port that leaves twenty processes behind it, each in a session of its own and without the
cell's marker in its environment: the harness, a subreaper, adopts each when its parent exits."""


def test_a_run_of_subprocess_cells_leaves_no_process_or_zombie_behind_whose_marker_went(tmp_path):
    """Processes a port leaves that dropped the cell's marker are still the cell's: killed with it and
    reaped, never left to run on, nor as zombies of the harness, twenty a cell, that a long enough
    run would fill the machine's process table with (its pid_max is 32768)."""
    root = tmp_path / "ports"
    printer(root / "unmarked", UNMARKED_CHILDREN)
    done = subprocess.run(
        [sys.executable, "-c", LEFT_CHILDREN, "--root", str(root), "compare", "--n", "0-4", "--isolation", "subprocess"],
        capture_output=True, text=True, timeout=600, cwd=ROOT, env={**os.environ, "TMPDIR": str(tmp_path)},
    )
    assert done.stdout.splitlines()[-1:] == ["1 []"], done.stdout[-2000:] + done.stderr[-2000:]


def test_a_port_named_with_control_characters_puts_none_in_the_page(tmp_path, run_tmpdir):
    """A folder called ``a<SOH><VT><DEL>b``: the page held them raw in an attribute (``data-cell``);
    the name is written out there (``a\\x01\\x0b\\x7fb``), as everywhere."""
    printer(tmp_path / "ports" / "a\x01\x0b\x7fb", "exit 3")
    page = tmp_path / "report.html"
    compare_json(tmp_path, "--n", "0", "--html", str(page), root=tmp_path / "ports", tmpdir=run_tmpdir)
    text = page.read_text(encoding="utf-8")
    assert not [char for char in text if (ord(char) < 32 and char not in "\n\t") or 0x7F <= ord(char) < 0xA0]
    assert 'data-cell="a\\x01\\x0b\\x7fb/recursive/0"' in text
