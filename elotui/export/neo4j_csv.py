"""The evaluation graph as `neo4j-admin database import` CSV files, plus a README with the import command.

One `nodes_<Label>.csv` per label (`id:ID`, typed properties, `:LABEL`) and one `rels_<TYPE>.csv` per type
(`:START_ID`, `:END_ID`, `:TYPE`, typed properties). Ids are global (prefixed by kind), so no ID spaces are needed.
Strings are always double-quoted with inner quotes doubled (RFC 4180; backslashes are literal in neo4j-admin's
default quoting); an unset property is an empty unquoted field, which neo4j-admin skips. Fields may span lines
(reasoning does), hence `--multiline-fields=true` in the command.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any

from elotui.export.graph_model import (
    NODE_LABELS,
    NODE_PROPERTIES,
    REL_PROPERTIES,
    REL_TYPES,
    Node,
    Relationship,
)

_TYPES = {"string": "string", "long": "long", "double": "double", "boolean": "boolean"}


def _csv_string(value: str) -> str:
    return '"' + value.replace('"', '""') + '"'


def _csv_float(value: float) -> str:
    return float.__repr__(value) if math.isfinite(value) else ""


# the field of a value of exactly these types, found by one lookup; any other type goes through csv_field's tests
_FIELDS: dict[type, Callable[[Any], str]] = {
    str: _csv_string,
    int: int.__repr__,
    float: _csv_float,
    bool: lambda value: "true" if value else "false",
    type(None): lambda _: "",
}


def csv_field(value: Any) -> str:
    field = _FIELDS.get(type(value))
    if field is not None:
        return field(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else ""
    return _csv_string(str(value))


def _header(name: str, kind: str) -> str:
    return f"{name}:{_TYPES[kind]}"  # property names are plain identifiers: no quoting needed


def nodes_header(label: str) -> str:
    props = NODE_PROPERTIES.get(label, ())
    return ",".join(["id:ID", *(_header(n, k) for n, k in props), ":LABEL"]) + "\n"


_NODE_NAMES = {label: tuple(name for name, _ in props) for label, props in NODE_PROPERTIES.items()}
_REL_NAMES = {rel_type: tuple(name for name, _ in props) for rel_type, props in REL_PROPERTIES.items()}


def csv_line(values: Iterable[Any]) -> str:
    """The fields of `values` (csv_field each), comma-separated, as a line."""
    return ",".join([_FIELDS.get(type(v), csv_field)(v) for v in values]) + "\n"


def node_line(node: Node) -> str:
    get = node.props.get
    return csv_line([node.id, *[get(n) for n in _NODE_NAMES.get(node.label, ())], node.label])


def rels_header(rel_type: str) -> str:
    props = REL_PROPERTIES.get(rel_type, ())
    return ",".join([":START_ID", ":END_ID", ":TYPE", *(_header(n, k) for n, k in props)]) + "\n"


def rel_line(rel: Relationship) -> str:
    get = rel.props.get
    return csv_line([rel.start, rel.end, rel.type, *[get(n) for n in _REL_NAMES.get(rel.type, ())]])


def write_nodes_csv(label: str, nodes: list[Node], fh: IO[str]) -> None:
    fh.write(nodes_header(label))
    fh.writelines(node_line(node) for node in nodes)


class Neo4jCsv:
    """The nodes_/rels_ files of `directory`, written as the graph streams past (`add`): every file is opened
    at once with its header (an empty one stays header only), each item appended to its own."""

    def __init__(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.directory = directory
        self.paths: list[Path] = []
        self._files: dict[tuple[str, str], IO[str]] = {}
        try:
            for kind, names, header in (
                ("nodes", NODE_LABELS, nodes_header),
                ("rels", REL_TYPES, rels_header),
            ):
                for name in names:
                    self._open(kind, name).write(header(name))
        except BaseException:
            self.close()
            raise

    def _open(self, kind: str, name: str) -> IO[str]:
        path = self.directory / f"{kind}_{name}.csv"
        fh = self._files[(kind, name)] = path.open("w", encoding="utf-8", newline="")  # closed by close()
        self.paths.append(path)
        return fh

    def writing(self, items: Iterable[Node | Relationship]) -> Iterator[Node | Relationship]:
        """`items`, each written to its file as it passes."""
        for item in items:
            self.add(item)
            yield item

    def add(self, item: Node | Relationship) -> None:
        if isinstance(item, Node):
            fh = self._files.get(("nodes", item.label)) or self._open("nodes", item.label)
            fh.write(node_line(item))
        else:
            fh = self._files.get(("rels", item.type)) or self._open("rels", item.type)
            fh.write(rel_line(item))

    def close(self) -> None:
        for fh in self._files.values():
            fh.close()
        self._files = {}


def import_command(node_files: list[str], rel_files: list[str], database: str = "neo4j") -> str:
    parts = ["neo4j-admin database import full"]
    parts += [f"  --nodes={name}" for name in node_files]
    parts += [f"  --relationships={name}" for name in rel_files]
    parts += ["  --multiline-fields=true", "  --overwrite-destination=true", f"  {database}"]
    return " \\\n".join(parts)


def readme_text(
    counts: Mapping[str, Mapping[str, int]],
    node_files: list[str],
    rel_files: list[str],
    *,
    title: str | None = None,
) -> str:
    nodes = ", ".join(f"{k} {v}" for k, v in counts["nodes"].items()) or "none"
    rels = ", ".join(f"{k} {v}" for k, v in counts["relationships"].items()) or "none"
    return f"""elotui evaluation graph{(" for " + title) if title else ""}

Nodes: {nodes}
Relationships: {rels}

1. Cypher script (any Neo4j 5, into an empty or existing database; MERGE by id, so re-running is harmless):

    cypher-shell -a neo4j://localhost:7687 -u neo4j -p <password> -f graph.cypher

2. Bulk import with neo4j-admin (offline, into a new database; copy the CSV files into Neo4j's import
   folder or give absolute paths; stop the database first):

{_indent(import_command(node_files, rel_files))}

   Then, in cypher-shell, create the id constraints the Cypher script would have created:

    CREATE CONSTRAINT elotui_question_id IF NOT EXISTS FOR (n:Question) REQUIRE n.id IS UNIQUE;
    CREATE CONSTRAINT elotui_response_id IF NOT EXISTS FOR (n:Response) REQUIRE n.id IS UNIQUE;
    CREATE CONSTRAINT elotui_judge_id IF NOT EXISTS FOR (n:Judge) REQUIRE n.id IS UNIQUE;
    CREATE CONSTRAINT elotui_pairwiseevaluation_id IF NOT EXISTS FOR (n:PairwiseEvaluation) REQUIRE n.id IS UNIQUE;

Example queries and the graph model: docs/graph.md in the elotui repository.
"""


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())
