"""The proof that a pattern can never match is only ever right: checked against regex itself, on
every short line, for patterns built of the pieces the proof reasons about."""

from __future__ import annotations

import itertools

import pytest
import regex
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from harness.patterns import fixed_around, never_matches

LINES = ["".join(letters) for size in range(5) for letters in itertools.product("a0 ", repeat=size)]
"""Every line of up to four characters from a letter, a digit and a space (no line holds a line break)."""

ATOMS = [
    "a", "0", " ", "[a0]", "[^a]", "[^0-9]", "[^\\W]", ".", r"\d", r"\D", r"\w", r"\s", r"[^\d\D]", r"\n", "[\\n]",
    "^", "$", r"\A", r"\Z", r"\b", "(?=a)", "(?!0)", "(?<=a)", "(?:)", "(?>a*)", "(?:a|(0))\\1?",
]
patterns = st.recursive(
    st.sampled_from(ATOMS),
    lambda inner: st.one_of(
        st.lists(inner, min_size=2, max_size=4).map("".join),
        st.tuples(inner, inner).map(lambda pair: f"(?:{pair[0]}|{pair[1]})"),
        st.tuples(inner, st.sampled_from(["?", "*", "+", "{2}", "{0,3}", "*?", "++", "{3,}"])).map(lambda pair: f"(?:{pair[0]}){pair[1]}"),
    ),
    max_leaves=8,
)


@settings(max_examples=400, deadline=None)
@given(patterns, st.one_of(st.none(), patterns), patterns)
def test_a_pattern_said_never_to_match_matches_no_line(before, disk, after):
    pattern = before + (f"(?P<disk>{disk})" if disk is not None else "") + after
    try:
        compiled = regex.compile(pattern)
    except regex.error:  # a back-reference to a group it stands in
        assume(False)
    if never_matches(pattern) is not None:
        assert never_matches(pattern), "a pattern refused says why"
        assert not any(compiled.search(line) for line in LINES), pattern  # nowhere in a line, as a separator is used
    if never_matches(pattern, ["disk"]) is not None:
        for line in LINES:
            match = compiled.fullmatch(line)
            assert match is None or match["disk"] is not None and not match["disk"].isdigit(), (pattern, line)


def test_what_is_proved_says_why():
    anchor = "'^' or '\\A' comes after text the pattern reads first (patterns must match the whole line, so they need no '^' or '$')"
    assert never_matches("x^") == never_matches("a^b") == anchor
    assert never_matches(r"(?:a$|b\Z)c").startswith("'$' or '\\Z' comes before text the pattern still reads")
    assert never_matches(r"x{100000}^") is not None and never_matches(r"(?:x$){1,}") is None
    assert never_matches(r"(?:^x){2}") == never_matches("x^")
    assert never_matches(r"(?P<disk>\w+)\n") == "it needs a line break ('\\n'), and a line never holds one: each pattern reads one line"
    assert never_matches(r"(?P<disk>[^0-9])", ["disk"]) == "its group disk never holds a number in the digits 0-9, which the harness reads"
    assert never_matches(r"(?P<disk>[^\d])", ["disk"]) is None  # regex reads a set that excludes a class otherwise
    assert never_matches(r"a[^\d\D]") is None  # no character for the standard library, any for regex
    assert never_matches(r"\p{Nd}\n") is None  # regex's own syntax is not judged


def test_this_python_has_the_parser_the_proof_walks():
    """The proof reads the standard library's private parser, re._parser: every Python the project
    supports (3.11 to 3.13, each in CI) must have it, so that a new one without it is seen here."""
    import harness.patterns

    assert harness.patterns.PARSER
    assert never_matches("a^b") is not None


def test_a_parse_of_another_shape_is_not_judged(monkeypatch):
    """Should a later Python's parser hand back another shape, the proof takes the pattern rather
    than fail: a pattern is refused only on a proof."""
    import harness.patterns

    monkeypatch.setattr(harness.patterns.sre_parse, "parse", lambda pattern: [(object(), None)])
    assert never_matches("a^b") is None
    monkeypatch.setattr(harness.patterns.sre_parse, "parse", lambda pattern: object())
    assert never_matches("a^b") is None


@pytest.mark.parametrize(
    ("pattern", "fixed"),
    [
        (r"(?P<peg>[012]):(?P<discs>[0-9 ]*)", (2, 0)),
        (r"Peg (?P<peg>[ABC]): \[(?P<discs>[\d,]*)\]", (8, 1)),
        (r"(?P<peg>0|1|2):(?P<discs>[0-9 ]*?)", (2, 0)),  # a choice of single characters is a set
        (r"(?P<peg>[012]): ?(?P<discs>[0-9 ]*)", None),  # the space may be read before the discs or among them
        (r"\[*(?P<discs>[0-9,]*)\]*", None),
        (r"(?P<peg>[012]):(?P<discs>[0-9 ]{0,5})", None),  # a bound: a long tower is not read whole
        (r"(?P<peg>[012]):(?P<discs>(?:[0-9] )*)", None),
        (r"(?i)(?P<peg>[a-c]):(?P<discs>[0-9 ]*)", None),
        (r"(?P<peg>[012]):(?P<discs>[0-9 ]*)$", None),
        (r"(?P<peg>[012]):(?P<discs>[0-9 ]*)(?<!9)", None),
        (r"(?P<peg>[012]):(?P<discs>[0-9 ]*)(?P<more>[0-9 ]*)", None),
        (r"(?P<peg>[012]):", None),
    ],
)
def test_a_pattern_reads_fixed_characters_around_its_discs_only_where_its_parse_says_one_way(pattern, fixed):
    assert fixed_around(pattern, "discs") == fixed
