"""The converted data: coverage, counts, and the published win rates, straight from the raw source and from
the committed verdict logs (so the conversion itself is checked, independently of the engine)."""

from __future__ import annotations

import gzip
import json
from collections import Counter, defaultdict
from fractions import Fraction
from itertools import permutations
from pathlib import Path
from typing import Any

import pytest

from elotui.rating.leaderboard import RatingOptions, rank
from elotui.rating.table import VerdictTable
from elotui.tournament.model import load_tournament
from elotui.verdict_log import read_log
from tests.samples.sample_paths import PUBLISHED_GPT4_WIN_RATES, SAMPLES

VICUNA = SAMPLES / "vicuna80"
GUANACO = SAMPLES / "guanaco"


def _raw(path: Path) -> list[dict[str, Any]]:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def _win_rates(verdicts: list[tuple[str, str, str | None]]) -> dict[str, Fraction]:
    """(first, second, winner first/second/tie/None) -> exact win rate, tie = half a win, invalid skipped."""
    points: dict[str, Fraction] = defaultdict(Fraction)
    played: Counter[str] = Counter()
    for first, second, winner in verdicts:
        if winner is None:
            continue
        played[first] += 1
        played[second] += 1
        if winner == "tie":
            points[first] += Fraction(1, 2)
            points[second] += Fraction(1, 2)
        else:
            points[first if winner == "first" else second] += 1
    return {c: points[c] / played[c] for c in played}


_RAW_WINNER = {"model_1": "first", "model_2": "second", "tie": "tie", "invalid": None}


def test_published_win_rates_from_the_raw_source(shared_data: Path) -> None:
    rows = [r for r in _raw(shared_data / "prd_vicuna80" / "judgments.jsonl.gz") if r["judge"] == "gpt-4"]
    assert len(rows) == 1600
    rates = _win_rates([(r["model_1"], r["model_2"], _RAW_WINNER[r["verdict"]]) for r in rows])
    assert rates == {c: Fraction(v) for c, v in PUBLISHED_GPT4_WIN_RATES.items()}


def test_published_win_rates_from_the_committed_log() -> None:
    rows = [r for r in read_log(VICUNA / "verdicts.jsonl.gz") if r["judge"] == "gpt-4"]
    assert len(rows) == 1600
    rates = _win_rates([(r["first"], r["second"], r["winner"]) for r in rows])
    assert rates == {c: Fraction(v) for c, v in PUBLISHED_GPT4_WIN_RATES.items()}


def test_published_win_rates_through_the_rating_code_over_the_log() -> None:
    t = load_tournament(VICUNA / "tournament.toml")
    table = VerdictTable.from_rows(read_log(VICUNA / "verdicts.jsonl.gz"), contestants=t.contestant_ids)
    board = rank(
        table,
        threshold="none",
        method="elo",
        judges=["gpt-4"],
        options=RatingOptions(permutations=5, bootstrap=0),
    )
    got = {row.contestant: row.win_rate for row in board.rows}
    for contestant, published in PUBLISHED_GPT4_WIN_RATES.items():
        assert got[contestant] == pytest.approx(float(published), abs=1e-12), contestant
    assert [row.contestant for row in board.rows][:2] == ["gpt-4", "claude"]


@pytest.mark.parametrize(
    ("sample", "judges", "n_verdicts", "n_invalid", "n_votes"),
    [
        ("vicuna80", ["gpt-4", "gpt-3.5", "claude", "bard", "vicuna-13b"], 8000, 0, 1760),
        ("guanaco", ["gpt-4"], 4480, 13, 6720),
    ],
)
def test_every_planned_presentation_has_a_verdict(
    sample: str, judges: list[str], n_verdicts: int, n_invalid: int, n_votes: int
) -> None:
    t = load_tournament(SAMPLES / sample / "tournament.toml")
    assert t.judge_ids == judges
    assert {j.provider for j in t.spec.judges} == {"replay"}
    assert all(j.replay_name == j.id for j in t.spec.judges)
    rows = list(read_log(t.resolve(t.spec.judges[0].path or "")))
    assert len(rows) == n_verdicts
    assert sum(r["status"] == "invalid" for r in rows) == n_invalid
    have = Counter(
        (r["judge"], r["prompt"], r["first"], r["second"], r["condition"], r["sample"]) for r in rows
    )
    assert max(have.values()) == 1
    planned = {
        (j, p, a, b, "clean", 0)
        for j in judges
        for p in t.prompt_ids
        for a, b in permutations(t.contestant_ids, 2)
    }
    assert set(have) == planned
    assert t.spec.reference is not None and t.spec.reference.votes
    votes = list(read_log(t.resolve(t.spec.reference.votes)))
    assert len(votes) == n_votes
    assert {v["judge"] for v in votes} == {"human"}
    per_key = Counter((v["prompt"], v["first"], v["second"], v["sample"]) for v in votes)
    assert max(per_key.values()) == 1
    groups: dict[tuple[str, str, str], list[int]] = defaultdict(list)
    for v in votes:
        groups[(v["prompt"], v["first"], v["second"])].append(v["sample"])
    assert all(sorted(s) == list(range(len(s))) for s in groups.values()), (
        "vote numbers 0, 1, 2 within a pair"
    )


def test_human_votes_match_the_source(shared_data: Path) -> None:
    raw = [r for r in _raw(shared_data / "prd_vicuna80" / "judgments.jsonl.gz") if r["judge"] == "human"]
    want = Counter(
        (f"q{r['question_id']}", r["model_1"], r["model_2"], _RAW_WINNER[r["verdict"]]) for r in raw
    )
    got = Counter(
        (v["prompt"], v["first"], v["second"], v["winner"]) for v in read_log(VICUNA / "human_votes.jsonl.gz")
    )
    assert got == want


@pytest.mark.parametrize(("sample", "folder"), [("vicuna80", "prd_vicuna80"), ("guanaco", "qlora_vicuna")])
def test_verdict_log_matches_the_source(sample: str, folder: str, shared_data: Path) -> None:
    raw = [r for r in _raw(shared_data / folder / "judgments.jsonl.gz") if r["judge"] != "human"]
    want = {
        (r["judge"], f"q{r['question_id']}", r["model_1"], r["model_2"]): (
            _RAW_WINNER[r["verdict"]],
            r["reasoning"],
        )
        for r in raw
    }
    log = list(read_log(SAMPLES / sample / "verdicts.jsonl.gz"))
    got = {(r["judge"], r["prompt"], r["first"], r["second"]): (r["winner"], r["reasoning"]) for r in log}
    assert got == want
    assert all(r["status"] == ("ok" if r["winner"] else "invalid") for r in log)
    for judge in {r["judge"] for r in raw}:
        from_raw = _win_rates(
            [(r["model_1"], r["model_2"], _RAW_WINNER[r["verdict"]]) for r in raw if r["judge"] == judge]
        )
        from_log = _win_rates([(r["first"], r["second"], r["winner"]) for r in log if r["judge"] == judge])
        assert from_log == from_raw, judge


@pytest.mark.parametrize(("sample", "folder"), [("vicuna80", "prd_vicuna80"), ("guanaco", "qlora_vicuna")])
def test_prompts_and_responses_match_the_source(sample: str, folder: str, shared_data: Path) -> None:
    t = load_tournament(SAMPLES / sample / "tournament.toml")
    answers = _raw(shared_data / folder / "answers.jsonl.gz")
    assert len(t.prompt_ids) == 80 and t.prompt_ids[0] == "q1"
    for a in answers:
        pid = f"q{a['question_id']}"
        assert t.prompt_texts[pid] == a["question"]
        assert t.responses[(pid, a["model"])] == a["answer"]
    assert len(t.responses) == len(answers)
