"""Simulated judges on the graded scale: `A>>B` when the winner is the side the noisy difference favours by at
least `strong_margin` (default 200 Elo points), `A>B` for a narrower or an upset win, `A=B` for a tie; the
verdicts of a headless graded tournament are stored with their strengths; the binary scale answers as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from elotui.cli import main
from elotui.judges import build_judge
from elotui.judges.base import JudgeRequest, Presentation
from elotui.judges.simulated import STRONG_MARGIN, SimulatedJudge
from elotui.store import Store, default_store_path
from elotui.tournament.model import JudgeConfig, SimulationConfig, load_tournament

QUALITIES = {"top": 1300.0, "mid": 1150.0, "low": 1000.0, "twin": 1000.0}


def judge(scale: str, **sim: object) -> SimulatedJudge:
    params = {"qualities": QUALITIES, "noise": 0.0, **sim}
    config = JudgeConfig(id="sim", provider="simulated", simulation=SimulationConfig(**params))
    made = build_judge(config, judge_id="sim", base_dir=Path("."), scale=scale)  # type: ignore[arg-type]
    assert isinstance(made, SimulatedJudge)
    return made


def ask(key: str, first: str, second: str) -> JudgeRequest:
    return JudgeRequest(key, "", "", Presentation("q", first, second))


def expected(first: str, second: str, winner: str, margin: float = STRONG_MARGIN) -> int | None:
    d = QUALITIES[first] - QUALITIES[second]
    if winner == "tie":
        return None
    favoured = d if winner == "first" else -d
    return 2 if favoured >= margin else 1


@pytest.mark.parametrize("margin", [None, 100.0])
def test_the_grade_follows_the_margin_in_both_orders(margin: float | None) -> None:
    sim = judge("graded", tie_margin=1.0, **({} if margin is None else {"strong_margin": margin}))
    seen: set[tuple[str, str, str, int | None]] = set()
    for first in QUALITIES:
        for second in QUALITIES:
            if first == second:
                continue
            for i in range(60):
                reply = sim.answer(ask(f"k{i}-{first}-{second}", first, second))
                assert reply.status == "ok" and reply.winner is not None
                want = expected(first, second, reply.winner, STRONG_MARGIN if margin is None else margin)
                assert reply.strength == want, (first, second, reply.raw_reply)
                grade = json.loads(reply.raw_reply or "")["better"]
                assert grade in ("A>>B", "A>B", "A=B", "B>A", "B>>A")
                seen.add((first, second, reply.winner, reply.strength))
    assert ("top", "low", "first", 2) in seen and ("low", "top", "second", 2) in seen  # both orders, strong
    assert ("low", "top", "first", 1) in seen  # an upset is never strong
    assert ("low", "twin", "tie", None) in seen
    assert (("top", "mid", "first", 2) in seen) == (margin == 100.0)  # 150 points: strong only at margin 100


def test_the_binary_scale_answers_as_before() -> None:
    graded, binary = judge("graded"), judge("binary")
    for i in range(50):
        g, b = graded.answer(ask(f"k{i}", "top", "mid")), binary.answer(ask(f"k{i}", "top", "mid"))
        assert g.winner == b.winner and b.strength is None  # the same draw, the grade added
        assert json.loads(b.raw_reply or "")["better"] in ("A", "B", "tie")
    assert "strong_margin" not in binary.identity()  # unset: every earlier key stays


def test_a_headless_graded_tournament_stores_the_strengths(tmp_path: Path) -> None:
    contestants = "".join(f'[[contestants]]\nid = "{c}"\n' for c in QUALITIES)
    responses = ", ".join(f'{c} = "answer of {c}"' for c in QUALITIES)
    prompts = "".join(
        f'[[prompts]]\nid = "p{i}"\ntext = "Q{i}?"\nresponses = {{ {responses} }}\n' for i in range(3)
    )
    path = tmp_path / "t.toml"
    path.write_text(
        f'[tournament]\nname = "sim graded"\n{contestants}{prompts}'
        '[[judges]]\nid = "sim"\nprovider = "simulated"\n'
        "simulation = { qualities = { top = 1300, mid = 1150, low = 1000, twin = 1000 }, noise = 0, tie_margin = 1 }\n"
        '[judge_prompt]\nscale = "graded"\n[ranking]\nthreshold = "none"\nstrong_weight = 3\nbootstrap = 0\n',
        encoding="utf-8",
    )
    assert main(["run", str(path), "--headless"]) == 0
    with Store(default_store_path(load_tournament(path))) as store:
        calls = [c for c in store.calls() if c.kind == "verdict"]
        strong = store.strong_verdicts()
    assert len(calls) == 3 * 4 * 3
    for c in calls:
        assert c.strength == expected(c.first, c.second, c.winner), (c.first, c.second, c.raw_reply)
    assert sorted(strong) == sorted(
        (c.prompt, c.first, c.second, c.judge, c.condition, c.sample) for c in calls if c.strength == 2
    )
    assert 0 < len(strong) < len(calls)
    path.write_text(path.read_text().replace('scale = "graded"', 'scale = "binary"'), encoding="utf-8")
    assert main(["run", str(path), "--headless"]) == 0
    with Store(default_store_path(load_tournament(path))) as store:
        assert len([c for c in store.calls() if c.kind == "verdict"]) == 2 * len(calls)  # another question
        assert store.strong_verdicts() == []  # the current plan's verdicts are binary


@pytest.mark.parametrize("scale", ["binary", "graded"])
def test_the_reasoning_says_when_a_drawn_win_goes_against_the_noisy_difference(scale: str) -> None:
    """A win is drawn with the first side's probability at the noisy difference: a reasoning that ends `+72.7 Elo
    → Response B is better` says it is an upset and how likely A was, and a win for the favoured side reads plainly."""
    sim = judge(scale, noise=150.0)
    upsets = plain = 0
    for i in range(200):
        reply = sim.answer(ask(f"u{i}", "mid", "low"))
        text = json.loads(reply.raw_reply or "")["reasoning"]
        d = float(text.split("noisy difference ")[1].split(" Elo")[0])
        if reply.winner == "tie":
            continue
        against = (reply.winner == "first") != (d > 0)
        if against:
            upsets += 1
            assert text.endswith(" is better (an upset)."), text
            assert f"A wins with probability {1 / (1 + 10 ** (-d / 400)):.0%}: Response" in text, text
        else:
            plain += 1
            assert text.endswith(f"Response {'A' if d > 0 else 'B'} is better."), text
    assert upsets and plain
