"""The evaluation graph: counts equal the store's contents, the links follow Diagnosing Bias and Instability in LLM Evaluation (graph-based storage), the Cypher script and
the neo4j-admin CSVs read back to exactly the same graph, and hostile text cannot break out of either."""

from __future__ import annotations

import csv
import io
import re
import weakref
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from elotui.cli import main
from elotui.export.cypher import write_cypher
from elotui.export.graph import export_graph
from elotui.export.graph_model import (
    NODE_PROPERTIES,
    REL_PROPERTIES,
    Graph,
    Node,
    Relationship,
    build_graph,
    evaluation_id,
    paraphrase_id,
    question_id,
    response_id,
    variant_id,
)
from tests.export.conftest import EVIL
from tests.export.cypher_reader import LiteralReader, split_script


def _by_id(graph: Graph) -> dict[str, object]:
    return {n.id: n for n in graph.nodes}


def test_counts_equal_the_store(filled) -> None:
    g = build_graph(filled.tournament, filled.store)
    counts = g.counts()
    t = filled.tournament
    recorded = [c for c in filled.calls]  # every call was recorded for a planned presentation
    assert len(filled.plan) > len(recorded)  # some presentations are unjudged: they are not traces
    assert counts["nodes"] == {
        "Question": len(t.prompt_ids) + filled.paraphrases,
        "Response": len(t.prompt_ids) * len(t.contestant_ids) + filled.variants,
        "Judge": len(t.judge_ids),
        "PairwiseEvaluation": len(recorded),
    }
    favours = sum(1 for c in recorded if c.status == "ok" and c.winner in ("first", "second"))
    assert 0 < favours < len(recorded)
    assert counts["relationships"] == {
        "REPHRASES": filled.paraphrases,
        "VARIANT_OF": filled.variants,
        "EVALUATES": len(recorded),
        "BETWEEN": 2 * len(recorded),
        "FAVORS": favours,
        "JUDGED_BY": len(recorded),
    }
    assert len({n.id for n in g.nodes}) == len(g.nodes)
    ids = {n.id for n in g.nodes}
    assert all(r.start in ids and r.end in ids for r in g.relationships)


def test_links_follow_the_conditions(filled) -> None:
    g = build_graph(filled.tournament, filled.store)
    nodes = _by_id(g)
    rels: dict[tuple[str, str], list] = {}
    for r in g.relationships:
        rels.setdefault((r.type, r.start), []).append(r)
    calls = {c.key: c for c in filled.calls}
    for row in filled.plan:
        call = calls.get(row.key)
        eid = evaluation_id(row.prompt, row.first, row.second, row.judge, row.condition, row.sample)
        if call is None:
            assert eid not in nodes
            continue
        node = nodes[eid]
        assert node.props["status"] == call.status
        assert node.props["order"] == (
            "AB" if row.first < row.second else "BA"
        )  # declared alpha, beta, gamma
        assert node.props.get("reasoning") == call.reasoning
        expected_q = paraphrase_id("para-p1") if row.condition == "paraphrase" else question_id(row.prompt)
        assert [r.end for r in rels[("EVALUATES", eid)]] == [expected_q]
        between = sorted((r.props["slot"], r.end) for r in rels[("BETWEEN", eid)])
        shown = {
            cid: (
                variant_id(f"lex-{row.prompt}-{cid}")
                if row.condition == "lexical"
                else response_id(row.prompt, cid)
            )
            for cid in (row.first, row.second)
        }
        assert between == [("A", shown[row.first]), ("B", shown[row.second])]
        favors = [r.end for r in rels.get(("FAVORS", eid), [])]
        if call.status == "ok" and call.winner == "first":
            assert favors == [shown[row.first]] and node.props["winner"] == row.first
        elif call.status == "ok" and call.winner == "second":
            assert favors == [shown[row.second]] and node.props["winner"] == row.second
        else:
            assert favors == []
        assert [r.end for r in rels[("JUDGED_BY", eid)]] == [f"judge:{row.judge}"]
    assert nodes["judge:j2"].props["label"] == "Second judge"
    assert [r.end for r in rels[("REPHRASES", paraphrase_id("para-p1"))]] == [question_id("p1")]
    assert [r.end for r in rels[("VARIANT_OF", variant_id("lex-p2-beta"))]] == [response_id("p2", "beta")]
    assert (
        nodes[variant_id("lex-p2-beta")].props["base_key"]
        == nodes[response_id("p2", "beta")].props["text_key"]
    )
    # stale texts (an older prompt text, an older base response, another perturbation seed) are not in the trace
    assert not {
        paraphrase_id("para-old"),
        variant_id("lex-old-p1-alpha"),
        variant_id("lex-seed-p1-alpha"),
    } & set(nodes)


def _graph_from_script(script: str) -> tuple[dict[str, tuple[str, dict]], Counter, list[tuple]]:
    """Replay the script's statements on an in-memory graph (nodes by id, relationship tuples)."""
    nodes: dict[str, tuple[str, dict]] = {}
    rels: list[tuple] = []
    kinds: Counter = Counter()
    for text, code in split_script(script):
        body = re.sub(r"^(//[^\n]*\n|\s)*", "", text)
        if code.startswith("CREATE CONSTRAINT"):
            kinds["constraint"] += 1
            continue
        assert body.startswith("UNWIND ["), code
        reader = LiteralReader(body, len("UNWIND "))
        rows = reader.list()
        tail = body[reader.pos :]
        m = re.fullmatch(r"\s*AS row\nMERGE \(n:(\w+) \{id: row\.id\}\)\nSET n \+= row\.props", tail)
        if m:
            kinds["nodes"] += 1
            for row in rows:
                assert row["id"] not in nodes
                nodes[row["id"]] = (m.group(1), row["props"])
            continue
        m = re.fullmatch(
            r"\s*AS row\nMATCH \(a:(\w+) \{id: row\.start\}\)\nMATCH \(b:(\w+) \{id: row\.end\}\)\n"
            r"MERGE \(a\)-\[r:(\w+)\]->\(b\)\nSET r \+= row\.props",
            tail,
        )
        assert m, tail
        kinds["rels"] += 1
        for row in rows:
            assert nodes[row["start"]][0] == m.group(1) and nodes[row["end"]][0] == m.group(2)
            rels.append((m.group(3), row["start"], row["end"], tuple(sorted(row["props"].items()))))
    return nodes, kinds, rels


def test_cypher_script_reads_back_to_the_same_graph(filled) -> None:
    g = build_graph(filled.tournament, filled.store)
    buf = io.StringIO()
    n_statements = write_cypher(g, buf, batch=7, title="Export fixture\n// injected?")
    script = buf.getvalue()
    nodes, kinds, rels = _graph_from_script(script)
    assert kinds["constraint"] == 4
    assert kinds["constraint"] + kinds["nodes"] + kinds["rels"] == n_statements
    assert kinds["nodes"] > 4  # batches of 7 split the larger labels
    assert nodes == {n.id: (n.label, n.props) for n in g.nodes}
    assert sorted(rels) == sorted(
        (r.type, r.start, r.end, tuple(sorted(r.props.items()))) for r in g.relationships
    )
    # the hostile reasoning came back unchanged and nothing outside string literals says DELETE
    assert nodes[evaluation_id("p1", "alpha", "beta", "j1", "clean", 0)][1]["reasoning"] == EVIL
    for _, code in split_script(script):
        assert "DELETE" not in code and "DETACH" not in code
    assert all(ch.isprintable() or ch in "\n" for ch in script)  # controls and separators are escaped


def test_statements_are_merge_only(filled) -> None:
    g = build_graph(filled.tournament, filled.store)
    buf = io.StringIO()
    write_cypher(g, buf)
    for _, code in split_script(buf.getvalue()):  # each statement's code, literals and comments blanked
        assert "CREATE (" not in code and "DELETE" not in code
        assert code.startswith(("CREATE CONSTRAINT", "UNWIND"))


def _typed(value: str, kind: str) -> object:
    if kind == "long":
        return int(value)
    if kind == "double":
        return float(value)
    return value


def test_neo4j_admin_csvs_read_back_to_the_same_graph(filled, tmp_path: Path) -> None:
    result = export_graph(filled.tournament, filled.store, tmp_path / "g")
    g = result.graph
    directory = tmp_path / "g"
    names = sorted(p.name for p in directory.iterdir())
    assert names == sorted(
        ["graph.cypher", "README.txt"]
        + [f"nodes_{label}.csv" for label in NODE_PROPERTIES]
        + [f"rels_{t}.csv" for t in REL_PROPERTIES]
    )
    seen_nodes: dict[str, tuple[str, dict]] = {}
    for label, props in NODE_PROPERTIES.items():
        with (directory / f"nodes_{label}.csv").open(encoding="utf-8", newline="") as fh:
            rows = list(csv.reader(fh))
        assert rows[0] == ["id:ID", *(f"{n}:{k}" for n, k in props), ":LABEL"]
        for row in rows[1:]:
            values = {n: _typed(v, k) for (n, k), v in zip(props, row[1:-1], strict=True) if v != ""}
            assert row[-1] == label
            seen_nodes[row[0]] = (label, values)
    assert seen_nodes == {n.id: (n.label, n.props) for n in g.nodes}
    seen_rels = []
    for rel_type, props in REL_PROPERTIES.items():
        with (directory / f"rels_{rel_type}.csv").open(encoding="utf-8", newline="") as fh:
            rows = list(csv.reader(fh))
        assert rows[0] == [":START_ID", ":END_ID", ":TYPE", *(f"{n}:{k}" for n, k in props)]
        for row in rows[1:]:
            assert row[2] == rel_type
            extra = {n: _typed(v, k) for (n, k), v in zip(props, row[3:], strict=True) if v != ""}
            seen_rels.append((row[2], row[0], row[1], tuple(sorted(extra.items()))))
    assert sorted(seen_rels) == sorted(
        (r.type, r.start, r.end, tuple(sorted(r.props.items()))) for r in g.relationships
    )
    readme = (directory / "README.txt").read_text(encoding="utf-8")
    assert "neo4j-admin database import full" in readme and "--multiline-fields=true" in readme
    assert "--nodes=nodes_PairwiseEvaluation.csv" in readme and "--relationships=rels_BETWEEN.csv" in readme
    assert "cypher-shell" in readme and "graph.cypher" in readme


def test_empty_store_gives_questions_responses_and_judges_only(filled, tmp_path: Path) -> None:
    from elotui.store import Store

    with Store(tmp_path / "empty.sqlite") as empty:
        g = build_graph(filled.tournament, empty)
        assert g.counts()["nodes"] == {"Question": 2, "Response": 6, "Judge": 2}
        assert g.relationships == []


def test_cli_graph_writes_the_folder(filled, tmp_path: Path, capsys) -> None:
    out = tmp_path / "graph-out"
    rc = main(["graph", str(filled.path), "--store", str(filled.store_path), "-o", str(out)])
    assert rc == 0
    err = capsys.readouterr().err
    total_nodes = sum(build_graph(filled.tournament, filled.store).counts()["nodes"].values())
    assert f"wrote {total_nodes} nodes" in err
    assert (out / "graph.cypher").read_text(encoding="utf-8").startswith("// elotui evaluation graph")


def test_cli_graph_errors(filled, tmp_path: Path, capsys) -> None:
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    assert main(["graph", str(filled.path), "--store", str(filled.store_path), "-o", str(a_file)]) == 2
    assert "not a folder" in capsys.readouterr().err
    assert main(["graph", str(tmp_path / "missing.toml"), "-o", str(tmp_path / "o")]) == 2


def _script_from_whole_graph(g: Graph, batch: int, title: str) -> str:
    """The script as it was written with the whole graph in memory (every label's nodes, then every group's
    relationships, in batches): the streamed script must be this text exactly."""
    from elotui.export.cypher import (
        _comment,
        _counts_text,
        constraint_statement,
        cypher_map,
        node_row,
        node_statement,
        relationship_row,
        relationship_statement,
    )

    counts = g.counts()
    out = [
        f"// elotui evaluation graph: {_comment(title)}\n",
        f"// nodes: {_counts_text(counts['nodes'])}\n",
        f"// relationships: {_counts_text(counts['relationships'])}\n",
        "// load into an empty database: cypher-shell -u neo4j -p <password> -f graph.cypher\n\n",
    ]
    by_label: dict[str, list] = {label: [] for label in NODE_PROPERTIES}
    for n in g.nodes:
        by_label[n.label].append(n)
    groups: dict[tuple[str, str, str], list] = {}
    for r in g.relationships:
        groups.setdefault((r.type, r.start_label, r.end_label), []).append(r)
    out += [constraint_statement(label) + ";\n\n" for label in by_label]
    for label, nodes in by_label.items():
        for i in range(0, len(nodes), batch):
            rows = ",\n  ".join(cypher_map(node_row(n)) for n in nodes[i : i + batch])
            out.append(node_statement(label, "[\n  " + rows + "\n]") + ";\n\n")
    for (rel_type, start, end), rels in groups.items():
        for i in range(0, len(rels), batch):
            rows = ",\n  ".join(cypher_map(relationship_row(r)) for r in rels[i : i + batch])
            out.append(relationship_statement(rel_type, start, end, "[\n  " + rows + "\n]") + ";\n\n")
    return "".join(out)


def test_streamed_script_is_the_whole_graph_script(filled) -> None:
    g = build_graph(filled.tournament, filled.store)
    for batch in (1, 3, 7, 500):
        buf = io.StringIO()
        write_cypher(g, buf, batch=batch, title="t")
        assert buf.getvalue() == _script_from_whole_graph(g, batch, "t")


class _Props(dict[str, object]):
    """A node's properties that a weak reference can watch (a dict cannot be)."""


def _synthetic_graph(evaluations: int, passes: list[int], alive: list[int], peak: list[int]) -> Graph:
    """A judge, two responses and `evaluations` evaluations made on each pass (counted in `passes`), each node
    counted in `alive` while it lives (the most alive at once in `peak`)."""
    fixed = [
        Node(response_id("p", "a"), "Response", {"text": "A"}),
        Node(response_id("p", "b"), "Response", {"text": "B"}),
        Node("judge:j", "Judge", {"label": "j"}),
    ]

    def each() -> Iterator[tuple[Node, list[Relationship]]]:
        passes.append(1)
        for i in range(evaluations):
            eid = f"evaluation:{i}"
            # a node is a tuple (no weak reference to it): its properties are what is watched
            props = _Props(reasoning="x" * 100, sample=i)
            node = Node(eid, "PairwiseEvaluation", props)
            alive[0] += 1
            weakref.finalize(props, lambda: alive.__setitem__(0, alive[0] - 1))
            peak[0] = max(peak[0], alive[0])
            rels = [
                Relationship(
                    "BETWEEN", eid, response_id("p", "a"), "PairwiseEvaluation", "Response", {"slot": "A"}
                ),
                Relationship("JUDGED_BY", eid, "judge:j", "PairwiseEvaluation", "Judge"),
            ]
            yield node, rels

    return Graph(fixed_nodes=fixed, evaluations=each)


def test_writing_the_graph_reads_it_once_and_holds_a_batch_of_evaluations(tmp_path: Path) -> None:
    from elotui.export.cypher import BATCH
    from elotui.export.graph import write_graph_files

    passes: list[int] = []
    alive = [0]
    peak = [0]
    total = 8 * BATCH + 3
    result = write_graph_files(_synthetic_graph(total, passes, alive, peak), tmp_path / "g")
    assert passes == [1]  # one read of the store feeds the script, the CSVs and the counts
    assert peak[0] <= BATCH + 1  # a batch of evaluation nodes at a time, never the whole graph
    assert result.counts["nodes"]["PairwiseEvaluation"] == total
    with (tmp_path / "g" / "nodes_PairwiseEvaluation.csv").open(encoding="utf-8", newline="") as fh:
        assert sum(1 for _ in csv.reader(fh)) == total + 1
    assert result.statements == 4 + 1 + 1 + 9 + 9 + 9  # constraints; Response, Judge; then 9 batches of each
    assert not [p for p in (tmp_path / "g").iterdir() if p.name.startswith("tmp")]  # no scratch file left


def test_store_streams_the_plan_and_names_the_recorded_judges(filled) -> None:
    store = filled.store
    assert list(store.each_plan_row(batch=3)) == store.plan()
    recorded = list(store.each_recorded_detail())
    assert store.recorded_judges() == list(dict.fromkeys(d.judge for d in recorded))


def test_a_full_disk_while_writing_the_graph_is_said_and_leaves_no_scratch(
    filled, tmp_path: Path, monkeypatch, capsys
) -> None:
    """The disk fills while the Cypher statements are spooled: a clear message naming the folder (exit 2), no
    traceback, and the scratch files gone."""
    import errno
    import tempfile

    import elotui.export.cypher as cypher_module

    made: list[object] = []
    real = tempfile.TemporaryFile

    class Filling:
        def __init__(self, *args: object, **kwargs: object) -> None:
            self.inner = real(*args, **kwargs)  # type: ignore[call-overload]
            made.append(self)

        def write(self, text: str) -> int:
            if sum(f.inner.tell() for f in made) > 2_000:  # type: ignore[attr-defined]
                raise OSError(errno.ENOSPC, "No space left on device")
            return self.inner.write(text)

        def __getattr__(self, name: str) -> object:
            return getattr(self.inner, name)

    monkeypatch.setattr(cypher_module.tempfile, "TemporaryFile", Filling)
    out = tmp_path / "g"
    rc = main(["graph", str(filled.path), "--store", str(filled.store_path), "-o", str(out)])
    err = capsys.readouterr().err
    assert rc == 2, err
    assert f"{out}: cannot write the graph: No space left on device" in err and "Traceback" not in err
    assert made and all(f.inner.closed for f in made)  # type: ignore[attr-defined]
