"""What the harness does with what a build leaves in its cache entry, with a build that is a Python
function run in its folder: a link for the done mark is the build's error and is never followed,
setuid and setgid bits are taken off what is kept, past BUILD_BYTES is the build's error, and a
disk that is full when the harness writes its mark is a build error saying so. The real builds,
in every mode and as root, are tests/integration/test_build_cache.py's."""

from __future__ import annotations

import errno
import os
import stat
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from harness import build
from harness.build import Builds
from harness.discover import load_port
from harness.errors import BuildFailed
from harness.model import Finish
from harness.runners.base import Runner
from harness.runners.walls import hand_over


class Done(Runner):
    """A build command that has run (in-process, before this was made) and exited with 0."""

    def output(self) -> Iterator[bytes]:
        yield from ()

    def finish(self) -> Finish:
        return Finish(None, timed_out=False, stopped=False, evidence="stderr was empty", exit_code=0)

    def _halt(self) -> None:
        pass


def built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: Callable[[Path], None], sparse: int = 0) -> Path:
    """The cache entry of a port whose build is ``step``, run in its build folder, and whose folder
    holds a sparse file of ``sparse`` bytes; BuildFailed if the harness refuses it."""
    monkeypatch.setenv("HANOI_CACHE", str(tmp_path / "cache"))
    folder = tmp_path / "port"
    folder.mkdir()
    with (folder / "sparse").open("wb") as blob:
        blob.truncate(sparse)
    (folder / "language.toml").write_text(textwrap.dedent("""\
        methods = ["recursive"]
        build = ["make", "{binary}"]
        command = ["{binary}", "{n}"]
        [output]
        patterns = ['(?P<disk>\\d+) (?P<src>\\d) (?P<dst>\\d)']
        pegs = ["0", "1", "2"]
    """))
    port = load_port(folder / "language.toml")

    def start(argv: list[str], where: Path, seconds: float) -> Runner:
        step(where)
        return Done(seconds)

    made = Builds(lambda: False).build(port, port.program("recursive"), "recursive", 1, 30, start)
    assert made is not None
    return made.folder.parent


def program(folder: Path) -> None:
    (folder.parent / build.PROGRAM_NAME).write_text("#!/bin/sh\n")


def test_a_link_for_the_done_mark_is_the_builds_error_and_never_followed(tmp_path, monkeypatch):
    target = tmp_path / "elsewhere"

    def linking(folder: Path) -> None:
        program(folder)
        (folder.parent / build.DONE_NAME).symlink_to(target)

    with pytest.raises(BuildFailed, match="left a 'done' in its cache entry"):
        built(tmp_path, monkeypatch, linking)
    assert not target.exists()
    assert list((tmp_path / "cache" / "builds" / "port").glob("*/")) == []


def test_a_link_for_the_program_is_no_program(tmp_path, monkeypatch):
    def linking(folder: Path) -> None:
        (folder.parent / build.PROGRAM_NAME).symlink_to("/bin/sh")

    with pytest.raises(BuildFailed, match="made no program"):
        built(tmp_path, monkeypatch, linking)


def test_setuid_and_setgid_bits_are_taken_off_what_is_kept(tmp_path, monkeypatch):
    def setting(folder: Path) -> None:
        program(folder)
        (folder / "kept").mkdir()
        for path in (folder.parent / build.PROGRAM_NAME, folder / "hanoi", folder / "kept"):
            path.touch()
            path.chmod(0o6755)
        (folder / "link").symlink_to(folder / "hanoi")

    entry = built(tmp_path, monkeypatch, setting)
    modes = {path.name: stat.S_IMODE(path.lstat().st_mode) for path in entry.rglob("*") if not path.is_symlink()}
    assert (modes["program"], modes["hanoi"], modes["kept"]) == (0o755, 0o755, 0o755)
    assert not [name for name, mode in modes.items() if mode & (stat.S_ISUID | stat.S_ISGID)]


def test_a_build_past_its_bound_is_its_error_and_leaves_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(build, "BUILD_BYTES", 1 << 20)

    def flooding(folder: Path) -> None:
        program(folder)
        (folder / "big").write_bytes(os.urandom(2 << 20))

    with pytest.raises(BuildFailed, match=r"^the build wrote more than 1 MiB to the cache, the most one build may keep: make \{binary\}$"):
        built(tmp_path, monkeypatch, flooding)
    assert list((tmp_path / "cache" / "builds" / "port").glob("*/")) == []


def test_a_port_folder_whose_copy_would_pass_the_bound_is_never_copied(tmp_path, monkeypatch):
    """A sparse file takes no room in the port's folder but all of its size in the copy: counted at
    that size before copying, the copy is refused and the build never starts."""
    monkeypatch.setattr(build, "BUILD_BYTES", 1 << 20)
    steps: list[Path] = []
    with pytest.raises(BuildFailed, match=r"^the port's folder holds more than 1 MiB \(a sparse file counted at its full size\)"):
        built(tmp_path, monkeypatch, steps.append, sparse=8 << 20)
    assert steps == []
    assert list((tmp_path / "cache" / "builds" / "port").glob("*/")) == []


def test_many_empty_files_count_against_the_bound(tmp_path, monkeypatch):
    monkeypatch.setattr(build, "BUILD_BYTES", 1 << 20)

    def scattering(folder: Path) -> None:
        program(folder)
        for number in range(300):
            (folder / f"empty-{number}").touch()

    with pytest.raises(BuildFailed, match="wrote more than 1 MiB"):
        built(tmp_path, monkeypatch, scattering)


def test_a_full_disk_when_the_mark_is_written_is_the_builds_error(tmp_path, monkeypatch):
    opened = os.open

    def full(path: str | os.PathLike[str], flags: int, mode: int = 0o777, **where: int) -> int:
        if Path(path).name == build.DONE_NAME:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        return opened(path, flags, mode, **where)

    monkeypatch.setattr(build.os, "open", full)
    with pytest.raises(BuildFailed, match=r"^the build's cache entry could not be written: No space left on device$"):
        built(tmp_path, monkeypatch, program)
    assert list((tmp_path / "cache" / "builds" / "port").glob("*/")) == []


def test_a_setuid_file_linked_from_elsewhere_is_the_builds_error_and_keeps_its_bits(tmp_path, monkeypatch):
    """A hard link into the entry to a setuid program elsewhere (as a build may make where the kernel
    lets it, fs.protected_hardlinks=0): taking the bit off would change that program too. (On a disk
    of its own, a build can link nothing from elsewhere.)"""
    monkeypatch.setattr(build, "own_disks", lambda: False)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_text("#!/bin/sh\n")
    elsewhere.chmod(0o4755)

    def linking(folder: Path) -> None:
        program(folder)
        os.link(elsewhere, folder / "su")

    with pytest.raises(BuildFailed, match="setuid or setgid file with other names outside its cache entry: build/su$"):
        built(tmp_path, monkeypatch, linking)
    assert stat.S_IMODE(elsewhere.stat().st_mode) == 0o4755


@pytest.mark.skipif(os.geteuid() != 0, reason="handing a folder over is root's")
def test_handing_a_folder_over_hands_over_no_file_linked_from_elsewhere(tmp_path):
    folder = tmp_path / "entry"
    folder.mkdir()
    elsewhere = tmp_path / "shadow"
    elsewhere.write_text("root's\n")
    os.link(elsewhere, folder / "linked")
    (folder / "own").write_text("the build's\n")
    hand_over(folder, 65534, 65534)
    assert (elsewhere.stat().st_uid, (folder / "own").stat().st_uid, folder.stat().st_uid) == (0, 65534, 65534)
