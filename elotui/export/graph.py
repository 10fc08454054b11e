"""`elotui graph`: write a tournament's evaluation graph (Diagnosing Bias and Instability in LLM Evaluation, graph-based storage) as a Cypher script and neo4j-admin CSVs.

The model is in `graph_model`, the two forms in `cypher` and `neo4j_csv`, the direct load in `bolt`.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from elotui.errors import UserError
from elotui.export.cypher import BATCH, CypherScript, batched
from elotui.export.graph_model import Graph, Tally, build_graph
from elotui.export.neo4j_csv import Neo4jCsv, readme_text

if TYPE_CHECKING:
    from elotui.store import Store
    from elotui.tournament.model import Tournament

__all__ = ["GraphExport", "build_graph", "export_graph", "write_graph_files"]


@dataclass(frozen=True)
class GraphExport:
    graph: Graph
    counts: dict[str, dict[str, int]]
    cypher: Path
    csv_files: list[Path]
    readme: Path
    statements: int


def write_graph_files(graph: Graph, directory: Path, *, title: str | None = None) -> GraphExport:
    """`graph.cypher`, `nodes_*.csv`, `rels_*.csv` and `README.txt` in `directory` (created if needed), all from
    one pass over the graph (one read of the store: the script and the CSVs hold the same graph), holding a batch
    per relationship group, never the whole graph. They are written into a folder of their own inside `directory`
    and moved into place once all are whole: a full disk or an error on the way leaves the previous files as they
    were."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".graph-partial-", dir=directory))
    except OSError as exc:
        raise UserError(f"{directory}: cannot write the graph: {exc.strerror or exc}") from None
    try:
        written = _write_into(graph, staging, title)
        for path in [written.cypher, written.readme, *written.csv_files]:
            os.replace(path, directory / path.name)
    except OSError as exc:
        raise UserError(
            f"{directory}: cannot write the graph: {exc.strerror or exc} (the files there are left as they were)"
        ) from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return GraphExport(
        graph,
        written.counts,
        directory / written.cypher.name,
        [directory / p.name for p in written.csv_files],
        directory / written.readme.name,
        written.statements,
    )


def _write_into(graph: Graph, folder: Path, title: str | None) -> GraphExport:
    script, tally = CypherScript(scratch=folder), Tally()  # its files are made on first use
    try:
        csv = Neo4jCsv(folder)
        try:
            for key, chunk in batched(csv.writing(tally.counting(graph.items())), BATCH):
                script.write(key, chunk)
        finally:
            csv.close()
        counts = tally.counts()
        cypher_path = folder / "graph.cypher"
        with cypher_path.open("w", encoding="utf-8", newline="\n") as fh:
            statements = script.finish(fh, counts, title)
        node_files = [p.name for p in csv.paths if p.name.startswith("nodes_")]
        rel_files = [p.name for p in csv.paths if p.name.startswith("rels_")]
        readme = folder / "README.txt"
        readme.write_text(readme_text(counts, node_files, rel_files, title=title), encoding="utf-8")
    finally:
        script.close()
    return GraphExport(graph, counts, cypher_path, csv.paths, readme, statements)


def export_graph(tournament: Tournament, store: Store, directory: Path) -> GraphExport:
    return write_graph_files(build_graph(tournament, store), directory, title=tournament.name)
