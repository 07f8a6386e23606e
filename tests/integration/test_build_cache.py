"""What a build leaves in the cache is the port's, and the harness (root, here) trusts none of it: a
link a build puts where the harness marks a finished build is never followed, and is the build's
error; no setuid or setgid file survives in the cache; what one build may write there is bounded;
and a full disk is a named build error of the cell that met it. In every mode that can run here."""

from __future__ import annotations

import fcntl
import json
import os
import stat
import subprocess
import textwrap
import time
from pathlib import Path

import pytest

from conftest import ROOT, harness_here
from harness import build
from harness.build import Builds, own_disks
from harness.limits import mounts
from integration.conftest import compare_json

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="what the harness does as root is the point")

SCRIPT = '[ "$1" = 0 ] || echo "1 0 2"\n'
"""The port's program: the one move of one disc."""


def scripted_port(root: Path, name: str, build: str) -> Path:
    """A port whose program is SCRIPT, copied to {binary} by ``build``, a shell command that runs in
    the build's folder (its cache entry is the folder above) and may do more."""
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "hanoi.sh").write_text(SCRIPT)
    (folder / "language.toml").write_text(textwrap.dedent(f"""\
        methods = ["recursive"]
        build = ["sh", "-c", {json.dumps(build)}, "{{binary}}"]
        command = ["sh", "{{binary}}", "{{n}}"]
        [output]
        patterns = ['(?P<disk>\\d+) (?P<src>\\d) (?P<dst>\\d)']
        pegs = ["0", "1", "2"]
    """))
    return folder


def run_cells(tmp_path: Path, root: Path, mode: str, run_tmpdir: Path, *args: str) -> dict[str, dict]:
    """Each port's one cell (n = 1), run in ``mode`` with a cache of the test's own, by port."""
    done, report = compare_json(
        tmp_path, "--n", "1", "--method", "recursive", "--isolation", mode, *args,
        root=root, env={"HANOI_CACHE": str(tmp_path / "cache")}, tmpdir=run_tmpdir, run=harness_here,
    )
    assert "Traceback" not in done.stdout + done.stderr, done.stdout + done.stderr
    return {cell["port"]: cell for cell in report["cells"]}


def test_a_link_a_build_leaves_for_its_done_mark_is_never_followed(tmp_path, mode, run_tmpdir):
    """One build links its entry's done mark to a file that is not there, in a folder only root may
    write, another to one that is: the harness creates neither and touches neither, each cell is its
    build's error naming the mark, and the entry is gone."""
    guarded = tmp_path / "root-only"
    guarded.mkdir(mode=0o700)
    planted, touched = guarded / "planted", guarded / "touched"
    touched.write_text("as it was\n")
    os.utime(touched, (1_000_000_000, 1_000_000_000))
    root = tmp_path / "ports"
    scripted_port(root, "planting", f'cp hanoi.sh "$0" && ln -s {planted} ../done')
    scripted_port(root, "touching", f'cp hanoi.sh "$0" && ln -s {touched} ../done')
    cells = run_cells(tmp_path, root, mode, run_tmpdir)
    assert not planted.exists() and not planted.is_symlink()
    assert (touched.read_text(), touched.stat().st_mtime) == ("as it was\n", 1_000_000_000)
    for name in ("planting", "touching"):
        assert (cells[name]["outcome"], cells[name]["reason"]) == ("error", "build"), cells[name]
        assert "'done'" in cells[name]["detail"], cells[name]
    assert not any((tmp_path / "cache" / "builds").glob("*/*/done"))


def test_no_setuid_or_setgid_file_survives_in_the_cache(tmp_path, mode, run_tmpdir):
    """A build that copies a shell and makes it and its program setuid and setgid: the cell passes,
    and nothing in the cache keeps either bit (nor, in a container, belongs to root)."""
    root = tmp_path / "ports"
    scripted_port(root, "setuid", 'cp hanoi.sh "$0" && cp "$(command -v sh)" shell && chmod ug+s shell "$0" && mkdir kept && chmod g+s kept')
    cells = run_cells(tmp_path, root, mode, run_tmpdir)
    assert cells["setuid"]["outcome"] == "pass", cells["setuid"]
    kept = [path for path in (tmp_path / "cache" / "builds").rglob("*") if not path.is_symlink()]
    assert any(path.name == "shell" for path in kept)
    assert [path for path in kept if path.lstat().st_mode & (stat.S_ISUID | stat.S_ISGID)] == []
    if mode == "container":
        assert [path for path in kept if path.name == "shell" and path.lstat().st_uid == 0] == []


def test_a_build_that_writes_past_its_bound_is_its_cells_error_and_leaves_nothing(tmp_path, mode, run_tmpdir, monkeypatch):
    """Under a bound of 4 MiB: a build that writes 20 MB at once, and one that writes without end, a
    megabyte at a time (up to 30 s), are each their cell's build error, saying the bound, long before their
    time; their entries are gone; the port beside them, which writes little, passes."""
    monkeypatch.setattr("harness.build.BUILD_BYTES", 4 << 20, raising=False)
    root = tmp_path / "ports"
    scripted_port(root, "burst", 'head -c 20000000 /dev/zero > big; cp hanoi.sh "$0"')
    scripted_port(root, "endless", 'while :; do head -c 1048576 /dev/zero >> big; sleep 0.05; done')
    scripted_port(root, "modest", 'head -c 1000000 /dev/zero > small; cp hanoi.sh "$0"')
    started = time.monotonic()
    cells = run_cells(tmp_path, root, mode, run_tmpdir, "--timeout", "30")
    assert time.monotonic() - started < 25
    for name in ("burst", "endless"):
        assert (cells[name]["outcome"], cells[name]["reason"]) == ("error", "build"), cells[name]
        assert cells[name]["detail"].startswith("the build wrote more than 4 MiB to the cache, the most one build may keep"), cells[name]
        assert list((tmp_path / "cache" / "builds" / name).glob("*/")) == []
    assert cells["modest"]["outcome"] == "pass", cells["modest"]


def test_no_file_a_build_writes_outgrows_the_bound_between_two_measures(tmp_path, mode, run_tmpdir, monkeypatch):
    """Under a bound of 4 MiB, a build that takes 8 MiB at once (fallocate, faster than any
    measure) is refused the file by the kernel, whose RLIMIT_FSIZE the build's commands run
    under: the disk is never taken, and the build fails in its own words."""
    monkeypatch.setattr("harness.build.BUILD_BYTES", 4 << 20, raising=False)
    monkeypatch.setattr("harness.gate.BUILD_BYTES", 4 << 20, raising=False)
    root = tmp_path / "ports"
    scripted_port(root, "grabbing", 'fallocate -l 8M big || { echo "refused the whole file" >&2; exit 3; }; cp hanoi.sh "$0"')
    cells = run_cells(tmp_path, root, mode, run_tmpdir)
    assert (cells["grabbing"]["outcome"], cells["grabbing"]["reason"]) == ("error", "build"), cells["grabbing"]
    assert cells["grabbing"]["detail"].startswith("the build failed with exit code 3"), cells["grabbing"]
    assert cells["grabbing"]["detail"].splitlines()[-1] == "refused the whole file", cells["grabbing"]
    assert list((tmp_path / "cache" / "builds" / "grabbing").glob("*/")) == []


def test_a_build_that_nests_folders_past_any_recursion_is_its_cells_error_and_leaves_nothing(tmp_path, mode, run_tmpdir):
    """A build that makes a tree 1,100 folders deep, a setuid file and a file with capabilities at
    its bottom: a walk by recursion (os.walk, rglob, rmtree) would run out on it, lose the run's
    report and keep all three. It is the cell's build error naming the depth, its entry is gone,
    and the port beside it passes."""
    root = tmp_path / "ports"
    deep = 'i=0; while [ $i -lt 1100 ]; do mkdir d && cd d || exit 1; i=$((i+1)); done; cp "$(command -v sh)" shell; chmod u+s shell'
    scripted_port(root, "deep", f'cp hanoi.sh "$0"; ({deep})')
    scripted_port(root, "modest", 'cp hanoi.sh "$0"')
    cells = run_cells(tmp_path, root, mode, run_tmpdir)
    assert (cells["deep"]["outcome"], cells["deep"]["reason"]) == ("error", "build"), cells["deep"]
    assert cells["deep"]["detail"].startswith("the build made folders more than 64 deep"), cells["deep"]
    assert list((tmp_path / "cache" / "builds" / "deep").glob("*/")) == []
    assert cells["modest"]["outcome"] == "pass", cells["modest"]


@pytest.fixture
def small_disk(tmp_path):
    """A file system of 2 MiB of its own for the test's cache (a tmpfs), unmounted after."""
    cache = tmp_path / "cache"
    cache.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m,mode=0755", "tmpfs", str(cache)], capture_output=True, text=True, check=False)
    if mounted.returncode != 0:
        pytest.skip(f"no tmpfs could be mounted for the cache: {mounted.stderr.strip()}")
    yield cache
    subprocess.run(["umount", "-l", str(cache)], check=True)


def test_a_full_disk_is_the_build_error_of_the_cell_that_met_it(tmp_path, small_disk, run_tmpdir):
    """On a cache disk of 2 MiB: a port whose folder is larger cannot be copied for its build, a
    build that fills the disk fails, each its own cell's build error saying the disk is full; the
    port that needs no build passes, and a small build after them passes too (one at a time: one
    beside the filler's meets the disk it filled, and is rightly that disk's error too)."""
    root = tmp_path / "ports"
    bulky = scripted_port(root, "bulky", 'cp hanoi.sh "$0"')
    (bulky / "data.bin").write_bytes(b"\0" * (3 << 20))
    scripted_port(root, "filler", 'head -c 3000000 /dev/zero > big; cp hanoi.sh "$0"')
    scripted_port(root, "small", 'cp hanoi.sh "$0"')
    (root / "python").symlink_to(ROOT / "python")
    cells = run_cells(tmp_path, root, "subprocess", run_tmpdir, "--jobs", "1")
    assert (cells["bulky"]["reason"], cells["bulky"]["detail"]) == (
        "build", "the build's cache entry could not be written: No space left on device"
    ), cells["bulky"]
    assert cells["filler"]["reason"] == "build" and "No space left on device" in cells["filler"]["detail"], cells["filler"]
    assert (cells["small"]["outcome"], cells["python"]["outcome"]) == ("pass", "pass"), cells


def mounted_below(folder: Path) -> list[str]:
    """The mount points below ``folder``: only what the test's own runs made."""
    return [str(place) for place, _, _ in mounts() if place.is_relative_to(folder.resolve())]


needs_own_disks = pytest.mark.skipif(not own_disks(), reason="a build has a disk of its own only as root, with loop devices")


@needs_own_disks
def test_a_builds_own_disk_keeps_its_links_and_owners_and_goes(tmp_path, mode, run_tmpdir):
    """A build on a disk of its own is copied to the cache as it was made: a file with four names is
    one file with four names (a copy of each would take four times the room), each file its maker's;
    and no disk is left mounted after the run."""
    root = tmp_path / "ports"
    scripted_port(root, "linked", 'head -c 100000 /dev/zero > big; for i in 1 2 3; do ln big big$i; done; cp hanoi.sh "$0"; chmod 700 "$0"')
    cells = run_cells(tmp_path, root, mode, run_tmpdir)
    assert cells["linked"]["outcome"] == "pass", cells["linked"]
    [big] = (tmp_path / "cache" / "builds" / "linked").glob("*/build/big")
    assert big.stat().st_nlink == 4
    assert mounted_below(tmp_path) == []


@needs_own_disks
def test_sparse_files_past_the_bound_are_not_copied_out_of_a_builds_own_disk(tmp_path, run_tmpdir):
    """Three sparse files of 900 MiB take next to nothing of a build's own disk, and copying them to
    the cache would write 2.6 GiB: the build's error, and nothing kept."""
    root = tmp_path / "ports"
    scripted_port(root, "sparse", 'for i in 1 2 3; do truncate -s 900M sparse$i; done; cp hanoi.sh "$0"')
    cells = run_cells(tmp_path, root, "subprocess", run_tmpdir)
    assert (cells["sparse"]["reason"], cells["sparse"]["detail"]) == (
        "build", "the build left more than 1 GiB (a sparse file counted at its full size), the most one build may keep in the cache"
    ), cells["sparse"]
    assert list((tmp_path / "cache" / "builds" / "sparse").glob("*/")) == []
    assert mounted_below(tmp_path) == []


@needs_own_disks
def test_a_run_lets_go_of_the_disk_a_killed_run_left_mounted(tmp_path, monkeypatch):
    """A run killed while it built leaves that build's own disk mounted on its entry, or its image,
    or the copy of what it kept: the next run lets go of each whose lock no harness holds, and
    leaves one whose lock is held."""
    builds = tmp_path / "cache" / "builds" / "port"
    builds.mkdir(parents=True)
    entries = []
    for name in ("left", "building"):
        entry, image = builds / name, builds / f"{name}.disk"
        entry.mkdir()
        (builds / f"{name}.lock").touch()
        build._make_disk(image, entry, 16 << 20)
        image.unlink()
        entries.append(entry)
    (builds / "left.kept" / "build").mkdir(parents=True)  # killed while it copied what the build kept
    (builds / "other.disk").touch()  # killed before it mounted the image
    (builds / "other.lock").touch()
    try:
        with (builds / "building.lock").open("a") as held:
            fcntl.flock(held, fcntl.LOCK_EX)
            monkeypatch.setenv("HANOI_CACHE", str(tmp_path / "cache"))
            Builds(lambda: False)
        assert mounted_below(tmp_path) == [str(builds / "building")]
        assert sorted(path.name for path in builds.iterdir()) == ["building", "building.lock", "left", "left.lock", "other.lock"]
    finally:
        for entry in entries:
            subprocess.run(["umount", "-l", str(entry)], check=False)


@needs_own_disks
def test_a_build_of_many_files_and_a_port_named_in_no_encoding_build_on_their_own_disks(tmp_path, run_tmpdir):
    """Eighty thousand files, as a big node_modules has, fit a build's own disk as they fit the bound
    (a disk of one file for each 16 KiB had room for 73,728); a port whose folder's name is not UTF-8
    has its disk mounted where /proc/self/mountinfo shows that byte raw, which the harness read as
    UTF-8, and every process start of every run on the machine raised while it was."""
    root = tmp_path / "ports"
    scripted_port(root, "many", 'mkdir many && (cd many && seq 1 80000 | xargs touch) && cp hanoi.sh "$0"')
    scripted_port(root, "bad\udcff", 'cp hanoi.sh "$0"')
    done, report = compare_json(
        tmp_path, "--n", "1", "--method", "recursive", root=root, env={"HANOI_CACHE": str(tmp_path / "cache")}, tmpdir=run_tmpdir,
    )
    assert "Traceback" not in done.stdout + done.stderr, done.stderr
    assert {cell["port"]: cell["outcome"] for cell in report["cells"]} == {"many": "pass", "bad\\xff": "pass"}, report["cells"]
    assert mounted_below(tmp_path) == []
