"""Planning is pinned: the call keys, plan rows and calls of a tournament that uses every planning feature (all four
conditions, two samples, a simulated and a live judge, few-shot examples, a generated response and a paraphrase
still missing) hash to the figure the planner gave before it was last rewritten for speed. A key that changed
would silently make every stored verdict a miss: the user would pay for them again."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from elotui.plan import verdict_calls as verdict_plan
from elotui.plan.calls import Texts, prerequisite_calls
from elotui.plan.presentations import build_plan
from elotui.plan.prompts import PromptBuilder
from elotui.plan.verdict_calls import verdict_calls
from elotui.records import PlanRow
from elotui.run.setup import build_judges, default_judge_factory
from elotui.store import Store
from elotui.tournament.model import load_tournament

# sha256 of the plan below as elotui 0.1 planned it at 85d95cb (before elotui.plan.verdict_calls)
GOLDEN = "3700fd07331fac8b0fff60c98318552da5afe5dcd1199aab71941fe33918b6da"

TOURNAMENT = """
[tournament]
name = "planning pinned"

[comparison]
both_orders = true
samples = 2
conditions = ["clean", "lexical", "injected", "paraphrase"]
examples_file = "examples.jsonl"

[comparison.paraphraser]
provider = "openai-compatible"
model = "para"
base_url = "http://127.0.0.1:9/v1"

[[contestants]]
id = "a"

[[contestants]]
id = "b"

[[contestants]]
id = "c"

[[contestants]]
id = "g"
[contestants.generator]
provider = "openai-compatible"
model = "small"
base_url = "http://127.0.0.1:9/v1"

[[prompts]]
id = "p1"
text = "Explain why the sky is blue, in two sentences."
[prompts.responses]
a = "Rayleigh scattering: short wavelengths scatter more, so blue light reaches us from every direction."
b = "Because it reflects the ocean. Obviously it is not going to be green."
c = "Sunlight scatters off air molecules; blue scatters most. We see that scattered blue everywhere."

[[prompts]]
id = "p2"
text = "Give a haiku about \\"quotes\\" and\\nnew lines."
[prompts.responses]
a = "Quoted words whisper\\nline breaks fold the quiet page\\nmeaning waits between"
b = "I cannot write haiku. Here is a limerick instead: there once was..."
c = "\\"Marks\\" hug a phrase\\nnewline, a breath in the verse\\ncommas rest softly"
g = "A given response for g on p2, so only p1 waits for g's generator."

[[judges]]
id = "sim"
provider = "simulated"
[judges.simulation]
seed = 3
[judges.simulation.qualities]
a = 1100.0
b = 900.0
c = 1050.0
g = 1000.0

[[judges]]
id = "live"
provider = "openai-compatible"
model = "judge-model"
base_url = "http://127.0.0.1:9/v1"
"""

EXAMPLES = [
    {
        "prompt": "Why is the sea salty?",
        "response_a": "Rivers carry minerals.",
        "response_b": "Fish.",
        "better": "A",
    },
    {"prompt": "Write a haiku.", "response_a": "No.", "response_b": "Autumn moon / ...", "better": "B"},
]


def plan_signature(tmp_path: Path) -> tuple[str, int, int, int]:
    (tmp_path / "t.toml").write_text(TOURNAMENT, encoding="utf-8")
    (tmp_path / "examples.jsonl").write_text(
        "".join(json.dumps(e) + "\n" for e in EXAMPLES), encoding="utf-8"
    )
    t = load_tournament(tmp_path / "t.toml")
    judges = build_judges(t, default_judge_factory(t))
    builder = PromptBuilder(t)
    plan = build_plan(t)
    with Store(tmp_path / "s.sqlite") as store:
        texts = Texts.load(t, store, prerequisite_calls(t, plan, builder, judges))
    v = verdict_calls(plan, builder, texts, judges)
    h = hashlib.sha256()
    for row in v.rows:
        h.update(repr(tuple(row)).encode())
    for c in v.calls:
        fields = (
            c.key,
            c.kind,
            c.judge,
            c.system_parts,
            c.user_parts,
            c.presentation,
            c.first_text,
            c.second_text,
        )
        h.update(repr((*fields, c.prompt, c.contestant, c.rows)).encode())
    h.update(repr(sorted(v.blocked.items())).encode())
    return h.hexdigest(), len(v.rows), len(v.calls), sum(v.blocked.values())


def test_the_plan_and_its_call_keys_are_what_they_were(tmp_path: Path) -> None:
    digest, rows, calls, blocked = plan_signature(tmp_path)
    # 2 prompts x 6 pairs x 2 orders x 2 judges x 2 samples x 4 conditions
    assert rows == 384
    # waiting for a text: p1's pairs with g (g's generation; 96), and the other paraphrase rows (24 of p1, 48 of p2)
    assert blocked == 168
    # one call per distinct request: where the lexical variant of a short response changed nothing, the live judge's
    # clean and lexical presentations are the same request (28 such rows; the simulated judge's key names the
    # condition)
    assert calls == rows - blocked - 28
    assert digest == GOLDEN


def test_a_reused_plans_rows_are_the_full_plans_rows_at_those_seqs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`only` (a reused plan's unanswered presentations): the rows of those seqs, in seq order, as the full plan
    has them, with their keys; seqs the plan does not have are left out (checked at every 50th row too)."""
    (tmp_path / "t.toml").write_text(TOURNAMENT, encoding="utf-8")
    (tmp_path / "examples.jsonl").write_text(
        "".join(json.dumps(e) + "\n" for e in EXAMPLES), encoding="utf-8"
    )
    t = load_tournament(tmp_path / "t.toml")
    judges = build_judges(t, default_judge_factory(t))
    builder, plan = PromptBuilder(t), build_plan(t)
    with Store(tmp_path / "s.sqlite") as store:
        texts = Texts.load(t, store, prerequisite_calls(t, plan, builder, judges))
    full = verdict_calls(plan, builder, texts, judges).rows
    only = set(range(3, 384, 7)) | {0, 383, 384, 10_000}
    monkeypatch.setattr(verdict_plan, "EVERY", 50)
    some = verdict_calls(plan, builder, texts, judges, only=only).rows
    assert [r.seq for r in some] == sorted(s for s in only if s < 384)
    assert some == [full[s] for s in sorted(s for s in only if s < 384)]
    assert all(type(r) is PlanRow for r in some)
