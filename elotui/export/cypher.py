"""The evaluation graph as a Cypher script: constraints, then batched `UNWIND [literal maps] ... MERGE` statements.

The script loads into an empty database (`cypher-shell -f graph.cypher`); every node is merged by its `id`, so
loading it twice changes nothing. Every string goes through `cypher_string`, which writes a single-quoted literal
with backslash, quotes and every non-printable character escaped (`\\uXXXX`, UTF-16 surrogate pairs above the BMP),
so untrusted text (judge reasoning, responses) cannot end the literal, the statement or the line.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import IO, Any

from elotui.export.graph_model import Graph, Node, Relationship

BATCH = 500
_SIMPLE_ESCAPES = {"\\": "\\\\", "'": "\\'", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def _escape_char(ch: str) -> str:
    simple = _SIMPLE_ESCAPES.get(ch)
    if simple is not None:
        return simple
    if ch.isprintable() or ch == " ":
        return ch
    code = ord(ch)
    if code <= 0xFFFF:
        return f"\\u{code:04X}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04X}\\u{0xDC00 + (code & 0x3FF):04X}"


def cypher_string(text: str) -> str:
    """`text` as a single-quoted Cypher string literal (one line, safe for any input)."""
    return "'" + "".join(_escape_char(ch) for ch in text) + "'"


def cypher_name(name: str) -> str:
    """A property key, label or type: bare when it is a plain identifier, otherwise back-quoted."""
    if _IDENT.match(name):
        return name
    return "`" + name.replace("`", "``") + "`"


def cypher_value(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else "null"
    if isinstance(value, str):
        return cypher_string(value)
    if isinstance(value, Mapping):
        return cypher_map(value)
    if isinstance(value, Iterable):
        return "[" + ", ".join(cypher_value(v) for v in value) + "]"
    raise TypeError(f"no Cypher literal for {type(value).__name__}")


def cypher_map(values: Mapping[str, Any]) -> str:
    return "{" + ", ".join(f"{cypher_name(k)}: {cypher_value(v)}" for k, v in values.items()) + "}"


# --- statements (shared with the bolt loader, which passes `$rows` instead of a literal list) ---------------------


def constraint_statement(label: str) -> str:
    name = cypher_name(f"elotui_{label.lower()}_id")
    return f"CREATE CONSTRAINT {name} IF NOT EXISTS FOR (n:{cypher_name(label)}) REQUIRE n.id IS UNIQUE"


def node_statement(label: str, rows: str) -> str:
    """Merge nodes of one label; each row is `{id, props}`."""
    return f"UNWIND {rows} AS row\nMERGE (n:{cypher_name(label)} {{id: row.id}})\nSET n += row.props"


def relationship_statement(rel_type: str, start_label: str, end_label: str, rows: str) -> str:
    """Merge relationships of one type between two labels; each row is `{start, end, props}`."""
    return (
        f"UNWIND {rows} AS row\n"
        f"MATCH (a:{cypher_name(start_label)} {{id: row.start}})\n"
        f"MATCH (b:{cypher_name(end_label)} {{id: row.end}})\n"
        f"MERGE (a)-[r:{cypher_name(rel_type)}]->(b)\n"
        "SET r += row.props"
    )


def node_row(node: Node) -> dict[str, Any]:
    return {"id": node.id, "props": dict(node.props)}


def relationship_row(rel: Relationship) -> dict[str, Any]:
    return {"start": rel.start, "end": rel.end, "props": dict(rel.props)}


def _batches(items: list[Any], size: int) -> Iterator[list[Any]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def relationship_groups(graph: Graph) -> dict[tuple[str, str, str], list[Relationship]]:
    groups: dict[tuple[str, str, str], list[Relationship]] = {}
    for rel in graph.relationships:
        groups.setdefault((rel.type, rel.start_label, rel.end_label), []).append(rel)
    return groups


def cypher_statements(graph: Graph, *, batch: int = BATCH) -> Iterator[str]:
    """Every statement of the script, without the trailing `;`."""
    by_label = graph.nodes_by_label()
    for label in by_label:
        yield constraint_statement(label)
    for label, nodes in by_label.items():
        for chunk in _batches(nodes, batch):
            literal = "[\n  " + ",\n  ".join(cypher_map(node_row(n)) for n in chunk) + "\n]"
            yield node_statement(label, literal)
    for (rel_type, start_label, end_label), rels in relationship_groups(graph).items():
        for chunk in _batches(rels, batch):
            literal = "[\n  " + ",\n  ".join(cypher_map(relationship_row(r)) for r in chunk) + "\n]"
            yield relationship_statement(rel_type, start_label, end_label, literal)


def write_cypher(graph: Graph, fh: IO[str], *, batch: int = BATCH, title: str | None = None) -> int:
    """Write the script; returns the number of statements."""
    counts = graph.counts()
    fh.write("// elotui evaluation graph" + (f": {_comment(title)}" if title else "") + "\n")
    fh.write(f"// nodes: {_counts_text(counts['nodes'])}\n")
    fh.write(f"// relationships: {_counts_text(counts['relationships'])}\n")
    fh.write("// load into an empty database: cypher-shell -u neo4j -p <password> -f graph.cypher\n\n")
    n = 0
    for statement in cypher_statements(graph, batch=batch):
        fh.write(statement + ";\n\n")
        n += 1
    return n


def _comment(text: str) -> str:
    """Text safe inside a `//` comment line (no line breaks)."""
    return "".join(ch if ch.isprintable() else " " for ch in text)


def _counts_text(counts: Mapping[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in counts.items()) or "none"
