"""The evaluation graph of a tournament (Diagnosing Bias and Instability in LLM Evaluation, graph-based storage), built from the tournament file and its store.

Every text node is one the current plan shows: the plan records, per presentation, the keys of the prompt text
and of the two responses as shown (`PlanRow.prompt_text_key`, `first_text_key`, `second_text_key`), so the graph is
joins over the store; texts made for an older version of the file stay in the store but are not part of the trace.

Nodes (every id is global and prefixed by its kind, so one id space serves Cypher and neo4j-admin):
- `Question` `question:<prompt>` (original prompt text) and `paraphrase:<text key>` (the paraphrase the plan shows
  under condition "paraphrase"), kind "original" / "paraphrase".
- `Response` `response:<prompt>:<contestant>` (the file's response or the stored generation) and
  `variant:<text key>` (the perturbed variant the plan shows under "lexical"): one per prompt, contestant and
  perturbation condition.
- `Judge` `judge:<id>`.
- `PairwiseEvaluation` `evaluation:<prompt>|<first>|<second>|<judge>|<condition>|<sample>`: one per presentation of
  the current plan that has a recorded call (ok, invalid or error); planned-but-unjudged ones are not traces. A
  graded verdict (`[judge_prompt] scale = "graded"`) carries its `strength`: 2 strong (`A>>B`), 1 clear (`A>B`).

Relationships: `REPHRASES` (paraphrase → original question), `VARIANT_OF` (variant → base response),
`EVALUATES` (evaluation → the question it was asked under: the paraphrase under condition "paraphrase"),
`BETWEEN` (evaluation → each of the two responses shown, `slot` "A" for the one shown first, "B" second; the
perturbed variants under condition "lexical"), `FAVORS` (evaluation → the winning response; none on a tie or a
failed call), `JUDGED_BY` (evaluation → judge).
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from elotui.records import PairDetail, PlanRow, TextRow
    from elotui.store import Store
    from elotui.tournament.model import Tournament

# Property names and neo4j-admin types, per label / relationship type (the CSV headers follow this order).
NODE_PROPERTIES: dict[str, tuple[tuple[str, str], ...]] = {
    "Question": (
        ("prompt", "string"),
        ("kind", "string"),
        ("text", "string"),
        ("category", "string"),
        ("text_key", "string"),
    ),
    "Response": (
        ("prompt", "string"),
        ("contestant", "string"),
        ("kind", "string"),
        ("condition", "string"),
        ("text", "string"),
        ("length", "long"),
        ("text_key", "string"),
        ("base_key", "string"),
    ),
    "Judge": (("label", "string"), ("provider", "string"), ("model", "string")),
    "PairwiseEvaluation": (
        ("prompt", "string"),
        ("first", "string"),
        ("second", "string"),
        ("judge", "string"),
        ("condition", "string"),
        ("order", "string"),
        ("sample", "long"),
        ("status", "string"),
        ("verdict", "string"),
        ("winner", "string"),
        ("strength", "long"),
        ("reasoning", "string"),
        ("raw_reply", "string"),
        ("error", "string"),
        ("latency_ms", "double"),
        ("input_tokens", "long"),
        ("output_tokens", "long"),
        ("cost", "double"),
        ("attempts", "long"),
        ("provider", "string"),
        ("model", "string"),
        ("timestamp", "string"),
        ("finished_at", "double"),
        ("call_key", "string"),
    ),
}
REL_PROPERTIES: dict[str, tuple[tuple[str, str], ...]] = {
    "REPHRASES": (),
    "VARIANT_OF": (),
    "EVALUATES": (),
    "BETWEEN": (("slot", "string"), ("contestant", "string")),
    "FAVORS": (),
    "JUDGED_BY": (),
}
NODE_LABELS: tuple[str, ...] = tuple(NODE_PROPERTIES)
REL_TYPES: tuple[str, ...] = tuple(REL_PROPERTIES)


# read-only: the one mapping shared by every node or relationship without properties
NO_PROPERTIES: Mapping[str, Any] = MappingProxyType({})


# Nodes and relationships are named tuples: a graph of 10^6 evaluations makes ~6·10^6 of them (a frozen dataclass
# took 0.78 us to make, a named tuple takes ~0.25)
class Node(NamedTuple):
    id: str
    label: str
    props: Mapping[str, Any] = NO_PROPERTIES


class Relationship(NamedTuple):
    type: str
    start: str
    end: str
    start_label: str
    end_label: str
    props: Mapping[str, Any] = NO_PROPERTIES


Evaluation = tuple[Node, list[Relationship]]  # a recorded presentation's node and its relationships


@dataclass
class Graph:
    """The fixed part of the graph (questions, responses, judges and their relationships) in memory, and the
    evaluations (one per recorded presentation: 10^6 in a large tournament) read from the store a batch at a
    time on each call of `evaluations()`, so that writing the graph holds one evaluation at a time. `nodes`,
    `relationships` and `counts()` read them all (for a small graph, or to count)."""

    fixed_nodes: list[Node] = field(default_factory=list)
    fixed_relationships: list[Relationship] = field(default_factory=list)
    evaluations: Callable[[], Iterator[Evaluation]] = lambda: iter(())

    def items(self) -> Iterator[Node | Relationship]:
        """Every node and relationship in one pass: the fixed ones, then each evaluation's node and relationships
        (nodes arrive in NODE_LABELS order: the evaluations' label is the last)."""
        yield from self.fixed_nodes
        yield from self.fixed_relationships
        for node, rels in self.evaluations():
            yield node
            yield from rels

    @property
    def nodes(self) -> list[Node]:
        return [item for item in self.items() if isinstance(item, Node)]

    @property
    def relationships(self) -> list[Relationship]:
        return [item for item in self.items() if isinstance(item, Relationship)]

    def counts(self) -> dict[str, dict[str, int]]:
        tally = Tally()
        for _ in tally.counting(self.items()):
            pass
        return tally.counts()


@dataclass
class Tally:
    """Nodes per label and relationships per type, counted as they pass (in the order they first appear)."""

    nodes: Counter[str] = field(default_factory=Counter)
    relationships: Counter[str] = field(default_factory=Counter)

    def add(self, item: Node | Relationship) -> None:
        if isinstance(item, Node):
            self.nodes[item.label] += 1
        else:
            self.relationships[item.type] += 1

    def counting(self, items: Iterable[Node | Relationship]) -> Iterator[Node | Relationship]:
        """`items`, each counted as it passes."""
        for item in items:
            self.add(item)
            yield item

    def counts(self) -> dict[str, dict[str, int]]:
        return {"nodes": dict(self.nodes), "relationships": dict(self.relationships)}


def question_id(prompt: str) -> str:
    return f"question:{prompt}"


def paraphrase_id(text_key: str) -> str:
    return f"paraphrase:{text_key}"


def response_id(prompt: str, contestant: str) -> str:
    return f"response:{prompt}:{contestant}"


def variant_id(text_key: str) -> str:
    return f"variant:{text_key}"


def judge_id(judge: str) -> str:
    return f"judge:{judge}"


def evaluation_id(prompt: str, first: str, second: str, judge: str, condition: str, sample: int) -> str:
    return f"evaluation:{prompt}|{first}|{second}|{judge}|{condition}|{sample}"


def _iso(ts: float | None) -> str | None:
    if ts is None:
        return None
    return dt.datetime.fromtimestamp(ts, tz=dt.UTC).isoformat()


def _clean(props: dict[str, Any]) -> dict[str, Any]:
    """Drop unset properties (Neo4j has no null properties)."""
    return {k: v for k, v in props.items() if v is not None}


def _question_nodes(
    g: Graph, tournament: Tournament, paraphrased: dict[str, str], texts: dict[str, TextRow]
) -> None:
    """Originals, then the paraphrases the plan shows (`paraphrased`: text key -> prompt, in plan order)."""
    categories = tournament.categories
    for pid in tournament.prompt_ids:
        g.fixed_nodes.append(
            Node(
                question_id(pid),
                "Question",
                _clean(
                    {
                        "prompt": pid,
                        "kind": "original",
                        "text": tournament.prompt_texts.get(pid),
                        "category": categories.get(pid),
                    }
                ),
            )
        )
    for key, pid in paraphrased.items():
        if key not in texts:
            continue
        g.fixed_nodes.append(
            Node(
                paraphrase_id(key),
                "Question",
                _clean(
                    {
                        "prompt": pid,
                        "kind": "paraphrase",
                        "text": texts[key].text,
                        "category": categories.get(pid),
                        "text_key": key,
                    }
                ),
            )
        )
        g.fixed_relationships.append(
            Relationship("REPHRASES", paraphrase_id(key), question_id(pid), "Question", "Question")
        )


@dataclass
class _PlanTexts:
    """What the plan shows, gathered in one pass over it: the text keys, the paraphrases (key -> prompt) and,
    per (prompt, contestant, condition), the key of the response text (the first in plan order)."""

    wanted: set[str] = field(default_factory=set)
    paraphrased: dict[str, str] = field(default_factory=dict)
    shown: dict[tuple[str, str, str], str] = field(default_factory=dict)

    def add(self, r: PlanRow) -> None:
        self.wanted.update(k for k in (r.prompt_text_key, r.first_text_key, r.second_text_key) if k)
        if r.condition == "paraphrase" and r.prompt_text_key is not None:
            self.paraphrased[r.prompt_text_key] = r.prompt  # (a paraphrase key is one prompt's)
        for cid, key in ((r.first, r.first_text_key), (r.second, r.second_text_key)):
            if key is not None:
                self.shown.setdefault((r.prompt, cid, r.condition), key)


def _base_keys(
    shown: dict[tuple[str, str, str], str], texts: dict[str, TextRow]
) -> dict[tuple[str, str], str]:
    """(prompt, contestant) -> the key of its base response: shown as is outside `lexical`, else the variants' base."""
    out: dict[tuple[str, str], str] = {}
    for (pid, cid, condition), key in shown.items():
        if condition != "lexical":
            out.setdefault((pid, cid), key)
    for (pid, cid, condition), key in shown.items():  # a plan of lexical presentations only
        base = texts[key].base_key if condition == "lexical" and key in texts else None
        if base:
            out.setdefault((pid, cid), base)
    return out


def _response_nodes(
    g: Graph,
    tournament: Tournament,
    shown: dict[tuple[str, str, str], str],
    texts: dict[str, TextRow],
    store: Store,
) -> None:
    """One base response per prompt and contestant (the file's, or the stored generation), then the perturbed
    variants the plan shows."""
    base_keys = _base_keys(shown, texts)
    for pid in tournament.prompt_ids:
        for cid in tournament.contestant_ids:
            text: str | None = tournament.responses.get((pid, cid))
            kind = "given"
            base_key = base_keys.get((pid, cid))
            if text is None:
                stored = texts.get(base_key) if base_key is not None else None
                text = stored.text if stored is not None else store.generated_text(pid, cid)
                kind = "generated"
            g.fixed_nodes.append(
                Node(
                    response_id(pid, cid),
                    "Response",
                    _clean(
                        {
                            "prompt": pid,
                            "contestant": cid,
                            "kind": kind,
                            "condition": "clean",
                            "text": text,
                            "length": len(text) if text is not None else None,
                            "text_key": base_key,
                        }
                    ),
                )
            )
    for (pid, cid, condition), key in sorted(shown.items()):
        t = texts.get(key)
        if condition != "lexical" or t is None:
            continue
        g.fixed_nodes.append(
            Node(
                variant_id(key),
                "Response",
                _clean(
                    {
                        "prompt": pid,
                        "contestant": cid,
                        "kind": "variant",
                        "condition": condition,
                        "text": t.text,
                        "length": len(t.text),
                        "text_key": key,
                        "base_key": t.base_key,
                    }
                ),
            )
        )
        g.fixed_relationships.append(
            Relationship("VARIANT_OF", variant_id(key), response_id(pid, cid), "Response", "Response")
        )


def _judge_nodes(g: Graph, tournament: Tournament, recorded: list[str]) -> None:
    """The file's judges, then any other judge of a recorded presentation."""
    judges = list(dict.fromkeys([*tournament.judge_ids, *recorded]))
    for jid in judges:
        try:
            cfg = tournament.judge(jid)
            props = {"label": cfg.label or jid, "provider": cfg.provider, "model": cfg.model}
        except KeyError:
            props = {"label": jid}
        g.fixed_nodes.append(Node(judge_id(jid), "Judge", _clean(props)))


def _evaluation(d: PairDetail, order: str, texts: dict[str, TextRow], known: set[str]) -> Evaluation:
    """One recorded presentation: its node, and what it evaluates, shows, favours and was judged by."""
    eid = evaluation_id(d.prompt, d.first, d.second, d.judge, d.condition, d.sample)
    verdict = d.winner if d.status == "ok" else None
    winner = {"first": d.first, "second": d.second, "tie": "tie"}.get(verdict or "")
    node = Node(
        eid,
        "PairwiseEvaluation",
        _clean(
            {
                "prompt": d.prompt,
                "first": d.first,
                "second": d.second,
                "judge": d.judge,
                "condition": d.condition,
                "order": order,
                "sample": d.sample,
                "status": d.status,
                "verdict": verdict,
                "winner": winner,
                "strength": d.strength,
                "reasoning": d.reasoning,
                "raw_reply": d.raw_reply,
                "error": d.error,
                "latency_ms": d.latency_ms,
                "input_tokens": d.input_tokens,
                "output_tokens": d.output_tokens,
                "cost": d.cost,
                "attempts": d.attempts,
                "provider": d.provider,
                "model": d.model,
                "timestamp": _iso(d.finished_at),
                "finished_at": d.finished_at,
                "call_key": d.key,
            }
        ),
    )
    rels: list[Relationship] = []
    question = question_id(d.prompt)
    if d.condition == "paraphrase" and d.prompt_text_key in texts:
        question = paraphrase_id(d.prompt_text_key)
    if question in known:
        rels.append(Relationship("EVALUATES", eid, question, "PairwiseEvaluation", "Question"))
    shown: dict[str, str] = {}
    for slot, cid, key in (("A", d.first, d.first_text_key), ("B", d.second, d.second_text_key)):
        rid = variant_id(key) if d.condition == "lexical" and key is not None else response_id(d.prompt, cid)
        if rid not in known:
            continue
        shown[cid] = rid
        rels.append(
            Relationship(
                "BETWEEN", eid, rid, "PairwiseEvaluation", "Response", {"slot": slot, "contestant": cid}
            )
        )
    if winner in shown:
        rels.append(Relationship("FAVORS", eid, shown[winner], "PairwiseEvaluation", "Response"))
    rels.append(Relationship("JUDGED_BY", eid, judge_id(d.judge), "PairwiseEvaluation", "Judge"))
    return node, rels


def build_graph(tournament: Tournament, store: Store) -> Graph:
    """The whole trace of the tournament's current plan: the fixed nodes built now (one pass over the plan), the
    evaluations read from the store on each pass over them (`Graph.evaluations`)."""
    g = Graph()
    shown = _PlanTexts()
    for row in store.each_plan_row():
        shown.add(row)
    texts = {t.key: t for t in store.texts() if t.key in shown.wanted}
    _question_nodes(g, tournament, shown.paraphrased, texts)
    _response_nodes(g, tournament, shown.shown, texts, store)
    _judge_nodes(g, tournament, store.recorded_judges())
    known = {n.id for n in g.fixed_nodes}
    position = {c: i for i, c in enumerate(tournament.contestant_ids)}

    def evaluations() -> Iterator[Evaluation]:
        for d in store.each_recorded_detail():
            ab = (position.get(d.first, 0), d.first) < (position.get(d.second, 0), d.second)
            yield _evaluation(d, "AB" if ab else "BA", texts, known)

    g.evaluations = evaluations
    return g
