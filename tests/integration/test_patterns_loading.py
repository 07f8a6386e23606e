"""Without the pattern parser (another Python), no pattern is judged and a manifest still loads."""

from __future__ import annotations

import subprocess
import sys

from harness.discover import load_port


def test_without_the_parser_no_pattern_is_judged_and_a_manifest_still_loads(tmp_path):
    """A Python whose re has no _parser: the proof stands aside (every pattern is taken), and the
    harness still reads a manifest, whose never-matching pattern then shows only when its port runs."""
    (tmp_path / "port").mkdir()
    (tmp_path / "port" / "language.toml").write_text(
        "command = ['true', '{method}', '{n}']\nmethods = ['recursive', 'binary']\n[output]\npatterns = ['(?P<src>\\d)^(?P<dst>\\d)']\npegs = ['0', '1', '2']\n"
    )
    script = (  # re itself is loaded first, as it is wherever anything has imported it: only the harness's import of its parser fails
        "import re, sys\n"
        "from pathlib import Path\n"
        "sys.modules['re._parser'] = None\n"
        "import harness.patterns\n"
        "from harness.discover import load_port\n"
        "assert not harness.patterns.PARSER\n"
        "assert harness.patterns.never_matches('a^b') is None\n"
        f"port = load_port(Path({str(tmp_path / 'port' / 'language.toml')!r}))\n"
        "assert port.manifest_error is None, port.manifest_error\n"
        "print('taken')\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout == "taken\n", done.stdout + done.stderr
    with_parser = load_port(tmp_path / "port" / "language.toml")
    assert with_parser.manifest_error is not None and "can never match" in with_parser.manifest_error
