"""`elotui graph`: write a tournament's evaluation graph (seed 002 §2.5) as a Cypher script and neo4j-admin CSVs.

The model is in `graph_model`, the two forms in `cypher` and `neo4j_csv`, the direct load in `bolt`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from elotui.errors import UserError
from elotui.export.cypher import write_cypher
from elotui.export.graph_model import Graph, build_graph
from elotui.export.neo4j_csv import readme_text, write_neo4j_csv

if TYPE_CHECKING:
    from elotui.config import Tournament
    from elotui.store import Store

__all__ = ["GraphExport", "build_graph", "export_graph", "write_graph_files"]


@dataclass(frozen=True)
class GraphExport:
    graph: Graph
    cypher: Path
    csv_files: list[Path]
    readme: Path
    statements: int


def write_graph_files(graph: Graph, directory: Path, *, title: str | None = None) -> GraphExport:
    """`graph.cypher`, `nodes_*.csv`, `rels_*.csv` and `README.txt` in `directory` (created if needed)."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        cypher_path = directory / "graph.cypher"
        with cypher_path.open("w", encoding="utf-8", newline="\n") as fh:
            statements = write_cypher(graph, fh, title=title)
        csv_files = write_neo4j_csv(graph, directory)
        node_files = [p.name for p in csv_files if p.name.startswith("nodes_")]
        rel_files = [p.name for p in csv_files if p.name.startswith("rels_")]
        readme = directory / "README.txt"
        readme.write_text(readme_text(graph, node_files, rel_files, title=title), encoding="utf-8")
    except OSError as exc:
        raise UserError(f"{directory}: cannot write the graph: {exc.strerror or exc}") from None
    return GraphExport(graph, cypher_path, csv_files, readme, statements)


def export_graph(tournament: Tournament, store: Store, directory: Path) -> GraphExport:
    return write_graph_files(build_graph(tournament, store), directory, title=tournament.name)
