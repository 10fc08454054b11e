"""Load the evaluation graph straight into a running Neo4j with the official driver (`pip install 'elotui[neo4j]'`).

Credentials come from the environment: `NEO4J_USER` (default "neo4j"), `NEO4J_PASSWORD` (required) and optionally
`NEO4J_DATABASE`. The statements are the Cypher script's, with the rows passed as the `$rows` parameter (so no
text is ever spliced into a query).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterator, Mapping
from types import ModuleType
from typing import Any

from elotui.errors import UserError
from elotui.export.cypher import (
    BATCH,
    batched,
    constraint_statement,
    node_row,
    node_statement,
    relationship_row,
    relationship_statement,
)
from elotui.export.graph_model import NODE_LABELS, Graph, Node

INSTALL_HINT = "pip install 'elotui[neo4j]'"


def import_driver() -> ModuleType:
    try:
        return importlib.import_module("neo4j")
    except ImportError:
        raise UserError(
            f"--neo4j-uri needs the official Neo4j driver, which is not installed ({INSTALL_HINT})"
        ) from None


def credentials(env: Mapping[str, str] | None = None) -> tuple[str, str, str | None]:
    env = os.environ if env is None else env
    password = env.get("NEO4J_PASSWORD")
    if not password:
        raise UserError("--neo4j-uri: set NEO4J_PASSWORD (and NEO4J_USER if not 'neo4j') in the environment")
    return env.get("NEO4J_USER") or "neo4j", password, env.get("NEO4J_DATABASE") or None


def bolt_statements(graph: Graph, *, batch: int = BATCH) -> Iterator[tuple[str, dict[str, Any]]]:
    """(query, parameters) pairs: constraints, then node batches (one pass over the graph), then relationship
    batches (a second pass: every node is in before the first relationship is matched). A batch per group is
    held at a time, never the whole graph."""
    for label in NODE_LABELS:
        yield constraint_statement(label), {}
    nodes = (item for item in graph.items() if isinstance(item, Node))
    for (_, label), chunk in batched(nodes, batch):
        if chunk:
            yield node_statement(label, "$rows"), {"rows": [node_row(n) for n in chunk]}
    rels = (item for item in graph.items() if not isinstance(item, Node))
    for (_, rel_type, start, end), chunk in batched(rels, batch):
        if chunk:
            yield (
                relationship_statement(rel_type, start, end, "$rows"),
                {"rows": [relationship_row(r) for r in chunk]},
            )


def load_bolt(
    graph: Graph,
    uri: str,
    *,
    driver_module: Any = None,
    env: Mapping[str, str] | None = None,
    batch: int = BATCH,
) -> int:
    """Merge the graph into the database at `uri`; returns the number of statements run."""
    if not uri.startswith(("bolt://", "bolt+s://", "bolt+ssc://", "neo4j://", "neo4j+s://", "neo4j+ssc://")):
        raise UserError(f"--neo4j-uri: {uri!r} is not a bolt:// or neo4j:// address")
    neo4j = driver_module if driver_module is not None else import_driver()
    user, password, database = credentials(env)
    ran = 0
    try:
        with neo4j.GraphDatabase.driver(uri, auth=(user, password)) as driver:
            session_args = {"database": database} if database else {}
            with driver.session(**session_args) as session:
                for query, params in bolt_statements(graph, batch=batch):
                    session.run(query, params).consume()
                    ran += 1
    except UserError:
        raise
    except Exception as exc:
        if _is_driver_error(neo4j, exc):
            raise UserError(f"--neo4j-uri {uri}: {type(exc).__name__}: {exc}") from None
        raise
    return ran


def _is_driver_error(neo4j: Any, exc: Exception) -> bool:
    exceptions = getattr(neo4j, "exceptions", None)
    bases = tuple(
        cls
        for name in ("Neo4jError", "DriverError")
        if isinstance(cls := getattr(exceptions, name, None), type) and issubclass(cls, BaseException)
    )
    return isinstance(exc, bases + (OSError,))
