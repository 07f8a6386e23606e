"""A program that cannot start is its cell's start error, as the harness runs it."""

import shutil

from harness.discover import load_port
from harness.evaluate import evaluate
from harness.model import Outcome, Reason


def test_a_program_that_cannot_start_is_the_cells_start_error(tmp_path):
    """A real start that fails: the port's folder is gone by the time its cell starts."""
    folder = tmp_path / "ghost"
    folder.mkdir()
    (folder / "language.toml").write_text(
        'methods = ["recursive"]\ncommand = ["true", "{n}"]\n[output]\npatterns = [\'(?P<src>\\d) (?P<dst>\\d)\']\npegs = ["0", "1", "2"]\n'
    )
    port = load_port(folder / "language.toml")
    assert port.manifest_error is None, port.manifest_error
    shutil.rmtree(folder)
    cell = evaluate(port, "recursive", 2)
    assert (cell.outcome, cell.reason) == (Outcome.ERROR, Reason.START)
    assert cell.detail.startswith("could not start the port's program:") and "ghost" in cell.detail
