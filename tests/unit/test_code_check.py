"""harness check refuses a [code] reference that names no code, naming the file and the line."""

from __future__ import annotations

from conftest import harness_here

MANIFEST = """\
methods = ["recursive"]
command = ["sh", "hanoi.sh", "{method}", "{n}"]

[code]
recursive = "hanoi.sh#nowhere"

[output]
patterns = ['(?P<src>\\d) (?P<dst>\\d)']
pegs = ["0", "1", "2"]
"""


def test_harness_check_refuses_a_reference_that_names_no_code(tmp_path):
    folder = tmp_path / "lang"
    folder.mkdir()
    (folder / "hanoi.sh").write_text("# region recursive\necho 0 2\n# endregion recursive\n")
    (folder / "language.toml").write_text(MANIFEST)
    done = harness_here("--root", str(tmp_path), "check")
    assert done.returncode == 1 and ":5: [code] 'recursive' = 'hanoi.sh#nowhere': no region 'nowhere'" in done.stdout, done.stdout + done.stderr
