"""Each writer's and reader's module is held to its protocol when it is loaded: the functions the
registry's users call, with the parameters they pass. A module that lacks one is refused, naming
what it lacks, rather than failing deep inside a run."""

from __future__ import annotations

import inspect
import sys
import types

import pytest

from harness.expect import ReaderModule, reader_module
from harness.readers import READERS, Reading
from harness.report import FORMS, WRITERS, Writer


def parameters(function: object) -> list[str]:
    """A function's parameter names, as a protocol's method has them after ``self``."""
    names = list(inspect.signature(function).parameters)  # type: ignore[arg-type]
    return names[1:] if names[:1] == ["self"] else names


def held_to(module: types.ModuleType, protocol: type) -> None:
    for name in (name for name, value in vars(protocol).items() if inspect.isfunction(value) and not name.startswith("_")):
        assert parameters(getattr(module, name)) == parameters(getattr(protocol, name)), f"{module.__name__}.{name}"


@pytest.mark.parametrize("name", list(WRITERS))
def test_every_writer_module_holds_its_protocol(name):
    writer = WRITERS[name]
    module = __import__(writer.module, fromlist=["_"])
    assert "report" in writer.documents, "every writer writes the report"
    for document in writer.documents:
        assert isinstance(module, FORMS[document])
        held_to(module, FORMS[document])


@pytest.mark.parametrize("name", list(READERS))
def test_every_reader_module_holds_its_protocol(name):
    module = reader_module(READERS[name].load())
    held_to(module, ReaderModule)  # type: ignore[arg-type]


@pytest.fixture
def bare_module(monkeypatch: pytest.MonkeyPatch) -> str:
    """A module with nothing in it, importable by name for this test alone."""
    monkeypatch.setitem(sys.modules, "bare_form", types.ModuleType("bare_form"))
    return "bare_form"


def test_a_writer_module_without_its_function_is_refused_naming_it(bare_module):
    writer = Writer("bare", bare_module, "bare form", "Write nothing.", documents=("report", "listing"))
    with pytest.raises(TypeError, match=r"bare_form has no report_text\(report\)"):
        writer.text(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"bare_form has no listing_text\(listing\)"):
        writer.listing_text(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"bare_form has no figures_text\(figures\)"):  # not one of its documents
        writer.figures_text({})


def test_a_reader_module_without_its_functions_is_refused_naming_them(bare_module):
    reading = Reading("bare", bare_module, "BareReader", (), (), patterns=False)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"bare_form lacks wording\(output, plan\) or counter\(output\)"):
        reader_module(reading.load())
