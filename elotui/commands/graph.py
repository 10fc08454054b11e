"""`elotui graph T -o DIR`: write the evaluation graph (Cypher script + neo4j-admin CSVs), optionally load it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from elotui.commands.common import add_store_arg, add_tournament_arg, open_tournament
from elotui.errors import UserError


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("graph", help="write every evaluation trace as a Neo4j graph (Cypher script and CSVs)")
    add_tournament_arg(p)
    p.add_argument(
        "-o", "--output", metavar="DIR", required=True, help="folder to write the graph files into"
    )
    add_store_arg(p)
    p.add_argument(
        "--neo4j-uri",
        metavar="URI",
        help="also load the graph into this database (bolt://host:7687); "
        "credentials from NEO4J_USER / NEO4J_PASSWORD; needs `pip install 'elotui[neo4j]'`",
    )
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from elotui.export.bolt import credentials, import_driver, load_bolt  # on use (see elotui.cli)
    from elotui.export.graph import export_graph

    directory = Path(args.output)
    if directory.exists() and not directory.is_dir():
        raise UserError(f"{directory}: not a folder")
    driver = None
    if args.neo4j_uri:  # fail before writing anything when the load cannot happen
        driver = import_driver()
        credentials()
    tournament, store = open_tournament(args)
    with store:  # the graph's evaluations are read from the store on each pass: open until the load is done
        result = export_graph(tournament, store, directory)
        counts = result.counts
        n_nodes = sum(counts["nodes"].values())
        n_rels = sum(counts["relationships"].values())
        print(
            f"wrote {n_nodes} nodes and {n_rels} relationships to {directory} "
            f"(graph.cypher, {len(result.csv_files)} CSV files, README.txt)",
            file=sys.stderr,
        )
        if driver is not None:
            ran = load_bolt(result.graph, args.neo4j_uri, driver_module=driver)
            print(f"loaded into {args.neo4j_uri} ({ran} statements)", file=sys.stderr)
    return 0
