"""The evaluation graph as `neo4j-admin database import` CSV files, plus a README with the import command.

One `nodes_<Label>.csv` per label (`id:ID`, typed properties, `:LABEL`) and one `rels_<TYPE>.csv` per type
(`:START_ID`, `:END_ID`, `:TYPE`, typed properties). Ids are global (prefixed by kind), so no ID spaces are needed.
Strings are always double-quoted with inner quotes doubled (RFC 4180; backslashes are literal in neo4j-admin's
default quoting); an unset property is an empty unquoted field, which neo4j-admin skips. Fields may span lines
(reasoning does), hence `--multiline-fields=true` in the command.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import IO, Any

from elotui.export.graph_model import NODE_PROPERTIES, REL_PROPERTIES, Graph

_TYPES = {"string": "string", "long": "long", "double": "double", "boolean": "boolean"}


def csv_field(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else ""
    text = str(value)
    return '"' + text.replace('"', '""') + '"'


def _header(name: str, kind: str) -> str:
    return f"{name}:{_TYPES[kind]}"  # property names are plain identifiers: no quoting needed


def write_nodes_csv(label: str, nodes: list[Any], fh: IO[str]) -> None:
    props = NODE_PROPERTIES.get(label, ())
    fh.write(",".join(["id:ID", *(_header(n, k) for n, k in props), ":LABEL"]) + "\n")
    for node in nodes:
        cells = [csv_field(node.id), *(csv_field(node.props.get(n)) for n, _ in props), csv_field(node.label)]
        fh.write(",".join(cells) + "\n")


def write_rels_csv(rel_type: str, rels: list[Any], fh: IO[str]) -> None:
    props = REL_PROPERTIES.get(rel_type, ())
    fh.write(",".join([":START_ID", ":END_ID", ":TYPE", *(_header(n, k) for n, k in props)]) + "\n")
    for rel in rels:
        cells = [
            csv_field(rel.start),
            csv_field(rel.end),
            csv_field(rel.type),
            *(csv_field(rel.props.get(n)) for n, _ in props),
        ]
        fh.write(",".join(cells) + "\n")


def import_command(node_files: list[str], rel_files: list[str], database: str = "neo4j") -> str:
    parts = ["neo4j-admin database import full"]
    parts += [f"  --nodes={name}" for name in node_files]
    parts += [f"  --relationships={name}" for name in rel_files]
    parts += ["  --multiline-fields=true", "  --overwrite-destination=true", f"  {database}"]
    return " \\\n".join(parts)


def write_neo4j_csv(graph: Graph, directory: Path) -> list[Path]:
    """Write every nodes_/rels_ file (including empty ones, header only) into `directory`; returns the paths."""
    directory.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for label, nodes in graph.nodes_by_label().items():
        path = directory / f"nodes_{label}.csv"
        with path.open("w", encoding="utf-8", newline="") as fh:
            write_nodes_csv(label, nodes, fh)
        written.append(path)
    for rel_type, rels in graph.relationships_by_type().items():
        path = directory / f"rels_{rel_type}.csv"
        with path.open("w", encoding="utf-8", newline="") as fh:
            write_rels_csv(rel_type, rels, fh)
        written.append(path)
    return written


def readme_text(
    graph: Graph, node_files: list[str], rel_files: list[str], *, title: str | None = None
) -> str:
    counts = graph.counts()
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
