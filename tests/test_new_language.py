"""Adding a language takes a folder and a manifest, no harness code: a Perl port, which the project
does not ship, is started with ``harness new-language`` in a folder of its own, written, and found,
run and verified by ``harness compare`` beside the project's Python port."""

from __future__ import annotations

import shutil

import pytest

from conftest import ROOT, compare_json, harness, suite

pytestmark = pytest.mark.skipif(shutil.which("perl") is None, reason="perl is not on PATH")

# The port's own words, which its manifest, not the harness, teaches the harness to read.
PERL = r"""#!/usr/bin/perl
# The Tower of Hanoi in Perl: binary, recursive and cyclic.
use strict;
use warnings;

my @PEG = qw(A B C);
my ($method, $n) = @ARGV;
if (@ARGV != 2 || $n !~ /^\d+$/ || $method !~ /^(?:binary|recursive|cyclic)$/) {
    print STDERR "usage: perl hanoi.pl binary|recursive|cyclic N\n";
    exit 2;
}

sub say_move { printf "Move disc %d from %s to %s\n", $_[0], $PEG[$_[1]], $PEG[$_[2]] }

sub recursive {
    my ($k, $src, $dst, $via) = @_;
    return unless $k;
    recursive($k - 1, $src, $via, $dst);
    say_move($k, $src, $dst);
    recursive($k - 1, $via, $dst, $src);
}

sub binary {
    my ($k) = @_;
    my @peg = $k % 2 ? (0, 1, 2) : (0, 2, 1);
    for my $i (1 .. (1 << $k) - 1) {
        my $disc = 1;
        $disc++ until ($i >> ($disc - 1)) & 1;
        say_move($disc, $peg[($i & ($i - 1)) % 3], $peg[(($i | ($i - 1)) + 1) % 3]);
    }
}

sub cyclic {
    my ($k, $src, $dst) = @_;
    return unless $k;
    my $on = ($src + 1) % 3;
    if ($dst == $on) {
        my $after = ($dst + 1) % 3;
        cyclic($k - 1, $src, $after);
        say_move($k, $src, $dst);
        cyclic($k - 1, $after, $dst);
    } else {
        cyclic($k - 1, $src, $dst);
        say_move($k, $src, $on);
        cyclic($k - 1, $dst, $src);
        say_move($k, $on, $dst);
        cyclic($k - 1, $src, $dst);
    }
}

if ($method eq "binary") { binary($n) }
elsif ($method eq "recursive") { recursive($n, 0, 2, 1) }
else { cyclic($n, 0, 1) }
"""


def test_a_port_the_project_does_not_ship_is_scaffolded_written_and_verified(tmp_path):
    root = suite(tmp_path, real=("python",))
    started = harness("--root", str(root), "new-language", "perl", "--program", "hanoi.pl")
    assert started.returncode == 0, started.stderr
    folder = root / "perl"
    assert sorted(path.name for path in folder.iterdir()) == ["hanoi.pl", "language.toml"]

    # The stub runs at once, and compare says what is left to do.
    done, report = compare_json(tmp_path, "--n", "0-2", "--lang", "perl", root=root)
    assert done.returncode == 1
    outcomes = {(cell["method"], cell["n"]): cell["outcome"] for cell in report["cells"]}
    assert outcomes[("recursive", 0)] == "pass"
    assert outcomes[("recursive", 2)] == "fail"
    assert outcomes[("binary", 2)] == "skipped"

    # Write the program, and tell the manifest its methods and its words: nothing else.
    (folder / "hanoi.pl").write_text(PERL)
    manifest = (folder / "language.toml").read_text()
    manifest = manifest.replace('methods = ["recursive"]', 'methods = ["binary", "recursive", "cyclic"]')
    manifest = manifest.replace(
        "patterns = ['(?P<disk>\\d+) (?P<src>\\d) (?P<dst>\\d)']",
        "patterns = ['Move disc (?P<disk>\\d+) from (?P<src>[ABC]) to (?P<dst>[ABC])']",
    ).replace('pegs = ["0", "1", "2"]', 'pegs = ["A", "B", "C"]')
    (folder / "language.toml").write_text(manifest)

    done, report = compare_json(tmp_path, "--n", "0-8", root=root)
    assert done.returncode == 0, done.stdout + done.stderr
    perl = [cell for cell in report["cells"] if cell["port"] == "perl"]
    assert {(cell["method"], cell["outcome"]) for cell in perl} == {
        ("binary", "pass"), ("recursive", "pass"), ("cyclic", "pass"), ("iterative", "skipped")
    }
    assert report["ports"]["perl"]["versions"]["perl"].startswith("This is perl 5")
    for group in report["agreement"]:
        [(digest, labels)] = group["digests"].items()
        methods = ["binary", "recursive"] if group["puzzle"] == "classic" else ["cyclic"]
        assert {f"perl/{method}" for method in methods} | {f"python/{method}" for method in methods} <= set(labels)
    assert not (ROOT / "perl").exists()


def test_new_language_refuses_a_folder_that_exists_or_a_bad_name(tmp_path):
    root = suite(tmp_path, real=("python",))
    for name, message in [("python", "already exists"), ("Perl 5", "is not a port name")]:
        done = harness("--root", str(root), "new-language", name)
        assert done.returncode == 2
        assert message in done.stderr and "Traceback" not in done.stderr
