"""Property tests: any text (quotes, backslashes, line breaks, control characters, any unicode) survives the Cypher
string escaping and the CSV quoting unchanged, and cannot end a literal, a statement or a line."""

from __future__ import annotations

import csv
import io

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from elotui.export.cypher import cypher_map, cypher_string, write_cypher
from elotui.export.graph_model import Graph, Node, Relationship
from elotui.export.neo4j_csv import csv_field, write_nodes_csv
from tests.export.cypher_reader import LiteralReader, read_string_literal, split_script

# every code point Python strings can hold that SQLite/UTF-8 can store (no lone surrogates), weighted toward the
# characters that break naive escapers
HOSTILE = st.sampled_from(
    list("'\"\\\n\r\t\x00\x08\x0c\x1b\x7f\x85\u2028\u2029\ufeff`;{}[]/") + ["\\u0027", "*/"]
)
TEXT = st.lists(st.one_of(st.text(max_size=8), HOSTILE), max_size=12).map("".join)


@settings(max_examples=400, deadline=None)
@given(TEXT)
@example("it's \\' \\\\' '")
@example("\\u0041 is not A")
@example("😀\U0010ffff\x00")
@example("'}]; MATCH (n) DETACH DELETE n //")
def test_cypher_literal_round_trip(text: str) -> None:
    literal = cypher_string(text)
    assert read_string_literal(literal) == text
    assert literal.startswith("'") and literal.endswith("'")
    assert all(ch.isprintable() for ch in literal)  # one line, no controls, no separators: nothing to break


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(max_size=6), TEXT, max_size=4))
def test_cypher_map_round_trip_with_any_keys(values: dict[str, str]) -> None:
    assert LiteralReader(cypher_map(values)).map() == values


@settings(max_examples=150, deadline=None)
@given(TEXT, TEXT)
def test_script_with_hostile_reasoning_reads_back(reasoning: str, text: str) -> None:
    g = Graph(
        fixed_nodes=[
            Node("response:p:a", "Response", {"text": text}),
            Node("evaluation:x", "PairwiseEvaluation", {"reasoning": reasoning, "winner": "a"}),
        ],
        fixed_relationships=[
            Relationship("FAVORS", "evaluation:x", "response:p:a", "PairwiseEvaluation", "Response")
        ],
    )
    buf = io.StringIO()
    n = write_cypher(g, buf, title="x\nMATCH (n) DETACH DELETE n;" + reasoning)
    statements = split_script(buf.getvalue())
    assert len(statements) == n == 4 + 2 + 1
    found = []
    for body, code in statements:
        if "UNWIND" in code and "MERGE (n:" in code:
            start = body.index("UNWIND [") + len("UNWIND ")
            found += LiteralReader(body, start).list()
    assert {r["id"]: r["props"] for r in found} == {
        "response:p:a": {"text": text},
        "evaluation:x": {"reasoning": reasoning, "winner": "a"},
    }
    for _, code in statements:
        assert "DELETE" not in code


@settings(max_examples=400, deadline=None)
@given(TEXT)
@example('"a,b"\r\n"c"')
def test_csv_field_round_trip(text: str) -> None:
    line = csv_field(text) + "," + csv_field(None) + "," + csv_field(3) + "\n"
    assert next(csv.reader(io.StringIO(line, newline=""))) == [text, "", "3"]


@settings(max_examples=150, deadline=None)
@given(st.lists(TEXT, min_size=1, max_size=5))
def test_nodes_csv_round_trip(reasonings: list[str]) -> None:
    nodes = [
        Node(f"evaluation:{i}", "PairwiseEvaluation", {"reasoning": r, "sample": i})
        for i, r in enumerate(reasonings)
    ]
    buf = io.StringIO(newline="")
    write_nodes_csv("PairwiseEvaluation", nodes, buf)
    rows = list(csv.reader(io.StringIO(buf.getvalue(), newline="")))
    header = rows[0]
    col = header.index("reasoning:string")
    assert [r[col] for r in rows[1:]] == reasonings
    assert [r[0] for r in rows[1:]] == [n.id for n in nodes]
    assert [int(r[header.index("sample:long")]) for r in rows[1:]] == list(range(len(reasonings)))


@pytest.mark.parametrize(
    ("text", "literal"),
    [
        ("plain", "'plain'"),
        ("it's", "'it\\'s'"),
        ('say "hi"', "'say \"hi\"'"),
        ("a\\b", "'a\\\\b'"),
        ("l1\nl2\r\tx", "'l1\\nl2\\r\\tx'"),
        ("\x00\x1f\x7f", "'\\u0000\\u001F\\u007F'"),
        ("\u2028", "'\\u2028'"),
        ("é中", "'é中'"),
        ("😀", "'😀'"),
        ("\U000e0001", "'\\uDB40\\uDC01'"),  # a non-printable astral char: UTF-16 surrogate pair
    ],
)
def test_cypher_literal_by_hand(text: str, literal: str) -> None:
    assert cypher_string(text) == literal


@settings(max_examples=400, deadline=None)
@given(TEXT)
@example("plain text, nothing to escape")
def test_cypher_string_is_each_character_escaped(text: str) -> None:
    """The one-call escaping (a fast return for text with nothing to escape, str.translate otherwise) writes
    exactly each character's escape."""
    from elotui.export.cypher import _escape_char

    assert cypher_string(text) == "'" + "".join(_escape_char(ch) for ch in text) + "'"
