"""The evaluation graph as a Cypher script: constraints, then batched `UNWIND [literal maps] ... MERGE` statements.

The script loads into an empty database (`cypher-shell -f graph.cypher`); every node is merged by its `id`, so
loading it twice changes nothing. Every string goes through `cypher_string`, which writes a single-quoted literal
with backslash, quotes and every non-printable character escaped (`\\uXXXX`, UTF-16 surrogate pairs above the BMP),
so untrusted text (judge reasoning, responses) cannot end the literal, the statement or the line.
"""

from __future__ import annotations

import functools
import math
import re
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any

from elotui.export.graph_model import NODE_LABELS, Graph, Node, Relationship, Tally

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


class _Escapes(dict[int, str]):
    """str.translate's table: each character's escape (`_escape_char`), worked out the first time it is seen."""

    def __missing__(self, code: int) -> str:
        self[code] = escaped = _escape_char(chr(code))
        return escaped


_ESCAPES = _Escapes()


def cypher_string(text: str) -> str:
    """`text` as a single-quoted Cypher string literal (one line, safe for any input): every character through
    `_escape_char`, by one str.translate (10^6 evaluations' texts: no Python call per character)."""
    if text.isprintable() and "\\" not in text and "'" not in text:  # nothing to escape (space is printable)
        return "'" + text + "'"
    return "'" + text.translate(_ESCAPES) + "'"


@functools.lru_cache(maxsize=4096)  # a graph has a few dozen property names, written 10^7 times
def cypher_name(name: str) -> str:
    """A property key, label or type: bare when it is a plain identifier, otherwise back-quoted."""
    if _IDENT.match(name):
        return name
    return "`" + name.replace("`", "``") + "`"


def _float_literal(value: float) -> str:
    return float.__repr__(value) if math.isfinite(value) else "null"


# the literal of a value of exactly these types, found by one lookup (10^6 evaluations: ~10^7 values); a value of
# any other type (a subclass, a list) goes through cypher_value's tests
_LITERALS: dict[type, Callable[[Any], str]] = {
    str: cypher_string,
    int: int.__repr__,
    float: _float_literal,
    bool: lambda value: "true" if value else "false",
    type(None): lambda _: "null",
}


def cypher_value(value: Any) -> str:
    literal = _LITERALS.get(type(value))
    if literal is not None:
        return literal(value)
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
    return "{" + ", ".join([f"{cypher_name(k)}: {cypher_value(v)}" for k, v in values.items()]) + "}"


_LITERALS[dict] = cypher_map


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


Group = tuple[str, ...]  # ("node", label) or ("rel", type, start label, end label)


def group_of(item: Node | Relationship) -> Group:
    if isinstance(item, Node):
        return ("node", item.label)
    return ("rel", item.type, item.start_label, item.end_label)


def batched(items: Iterable[Node | Relationship], batch: int) -> Iterator[tuple[Group, list[Any]]]:
    """The items in batches of `batch` per label or relationship group (each group's items in their order), a
    batch as soon as it is full and the groups' last, partial ones at the end. Where a group first appears an
    empty batch marks it, so that a consumer knows the order the groups appeared in."""
    pending: dict[Group, list[Any]] = {}
    for item in items:
        key = group_of(item)
        bucket = pending.get(key)
        if bucket is None:
            yield key, []
            bucket = pending[key] = []
        bucket.append(item)
        if len(bucket) >= batch:
            yield key, bucket
            pending[key] = []
    for key, bucket in pending.items():
        if bucket:
            yield key, bucket


def _statement(key: Group, chunk: list[Any]) -> str:
    """The statement merging a batch of one group: its rows as the literal list of `node_row`s or
    `relationship_row`s, each laid out as cypher_map lays the row out (without making the row)."""
    if key[0] == "node":
        rows = [f"{{id: {cypher_string(n.id)}, props: {cypher_map(n.props)}}}" for n in chunk]
        return node_statement(key[1], "[\n  " + ",\n  ".join(rows) + "\n]")
    rows = [
        f"{{start: {cypher_string(r.start)}, end: {cypher_string(r.end)}, props: {cypher_map(r.props)}}}"
        for r in chunk
    ]
    return relationship_statement(key[1], key[2], key[3], "[\n  " + ",\n  ".join(rows) + "\n]")


class CypherScript:
    """The script, written as the graph streams past in batches (`batched`): each group's statements go to a
    temporary file of their own (`scratch`: the folder for them, None for the system's), and `finish` writes the
    header, the constraints, the node statements label by label (NODE_LABELS order) and the relationship
    statements group by group (in the order the groups appeared)."""

    def __init__(self, *, scratch: Path | None = None) -> None:
        self.scratch = scratch
        self._files: dict[Group, IO[str]] = {}
        self.statements = 0

    def write(self, key: Group, chunk: list[Any]) -> None:
        fh = self._files.get(key)
        if fh is None:
            fh = self._files[key] = tempfile.TemporaryFile("w+", encoding="utf-8", dir=self.scratch)  # noqa: SIM115 -- closed by close()
        if not chunk:  # where the group first appeared: its place among the groups
            return
        fh.write(_statement(key, chunk) + ";\n\n")
        self.statements += 1

    def finish(self, out: IO[str], counts: Mapping[str, Mapping[str, int]], title: str | None = None) -> int:
        """Write the script to `out`; returns its number of statements."""
        labels = [*NODE_LABELS, *(k[1] for k in self._files if k[0] == "node" and k[1] not in NODE_LABELS)]
        out.write("// elotui evaluation graph" + (f": {_comment(title)}" if title else "") + "\n")
        out.write(f"// nodes: {_counts_text(counts['nodes'])}\n")
        out.write(f"// relationships: {_counts_text(counts['relationships'])}\n")
        out.write("// load into an empty database: cypher-shell -u neo4j -p <password> -f graph.cypher\n\n")
        for label in labels:
            out.write(constraint_statement(label) + ";\n\n")
        order = [("node", label) for label in labels] + [k for k in self._files if k[0] == "rel"]
        for key in order:
            fh = self._files.get(key)
            if fh is not None:
                fh.seek(0)
                shutil.copyfileobj(fh, out)
        return self.statements + len(labels)

    def close(self) -> None:
        for fh in self._files.values():
            fh.close()
        self._files = {}


def write_cypher(graph: Graph, fh: IO[str], *, batch: int = BATCH, title: str | None = None) -> int:
    """Write the script (one pass over the graph); returns the number of statements."""
    script, tally = CypherScript(), Tally()
    try:
        for key, chunk in batched(tally.counting(graph.items()), batch):
            script.write(key, chunk)
        return script.finish(fh, tally.counts(), title)
    finally:
        script.close()


def _comment(text: str) -> str:
    """Text safe inside a `//` comment line (no line breaks)."""
    return "".join(ch if ch.isprintable() else " " for ch in text)


def _counts_text(counts: Mapping[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in counts.items()) or "none"
