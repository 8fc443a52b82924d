"""task.yaml is parsed once: the document is built from the same event stream the
safety checks walk (store/yaml_text.py). Whatever it accepts must read exactly as
PyYAML's safe loader (libyaml's, which read task.yaml before) reads it, and what
the safe loader refuses it refuses too."""

from __future__ import annotations

import datetime

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from teamdeck.errors import InvalidFile
from teamdeck.store.yaml_text import dump_yaml, parse_yaml

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**12), 10**12),
    st.floats(allow_nan=False),
    st.text(max_size=12),
    st.sampled_from(("012", "0o12", "1e3", "yes", "no", "~", "2026-03-01", "2026-03-01T12:00:00Z", ".inf", "0x1F")),
    st.dates(min_value=datetime.date(1900, 1, 1)),
)


def safe_load(text: str) -> object:
    return yaml.load(text, Loader=yaml.CSafeLoader)


documents = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(documents, st.booleans())
def test_a_written_document_reads_as_the_safe_loader_reads_it(document, flow) -> None:
    text = yaml.safe_dump(document, default_flow_style=flow, allow_unicode=True)
    assert parse_yaml(text.encode(), "t.yaml") == safe_load(text)
    ours = dump_yaml(document)
    assert parse_yaml(ours, "t.yaml") == safe_load(ours.decode())


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab1: -[]{},\n!?'\"#.~*&|>", max_size=40))
def test_any_text_is_accepted_only_as_the_safe_loader_reads_it(text) -> None:
    try:
        ours = parse_yaml(text.encode(), "t.yaml")
    except InvalidFile:
        return  # refusing more than the safe loader (anchors, duplicates, keys) is allowed
    assert ours == safe_load(text)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("a: 1\n<<: {b: 2}\n", "constructor"),
        ("a: !!seq {b: 1}\n", "expected a sequence node, but found mapping"),
        ("x: !!map 1\n", "expected a mapping node, but found scalar"),
        ("---\na: 1\n---\nb: 2\n", "single document"),
        ("? [a]\n: 1\n", "keys must be strings"),
    ],
)
def test_what_the_safe_loader_cannot_build_is_refused_with_its_line(text, why) -> None:
    with pytest.raises(InvalidFile) as caught:
        parse_yaml(text.encode(), "t.yaml")
    assert why in caught.value.why and caught.value.where.startswith("line ")


@pytest.mark.parametrize("text", ["a: 2026-13-45\n", "b: !!int x\n", "c: !!bool maybe\n", "d: !!float zz\n"])
def test_a_scalar_its_tag_cannot_read_is_one_error_with_its_line(text) -> None:
    """Before, ``!!bool maybe`` escaped as a KeyError traceback."""
    with pytest.raises(InvalidFile) as caught:
        parse_yaml(text.encode(), "t.yaml")
    assert caught.value.where == "line 1" and "is not a valid" in caught.value.why
