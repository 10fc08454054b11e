from __future__ import annotations

import math
from pathlib import Path

import pytest

from elotui.judges import build_judge
from elotui.judges.base import JudgeRequest, Presentation
from elotui.judges.parse import parse_verdict
from elotui.judges.simulated import SimulatedJudge
from elotui.tournament.model import JudgeConfig, SimulationConfig
from elotui.vocab import win_probability as winner_probability


def sim_judge(**sim: object) -> SimulatedJudge:
    params = {"qualities": {"strong": 1200.0, "weak": 1000.0, "same": 1000.0}, "noise": 0.0, **sim}
    config = JudgeConfig(id="sim", provider="simulated", simulation=SimulationConfig(**params))
    judge = build_judge(config, judge_id="sim", base_dir=Path("."))
    assert isinstance(judge, SimulatedJudge)
    return judge


def ask(key: str, first: str, second: str, a: str = "", b: str = "") -> JudgeRequest:
    return JudgeRequest(
        key=key,
        system="",
        user="",
        presentation=Presentation("q", first, second),
        first_text=a,
        second_text=b,
    )


def first_win_rate(
    judge: SimulatedJudge, first: str, second: str, n: int = 4000, a: str = "", b: str = ""
) -> float:
    wins = 0.0
    for i in range(n):
        r = judge.answer(ask(f"k{i}", first, second, a, b))
        wins += 1.0 if r.winner == "first" else 0.5 if r.winner == "tie" else 0.0
    return wins / n


def test_deterministic_per_seed_and_key() -> None:
    a, b = sim_judge(seed=1, noise=80), sim_judge(seed=1, noise=80)
    seq_a = [a.answer(ask(f"k{i}", "strong", "weak")).winner for i in range(200)]
    seq_b = [b.answer(ask(f"k{i}", "strong", "weak")).winner for i in range(200)]
    assert seq_a == seq_b
    other = [sim_judge(seed=2, noise=80).answer(ask(f"k{i}", "strong", "weak")).winner for i in range(200)]
    assert other != seq_a


def test_follows_its_qualities() -> None:
    judge = sim_judge()
    expected = winner_probability(200.0)  # 0.7597
    assert expected == pytest.approx(1 / (1 + 10 ** (-0.5)))
    n = 4000
    se = math.sqrt(expected * (1 - expected) / n)
    assert abs(first_win_rate(judge, "strong", "weak", n) - expected) < 4 * se
    assert abs(first_win_rate(judge, "weak", "strong", n) - (1 - expected)) < 4 * se
    assert abs(first_win_rate(judge, "same", "weak", n) - 0.5) < 4 * math.sqrt(0.25 / n)


def test_position_bias_in_elo_points() -> None:
    judge = sim_judge(position_bias=100.0)
    n = 4000
    p = winner_probability(100.0)
    assert abs(first_win_rate(judge, "same", "weak", n) - p) < 4 * math.sqrt(p * (1 - p) / n)


def test_length_bias_prefers_the_longer_text() -> None:
    judge = sim_judge(length_bias=200.0)
    n = 4000
    # first text twice as long: length term = 200 * (200 - 100) / 200 = +100 Elo
    p = winner_probability(100.0)
    assert abs(first_win_rate(judge, "same", "weak", n, "x" * 200, "x" * 100) - p) < 4 * math.sqrt(
        p * (1 - p) / n
    )


def test_tie_margin_and_invalid_rate() -> None:
    judge = sim_judge(tie_margin=50.0)
    assert all(judge.answer(ask(f"k{i}", "same", "weak")).winner == "tie" for i in range(50))
    assert all(judge.answer(ask(f"k{i}", "strong", "weak")).winner != "tie" for i in range(50))
    flaky = sim_judge(invalid_rate=0.3)
    replies = [flaky.answer(ask(f"k{i}", "strong", "weak")) for i in range(2000)]
    invalid = [r for r in replies if r.status == "invalid"]
    assert abs(len(invalid) / 2000 - 0.3) < 4 * math.sqrt(0.21 / 2000)
    assert all(parse_verdict(r.raw_reply)[0] == "invalid" and r.winner is None for r in invalid)


async def test_reply_is_labelled_simulated_and_parseable() -> None:
    judge = sim_judge()
    r = await judge.judge(ask("k", "strong", "weak"))
    assert (
        r.status == "ok"
        and "Simulated" in (r.reasoning or "")
        and "no model was called" in (r.reasoning or "")
    )
    assert parse_verdict(r.raw_reply)[1] == r.winner
    assert judge.kind == "simulated" and r.latency_ms is not None
    unknown = await judge.judge(ask("k", "strong", "nobody"))
    assert unknown.status == "error" and "nobody" in (unknown.error or "")
    c1, c2 = await judge.complete("s", "write"), await judge.complete("s", "write")
    assert c1.status == "ok" and c1.text == c2.text and "simulated" in (c1.text or "")


def test_identity_has_every_parameter() -> None:
    judge = sim_judge(seed=7, position_bias=30.0)
    ident = judge.identity()
    assert ident["provider"] == "simulated" and ident["seed"] == 7 and ident["position_bias"] == 30.0
    assert set(ident) == {
        "provider",
        "qualities",
        "noise",
        "position_bias",
        "length_bias",
        "tie_margin",
        "invalid_rate",
        "seed",
    }
