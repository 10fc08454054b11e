"""A small tournament and a store filled by hand (record_call + set_plan + put_text), for the export tests."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path

import pytest

from elotui.plan.keys import text_key
from elotui.plan.perturb import perturb
from elotui.store import CallRecord, PlanRow, Store
from elotui.tournament.model import Tournament, load_tournament

TOURNAMENT = """
[tournament]
name = "Export fixture"

[[contestants]]
id = "alpha"
[[contestants]]
id = "beta"
[[contestants]]
id = "gamma"

[[prompts]]
id = "p1"
text = "Explain 'quotes' and \\\\backslashes\\\\."
responses = { alpha = "A1", beta = "B1", gamma = "G1" }
category = "writing"

[[prompts]]
id = "p2"
text = "Say hello."
responses = { alpha = "A2 \\"quoted\\"", beta = "B2", gamma = "G2" }

[[judges]]
id = "j1"
provider = "simulated"
[judges.simulation]
qualities = { alpha = 2.0, beta = 1.0, gamma = 0.0 }

[[judges]]
id = "j2"
provider = "simulated"
label = "Second judge"
[judges.simulation]
qualities = { alpha = 0.0, beta = 1.0, gamma = 2.0 }

[comparison]
conditions = ["clean", "lexical"]

[ranking]
threshold = 0.5
method = "elo"
permutations = 20
bootstrap = 30
seed = 7
"""

EVIL = "He said \"no\"; it's fine\\n'})]; MATCH (n) DETACH DELETE n //\n\r\t\x00\x1f\u2028 ünï 😀 \\'"


@dataclass
class Filled:
    tournament: Tournament
    store: Store
    path: Path
    store_path: Path
    calls: list[CallRecord]
    plan: list[PlanRow]
    paraphrases: int
    variants: int

    def export_args(self, *options: str) -> list[str]:
        """`elotui export` arguments for this tournament and store, then `options`."""
        return ["export", str(self.path), "--store", str(self.store_path), *options]


def _winner(i: int) -> str:
    return ("first", "second", "tie")[i % 3]


def shown_keys(
    tournament: Tournament, pid: str, first: str, second: str, condition: str
) -> tuple[str, str, str]:
    """The text keys the engine records in each plan row (elotui.plan.calls.Texts.shown_*_key), for the texts
    `fill_store` puts: the prompt (or its paraphrase "para-p1"), the responses (or their variants "lex-P-C")."""
    prompt_key = (
        "para-p1" if condition == "paraphrase" else text_key("prompt", pid, tournament.prompt_texts[pid])
    )

    def response(cid: str) -> str:
        if condition == "lexical":
            return f"lex-{pid}-{cid}"
        return text_key("response", pid, cid, tournament.responses[(pid, cid)])

    return prompt_key, response(first), response(second)


def fill_store(store: Store, tournament: Tournament) -> tuple[list[CallRecord], list[PlanRow], int, int]:
    plan: list[PlanRow] = []
    calls: list[CallRecord] = []
    seq = 0
    for pid in tournament.prompt_ids:
        for a, b in itertools.combinations(tournament.contestant_ids, 2):
            for first, second in ((a, b), (b, a)):
                for judge in tournament.judge_ids:
                    for condition in ("clean", "lexical"):
                        key = f"k{seq}"
                        plan.append(
                            PlanRow(
                                seq,
                                pid,
                                first,
                                second,
                                judge,
                                condition,
                                0,
                                key,
                                *shown_keys(tournament, pid, first, second, condition),
                            )
                        )
                        # every 11th presentation is left unjudged, every 7th failed, every 13th invalid
                        if seq % 11 != 5:
                            status = "error" if seq % 7 == 3 else ("invalid" if seq % 13 == 4 else "ok")
                            calls.append(
                                CallRecord(
                                    key=key,
                                    kind="verdict",
                                    status=status,
                                    judge=judge,
                                    provider="simulated",
                                    model=None,
                                    prompt=pid,
                                    first=first,
                                    second=second,
                                    condition=condition,
                                    sample=0,
                                    winner=_winner(seq) if status == "ok" else None,
                                    reasoning=EVIL if seq == 0 else f"reason {seq}",
                                    raw_reply="not json" if status == "invalid" else None,
                                    error="HTTP 500" if status == "error" else None,
                                    latency_ms=12.5 + seq,
                                    input_tokens=100 + seq,
                                    output_tokens=20,
                                    cost=0.001,
                                    started_at=1_700_000_000.0 + seq,
                                    finished_at=1_700_000_001.0 + seq,
                                )
                            )
                        seq += 1
    # a few presentations under the paraphrased question (p1 only), all answered
    for first, second in (("alpha", "gamma"), ("gamma", "alpha")):
        key = f"k{seq}"
        plan.append(
            PlanRow(
                seq,
                "p1",
                first,
                second,
                "j2",
                "paraphrase",
                0,
                key,
                *shown_keys(tournament, "p1", first, second, "paraphrase"),
            )
        )
        calls.append(
            CallRecord(
                key=key,
                kind="verdict",
                status="ok",
                judge="j2",
                prompt="p1",
                first=first,
                second=second,
                condition="paraphrase",
                sample=0,
                winner="second",
                reasoning="paraphrase reasoning",
                finished_at=1_700_000_500.0 + seq,
            )
        )
        seq += 1
    for c in calls:
        store.record_call(c)
    store.set_plan(plan)
    # derived texts as the engine stores them (elotui.plan.calls.Texts.store_derived), plus stale ones left by an
    # older version of the file, which are not part of the current trace
    seed = tournament.spec.comparison.perturbation_seed
    store.put_text(
        "para-old",
        "paraphrase",
        "An older paraphrase.",
        prompt="p1",
        condition="paraphrase",
        base_key=text_key("prompt", "p1", "an older prompt text"),
    )
    store.put_text(
        "para-p1",
        "paraphrase",
        "Explain quotes, please.",
        prompt="p1",
        condition="paraphrase",
        base_key=text_key("prompt", "p1", tournament.prompt_texts["p1"]),
    )
    variants = 0
    for pid in tournament.prompt_ids:
        for cid in tournament.contestant_ids:
            base = tournament.responses[(pid, cid)]
            base_key = text_key("response", pid, cid, base)
            store.put_text(base_key, "response", base, prompt=pid, contestant=cid)
            store.put_text(
                f"lex-old-{pid}-{cid}",
                "perturbed",
                "older base, perturbed",
                prompt=pid,
                contestant=cid,
                condition="lexical",
                base_key=text_key("response", pid, cid, "older base"),
            )
            store.put_text(
                f"lex-{pid}-{cid}",
                "perturbed",
                perturb(base, seed=seed, salt=f"{pid}\x00{cid}"),
                prompt=pid,
                contestant=cid,
                condition="lexical",
                base_key=base_key,
            )
            store.put_text(
                f"lex-seed-{pid}-{cid}",
                "perturbed",
                base + " (another seed)",
                prompt=pid,
                contestant=cid,
                condition="lexical",
                base_key=base_key,
            )
            variants += 1
    return calls, plan, 1, variants


@pytest.fixture
def filled(tmp_path: Path) -> Filled:
    path = tmp_path / "t.toml"
    path.write_text(TOURNAMENT, encoding="utf-8")
    tournament = load_tournament(path)
    store_path = tmp_path / "store.sqlite"
    store = Store(store_path)
    calls, plan, paraphrases, variants = fill_store(store, tournament)
    yield Filled(tournament, store, path, store_path, calls, plan, paraphrases, variants)
    store.close()
