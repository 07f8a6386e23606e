"""What of a port's Containerfile the harness lets the engine build: what the engine would do for it
past the build's walls (fetch a URL, read another image) is refused, naming the line."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.recipe import recipe_fault

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("recipe", "refused"),
    [
        ("ARG BASE=x\nFROM ${BASE}\nADD http://example.org/a /a\n", "line 3: ADD fetches what a URL names"),
        ("FROM ${BASE}\nadd \\\n  http://example.org/a /a\n", "line 2: ADD"),
        ("FROM ${BASE}\nONBUILD ADD a /a\n", "line 2: ADD"),
        ("FROM ${BASE}\nAD\\\n# a comment\n\n  # another\nD http://example.org/a /a\n", "line 2: ADD fetches"),
        ("FR\\ \nOM debian:bookworm-slim\n", "line 1: FROM debian:bookworm-slim"),
        ("FROM ${BASE}\nCOPY --fr\\\nom=hanoi-polyglot/base:x /a /a\n", "line 2: COPY --from=hanoi-polyglot/base:x"),
        ("FROM ${BASE}\nRUN -\\\n-network=host true\n", "line 2: RUN --network=host"),
        ("FROM debian:bookworm-slim\n", "line 1: FROM debian:bookworm-slim: a port's image starts from ${BASE}"),
        ("FROM 0\n", "line 1: FROM 0"),
        ("FROM --platform=linux/amd64 ${BASE}\n", "line 1: FROM --platform"),
        ("FROM ${BASE} AS a b\n", "line 1: FROM"),
        ("FROM ${BASE}\nCOPY --from=hanoi-polyglot/python:x /etc/passwd /p\n", "line 2: COPY --from=hanoi-polyglot/python:x"),
        ("FROM ${BASE}\nCOPY --chown=0 --from=1 /a /a\n", "line 2: COPY --from=1"),
        ("FROM ${BASE}\nRUN --network=host true\n", "line 2: RUN --network=host: a step takes no option"),
        ("# escape=`\nFROM ${BASE}\n", "line 1: the parser directive escape=: a port's recipe takes none"),
        ("\ufeff# escape=`\nFROM ${BASE}\n", "line 1: holds U+FEFF"),
        ("# syntax=docker/dockerfile:1\nFROM ${BASE}\n", "line 1: the parser directive syntax="),
        ("FROM ${BASE}\nRUN echo \\\x1c\nADD http://198.51.100.7/x /x\n", "line 2: holds U+001C"),
        ("FROM ${BASE}\nRUN echo \\\u2028ADD http://198.51.100.7/x /x\n", "line 2: holds U+2028"),
    ],
)
def test_what_the_engine_would_do_past_the_walls_is_refused_naming_the_line(recipe, refused):
    fault = recipe_fault(recipe)
    assert fault is not None and str(fault).startswith(refused), fault


@pytest.mark.parametrize(
    "recipe",
    [
        "ARG BASE=debian:bookworm-slim\nFROM ${BASE}\nRUN echo a \\\n # a comment\n && echo b\nCOPY hanoi.sh /usr/local/bin/\n",
        "FROM $BASE AS build\nRUN true\nFROM build\nCOPY --from=build /a /a\nCOPY --from=0 /a /b\nCOPY --from=${BASE} /a /c\n",
        "",
    ],
)
def test_a_recipe_on_its_base_and_its_own_stages_is_built(recipe):
    assert recipe_fault(recipe) is None


def test_every_containerfile_in_the_checkout_is_one_the_harness_builds():
    found = sorted(ROOT.glob("*/Containerfile")) + sorted((ROOT / "tests").rglob("Containerfile"))
    assert found and {str(path): recipe_fault(path.read_text()) for path in found} == {str(path): None for path in found}
