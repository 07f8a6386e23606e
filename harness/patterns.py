"""Which of a manifest's patterns can never match: proved from the pattern's parse, when it is read.

The harness matches a pattern against one line at a time (the whole line, or a whole piece of it),
and a line never holds a line break. So a pattern that needs ``^`` after some text, ``$`` before
some, or a ``\\n`` can never match; nor can a move's pattern whose group ``disk``, which the harness
reads a disc's number from, never holds digits alone. Nothing else is judged. The parse is the
standard library's (``regex``, which runs the patterns, has no public parser), so a pattern it
cannot parse, or reads otherwise than ``regex`` might, is let be. Every step keeps every way a
pattern might match (a lookaround, a back-reference or an atomic group is taken to allow
anything), so a pattern is refused only when no way is left.

That parser is private to the standard library (``re._parser``, as of Python 3.11): on a Python
that has it elsewhere, or whose parse has another shape, no pattern is judged, as if each were one
it cannot parse, and a pattern that never matches shows as an error when its port runs.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterable
from typing import Any, NamedTuple

try:
    import re._constants as sre
    import re._parser as sre_parse
except ImportError:  # a Python whose re keeps its parser elsewhere
    PARSER = False
else:
    PARSER = True

HINT = "patterns must match the whole line, so they need no '^' or '$'"
MAX_NESTING = 50
"""How deeply a pattern's groups may nest. Both parsers (regex's, which compiles the patterns, and
the standard library's, which the proof reads) recurse once a group, so a pattern of thousands of
groups each inside the one before is refused before either reads it."""


class Shape(NamedTuple):
    """One way a part of a pattern can match, as far as a line goes: whether it reads any text,
    whether it must stand at the start or at the end of the line (it holds an anchor there), and
    whether what it reads may be all digits."""

    text: bool
    start: bool
    end: bool
    digits: bool


EMPTY = Shape(False, False, False, True)
TEXT = frozenset({Shape(True, False, False, False), Shape(True, False, False, True)})
Shapes = frozenset[Shape]
Walked = tuple[Shapes, str]
"""The shapes a part can match, and, when there are none, why."""


def never_matches(pattern: str, digit_groups: Iterable[str] = ()) -> str | None:
    """Why ``pattern`` can never match a line, or None if it may, or cannot be judged. Each group
    named in ``digit_groups`` must be able to hold ASCII digits: the harness reads a number there."""
    parsed = _python_parse(pattern)
    if parsed is None:
        return None
    try:
        groups = {number: name for name, number in parsed.state.groupdict.items() if name in digit_groups}
        shapes, why = _Walk(groups).sequence(parsed)
    except (RecursionError, OverflowError, ValueError):
        return None
    except (AttributeError, TypeError, LookupError):  # a parse of another shape than the one walked here
        return None
    return None if shapes else why


def _python_parse(pattern: str) -> Any:
    """Python's parse of ``pattern`` (``re._parser``'s), which the proofs here read; None where it
    cannot be had: no such parser in this Python, or a pattern it refuses or reads otherwise than
    regex may (re warns where it does)."""
    if not PARSER:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            return sre_parse.parse(pattern)
    except (re.error, Warning, RecursionError, OverflowError, ValueError):
        return None


def nesting(pattern: str) -> int:
    """How deeply the groups of ``pattern`` nest, read from its text: each ``(`` that is not escaped
    nor in a set of characters opens one, each such ``)`` closes one."""
    depth = deepest = 0
    escaped = False
    opened: int | None = None  # where the set of characters the text is in opened, if it is in one
    for index, char in enumerate(pattern):
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif opened is not None:  # a ']' first in the set, or after its '^', is one of its characters
            first = opened + 1 + (pattern[opened + 1 : opened + 2] == "^")
            opened = None if char == "]" and index > first else opened
        elif char == "[":
            opened = index
        elif char in "()":
            depth = depth + 1 if char == "(" else max(depth - 1, 0)
            deepest = max(deepest, depth)
    return deepest


class _Walk:
    """The shapes each part of a parsed pattern can match; ``digit_groups`` maps a group's number to
    its name, for the groups that must hold digits."""

    def __init__(self, digit_groups: dict[int, str]) -> None:
        self._digit_groups = digit_groups

    def sequence(self, items: Iterable[tuple[Any, Any]]) -> Walked:
        shapes: Shapes = frozenset({EMPTY})
        for op, av in items:
            part, why = self.node(op, av)
            shapes, why = _then(shapes, part) if part else (frozenset(), why)
            if not shapes:
                return shapes, why
        return shapes, ""

    def node(self, op: Any, av: Any) -> Walked:
        if op in (sre.LITERAL, sre.NOT_LITERAL, sre.ANY, sre.IN):
            return _character(op, av)
        if op is sre.AT:
            start = av in (sre.AT_BEGINNING, sre.AT_BEGINNING_STRING, sre.AT_BEGINNING_LINE)
            end = av in (sre.AT_END, sre.AT_END_STRING, sre.AT_END_LINE)
            return frozenset({Shape(False, start, end, True)}), ""
        if op is sre.SUBPATTERN:
            group, _, _, items = av
            shapes, why = self.sequence(items)
            if group in self._digit_groups and shapes:
                shapes = frozenset(shape for shape in shapes if shape.text and shape.digits)
                why = f"its group {self._digit_groups[group]} never holds a number in the digits 0-9, which the harness reads"
            return shapes, why
        if op is sre.ATOMIC_GROUP:
            return self.sequence(av)
        if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
            low, high, items = av
            return _repeat(self.sequence(items), low, high)
        if op is sre.BRANCH:
            return self._either(av[1])
        if op is sre.GROUPREF_EXISTS:
            return self._either([av[1], av[2] or []])
        if op is sre.GROUPREF:
            return TEXT | {EMPTY}, ""
        return frozenset({EMPTY}), ""  # a lookaround or a word boundary: it reads nothing, and may hold anywhere

    def _either(self, branches: list[Any]) -> Walked:
        walked = [self.sequence(branch) for branch in branches]
        return frozenset().union(*(shapes for shapes, _ in walked)), walked[0][1]


def _then(before: Shapes, after: Shapes) -> Walked:
    """The shapes of one part followed by another: text before a start, or after an end, is no way."""
    shapes, why = set(), ""
    for first in before:
        for second in after:
            if first.text and second.start:
                why = why or f"'^' or '\\A' comes after text the pattern reads first ({HINT})"
            elif first.end and second.text:
                why = why or f"'$' or '\\Z' comes before text the pattern still reads ({HINT})"
            else:
                shapes.add(Shape(first.text or second.text, first.start or second.start, first.end or second.end, first.digits and second.digits))
    return frozenset(shapes), why


def _repeat(part: Walked, low: int, high: int) -> Walked:
    """The shapes of a part repeated ``low`` to ``high`` times. Those of k repeats follow from those
    of k - 1, and there are few, so the list of them soon comes round to one it has had: from there
    it repeats."""
    shapes, why = part
    powers: list[Shapes] = [frozenset({EMPTY})]
    seen = {powers[0]: 0}
    while len(powers) <= high:
        following, killed = _then(powers[-1], shapes)
        why = why or killed
        if following in seen:
            break
        seen[following] = len(powers)
        powers.append(following)
    else:
        return frozenset().union(*powers[low:]), why
    first, cycle = seen[following], len(powers) - seen[following]
    counts = range(low, min(high, max(low, len(powers)) + cycle) + 1)
    return frozenset().union(*(powers[k] if k < len(powers) else powers[first + (k - first) % cycle] for k in counts)), why


CATEGORIES = {
    "CATEGORY_DIGIT": r"\d", "CATEGORY_NOT_DIGIT": r"\D", "CATEGORY_SPACE": r"\s",
    "CATEGORY_NOT_SPACE": r"\S", "CATEGORY_WORD": r"\w", "CATEGORY_NOT_WORD": r"\W",
}


def _character(op: Any, av: Any) -> Walked:
    """One character: none for a line break, which no line holds. (A set that seems to hold no
    character, such as [^\\d\\D], is not judged: regex matches any character with it.)"""
    if op is sre.LITERAL and av == ord("\n") or op is sre.IN and all(item == (sre.LITERAL, ord("\n")) for item in av):
        return frozenset(), "it needs a line break ('\\n'), and a line never holds one: each pattern reads one line"
    digit = any(_holds(op, av, digit) for digit in "0123456789")
    return frozenset(shape for shape in TEXT if digit or not shape.digits), ""


def _holds(op: Any, av: Any, char: str) -> bool:
    """Whether a character of the pattern can be ``char``; where unsure, yes. A set that excludes
    a class (\\d, \\w, \\s or theirs opposites) is not judged: regex reads [^\\d\\D] as any character."""
    if op is sre.LITERAL:
        return bool(av == ord(char))
    if op is not sre.IN:
        return bool(op is sre.ANY or av != ord(char))
    negated = av[0][0] is sre.NEGATE
    if negated and any(kind is sre.CATEGORY for kind, _ in av):
        return True
    return any(_in_item(kind, value, char) for kind, value in av[negated:]) != negated


def _in_item(kind: Any, value: Any, char: str) -> bool:
    """Whether one item of a set (a character, a range or a class) holds ``char``; where unsure, yes."""
    if kind is sre.LITERAL:
        return bool(value == ord(char))
    if kind is sre.RANGE:
        return bool(value[0] <= ord(char) <= value[1])
    return str(value) not in CATEGORIES or re.fullmatch(CATEGORIES[str(value)], char) is not None


def literal(pattern: str) -> str | None:
    """The one text ``pattern`` matches, where it matches nothing else (no class, repeat, choice,
    anchor or flag, but Unicode's, in Python's parse of it); None for any other pattern."""
    parsed = _python_parse(pattern)
    if parsed is None or parsed.state.flags != sre.SRE_FLAG_UNICODE or any(op is not sre.LITERAL for op, _ in parsed):
        return None
    return "".join(chr(code) for _, code in parsed)


def fixed_around(pattern: str, free: str) -> tuple[int, int] | None:
    """Where ``pattern`` reads a fixed number of characters, one each, around its group ``free``,
    which reads any number of one set's characters (``(?P<discs>[0-9 ]*)``): how many it reads
    before that group and after it. Such a pattern can match a line in one way only, so the group
    holds exactly what lies between those two counts of characters, whatever the line. None for
    any other pattern (any other repeat, a choice, an anchor, a lookaround, a flag but Unicode's),
    and where Python's parse of it cannot be had."""
    parsed = _python_parse(pattern)
    if parsed is None:
        return None
    names = {number: name for name, number in parsed.state.groupdict.items()}
    counts: list[int] = [0]
    for op, av in parsed:
        if op in _ONE_CHARACTER:
            counts[-1] += 1
        elif op is not sre.SUBPATTERN or av[1] or av[2]:
            return None
        elif names.get(av[0]) == free and len(counts) == 1 and _any_of_one_set(av[3]):
            counts.append(0)
        elif all(item_op in _ONE_CHARACTER for item_op, _ in av[3]):
            counts[-1] += len(av[3])
        else:
            return None
    if parsed.state.flags != sre.SRE_FLAG_UNICODE or len(counts) != 2:
        return None
    return counts[0], counts[1]


_ONE_CHARACTER = (sre.LITERAL, sre.NOT_LITERAL, sre.ANY, sre.IN) if PARSER else ()


def _any_of_one_set(items: Any) -> bool:
    """Whether a group's items are one repeat, at least none or one time and without bound, of one
    character of a set."""
    if len(items) != 1 or items[0][0] not in (sre.MAX_REPEAT, sre.MIN_REPEAT):
        return False
    low, high, repeated = items[0][1]
    return bool(low <= 1 and high is sre.MAXREPEAT and len(repeated) == 1 and repeated[0][0] in _ONE_CHARACTER)
