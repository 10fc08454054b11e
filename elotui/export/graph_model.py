"""The evaluation graph of a tournament (seed 002 §2.5), built from the tournament file and its store.

Nodes (every id is global and prefixed by its kind, so one id space serves Cypher and neo4j-admin):
- `Question` `question:<prompt>` (original prompt text) and `paraphrase:<text key>` (the store text of kind
  "paraphrase" made from the prompt's current text, the latest if several), kind "original" / "paraphrase".
- `Response` `response:<prompt>:<contestant>` (the file's response or the latest stored generation) and
  `variant:<text key>` (store texts of kind "perturbed" / "lexical" made from the current base response; if several,
  the one the current `perturbation_seed` produces): one per prompt, contestant and perturbation condition.
- `Judge` `judge:<id>`.
- `PairwiseEvaluation` `evaluation:<prompt>|<first>|<second>|<judge>|<condition>|<sample>`: one per presentation of
  the current plan that has a recorded call (ok, invalid or error); planned-but-unjudged ones are not traces.

Relationships: `REPHRASES` (paraphrase → original question), `VARIANT_OF` (variant → base response),
`EVALUATES` (evaluation → the question it was asked under: the paraphrase under condition "paraphrase"),
`BETWEEN` (evaluation → each of the two responses shown, `slot` "A" for the one shown first, "B" second; the
perturbed variants under condition "lexical"), `FAVORS` (evaluation → the winning response; none on a tie or a
failed call), `JUDGED_BY` (evaluation → judge).
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from elotui.run.keys import text_key
from elotui.run.perturb import perturb

if TYPE_CHECKING:
    from elotui.config import Tournament
    from elotui.store import Store

PARAPHRASE_KINDS = ("paraphrase",)
VARIANT_KINDS = ("lexical", "perturbed")
GENERATION_KINDS = ("generation",)

# Property names and neo4j-admin types, per label / relationship type (the CSV headers follow this order).
NODE_PROPERTIES: dict[str, tuple[tuple[str, str], ...]] = {
    "Question": (
        ("prompt", "string"), ("kind", "string"), ("text", "string"), ("category", "string"), ("text_key", "string"),
    ),
    "Response": (
        ("prompt", "string"), ("contestant", "string"), ("kind", "string"), ("condition", "string"),
        ("text", "string"), ("length", "long"), ("text_key", "string"), ("base_key", "string"),
    ),
    "Judge": (("label", "string"), ("provider", "string"), ("model", "string")),
    "PairwiseEvaluation": (
        ("prompt", "string"), ("first", "string"), ("second", "string"), ("judge", "string"),
        ("condition", "string"), ("order", "string"), ("sample", "long"), ("status", "string"),
        ("verdict", "string"), ("winner", "string"), ("reasoning", "string"), ("raw_reply", "string"),
        ("error", "string"), ("latency_ms", "double"), ("input_tokens", "long"), ("output_tokens", "long"),
        ("cost", "double"), ("attempts", "long"), ("provider", "string"), ("model", "string"),
        ("timestamp", "string"), ("finished_at", "double"), ("call_key", "string"),
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


@dataclass(frozen=True)
class Node:
    id: str
    label: str
    props: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Relationship:
    type: str
    start: str
    end: str
    start_label: str
    end_label: str
    props: dict[str, Any] = field(default_factory=dict)


@dataclass
class Graph:
    nodes: list[Node] = field(default_factory=list)
    relationships: list[Relationship] = field(default_factory=list)

    def nodes_by_label(self) -> dict[str, list[Node]]:
        out: dict[str, list[Node]] = {label: [] for label in NODE_LABELS}
        for node in self.nodes:
            out.setdefault(node.label, []).append(node)
        return out

    def relationships_by_type(self) -> dict[str, list[Relationship]]:
        out: dict[str, list[Relationship]] = {t: [] for t in REL_TYPES}
        for rel in self.relationships:
            out.setdefault(rel.type, []).append(rel)
        return out

    def counts(self) -> dict[str, dict[str, int]]:
        return {
            "nodes": dict(Counter(n.label for n in self.nodes)),
            "relationships": dict(Counter(r.type for r in self.relationships)),
        }


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


def _recency(row: dict[str, Any]) -> tuple[float, str]:
    return (row.get("created_at") or 0.0, row["key"])


def _newer(row: dict[str, Any], than: dict[str, Any]) -> bool:
    return _recency(row) > _recency(than)


def build_graph(tournament: Tournament, store: Store) -> Graph:
    """The whole trace of the tournament's current plan as nodes and relationships."""
    g = Graph()
    prompts = tournament.prompt_ids
    contestants = tournament.contestant_ids
    position = {c: i for i, c in enumerate(contestants)}
    categories = {p.id: p.category for p in tournament.spec.prompts}
    prompt_set, contestant_set = set(prompts), set(contestants)

    # Questions: originals, then paraphrases (of prompts still in the file).
    for pid in prompts:
        g.nodes.append(Node(question_id(pid), "Question", _clean({
            "prompt": pid, "kind": "original", "text": tournament.prompt_texts.get(pid), "category": categories.get(pid),
        })))
    # The engine stores each derived text once per content (elotui.run.calls.Texts.store_derived); texts made
    # for an older version of the file stay in the store. Only the ones the current file shows become nodes.
    paraphrases: dict[str, dict[str, Any]] = {}
    for kind in PARAPHRASE_KINDS:
        for t in store.texts(kind):
            pid = t["prompt"]
            if pid not in prompt_set:
                continue
            current = text_key("prompt", pid, tournament.prompt_texts.get(pid))
            if t["base_key"] not in (None, current):
                continue
            if pid not in paraphrases or _newer(t, paraphrases[pid]):
                paraphrases[pid] = t
    for pid in prompts:
        if pid in paraphrases:
            t = paraphrases[pid]
            g.nodes.append(Node(paraphrase_id(t["key"]), "Question", _clean({
                "prompt": pid, "kind": "paraphrase", "text": t["text"], "category": categories.get(pid),
                "text_key": t["key"],
            })))
            g.relationships.append(Relationship("REPHRASES", paraphrase_id(t["key"]), question_id(pid),
                                                "Question", "Question"))

    # Responses: one per prompt and contestant (given in the file, or the latest stored generation).
    generated: dict[tuple[str, str], dict[str, Any]] = {}
    for kind in GENERATION_KINDS:
        for t in store.texts(kind):
            pair = (t["prompt"], t["contestant"])
            if pair not in generated or _newer(t, generated[pair]):
                generated[pair] = t
    base_texts: dict[tuple[str, str], tuple[str | None, str | None]] = {}  # (text, base key)
    for pid in prompts:
        for cid in contestants:
            text = tournament.responses.get((pid, cid))
            base_key = text_key("response", pid, cid, text) if text is not None else None
            kind, text_key_ = "given", base_key
            if text is None and (pid, cid) in generated:
                text, kind = generated[(pid, cid)]["text"], "generated"
                text_key_ = base_key = generated[(pid, cid)]["key"]
            base_texts[(pid, cid)] = (text, base_key)
            g.nodes.append(Node(response_id(pid, cid), "Response", _clean({
                "prompt": pid, "contestant": cid, "kind": kind, "condition": "clean", "text": text,
                "length": len(text) if text is not None else None, "text_key": text_key_,
            })))
    # ... and the perturbed variant of each, per condition: the one made from the current base text (the one the
    # current perturbation seed produces, if several were).
    seed = tournament.spec.comparison.perturbation_seed
    candidates: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for kind in VARIANT_KINDS:
        for t in store.texts(kind):
            pair = (t["prompt"], t["contestant"])
            if pair not in base_texts or t["base_key"] not in (None, base_texts[pair][1]):
                continue
            candidates.setdefault((*pair, t["condition"] or "lexical"), []).append(t)
    variants: dict[tuple[str, str, str], dict[str, Any]] = {}
    for (pid, cid, condition), rows in candidates.items():
        base_text = base_texts[(pid, cid)][0]
        expected = perturb(base_text, seed=seed, salt=f"{pid}\x00{cid}") if base_text is not None else None
        matching = [t for t in rows if t["text"] == expected] or rows
        variants[(pid, cid, condition)] = max(matching, key=_recency)
    for (pid, cid, condition), t in sorted(variants.items()):
        g.nodes.append(Node(variant_id(t["key"]), "Response", _clean({
            "prompt": pid, "contestant": cid, "kind": "variant", "condition": condition, "text": t["text"],
            "length": len(t["text"]), "text_key": t["key"], "base_key": t["base_key"],
        })))
        g.relationships.append(Relationship("VARIANT_OF", variant_id(t["key"]), response_id(pid, cid),
                                            "Response", "Response"))

    # Evaluations: every planned presentation with a recorded call.
    details = store.plan_details("c.key IS NOT NULL")
    judges = list(tournament.judge_ids)
    for d in details:
        if d["judge"] not in judges:
            judges.append(d["judge"])
    for jid in judges:
        try:
            cfg = tournament.judge(jid)
            props = {"label": cfg.label or jid, "provider": cfg.provider, "model": cfg.model}
        except KeyError:
            props = {"label": jid}
        g.nodes.append(Node(judge_id(jid), "Judge", _clean(props)))

    for d in details:
        pid, first, second, condition = d["prompt"], d["first"], d["second"], d["condition"]
        eid = evaluation_id(pid, first, second, d["judge"], condition, d["sample"])
        status = d["status"]
        verdict = d["winner"] if status == "ok" else None
        winner = {"first": first, "second": second, "tie": "tie"}.get(verdict or "")
        order = "AB" if (position.get(first, 0), first) < (position.get(second, 0), second) else "BA"
        g.nodes.append(Node(eid, "PairwiseEvaluation", _clean({
            "prompt": pid, "first": first, "second": second, "judge": d["judge"], "condition": condition,
            "order": order, "sample": d["sample"], "status": status, "verdict": verdict, "winner": winner,
            "reasoning": d["reasoning"], "raw_reply": d["raw_reply"], "error": d["error"],
            "latency_ms": d["latency_ms"], "input_tokens": d["input_tokens"], "output_tokens": d["output_tokens"],
            "cost": d["cost"], "attempts": d["attempts"], "provider": d["provider"], "model": d["model"],
            "timestamp": _iso(d["finished_at"]), "finished_at": d["finished_at"], "call_key": d["key"],
        })))
        question = question_id(pid)
        if condition == "paraphrase" and pid in paraphrases:
            question = paraphrase_id(paraphrases[pid]["key"])
        if pid in prompt_set:
            g.relationships.append(Relationship("EVALUATES", eid, question, "PairwiseEvaluation", "Question"))
        shown: dict[str, str] = {}
        for slot, cid in (("A", first), ("B", second)):
            if pid not in prompt_set or cid not in contestant_set:
                continue
            rid = response_id(pid, cid)
            if (pid, cid, condition) in variants:
                rid = variant_id(variants[(pid, cid, condition)]["key"])
            shown[cid] = rid
            g.relationships.append(Relationship("BETWEEN", eid, rid, "PairwiseEvaluation", "Response",
                                                {"slot": slot, "contestant": cid}))
        if winner in shown:
            g.relationships.append(Relationship("FAVORS", eid, shown[winner], "PairwiseEvaluation", "Response"))
        g.relationships.append(Relationship("JUDGED_BY", eid, judge_id(d["judge"]), "PairwiseEvaluation", "Judge"))
    return g
