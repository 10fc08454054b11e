"""Self-preference, per-judge rankings and `exclude_self` on the vicuna80 sample, where the five judges are also
the five contestants — each checked against an independent computation from the sample's verdict log."""

from __future__ import annotations

import gzip
import json
from collections import defaultdict
from pathlib import Path

import pytest

from elotui.cli import main
from elotui.rating.leaderboard import RatingOptions, rank
from elotui.rating.table import VerdictTable
from elotui.session import TournamentSession
from elotui.store import Store
from elotui.tournament.model import load_tournament
from tests.samples.sample_paths import SAMPLES

TOURNAMENT = SAMPLES / "vicuna80" / "tournament.toml"
JUDGES = ["gpt-4", "gpt-3.5", "claude", "bard", "vicuna-13b"]


def _log() -> list[dict[str, object]]:
    with gzip.open(SAMPLES / "vicuna80" / "verdicts.jsonl.gz", "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


@pytest.fixture(scope="module")
def store_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("vicuna80-audit") / "store.sqlite"
    assert main(["run", str(TOURNAMENT), "--headless", "--no-delay", "--store", str(path)]) == 0
    return path


@pytest.fixture(scope="module")
def report(store_path: Path) -> dict[str, object]:
    t = load_tournament(TOURNAMENT)
    with Store.open_for(t, store_path) as store:
        return dict(TournamentSession(t, store).diagnose_report())


def test_self_preference_equals_an_independent_count(report: dict[str, object]) -> None:
    by_presentation: dict[tuple[object, ...], dict[str, float]] = defaultdict(dict)
    for r in _log():
        if r["status"] != "ok":
            continue
        key = (r["prompt"], r["first"], r["second"])
        by_presentation[key][str(r["judge"])] = {"first": 1.0, "second": 0.0, "tie": 0.5}[str(r["winner"])]
    got = report["self_preference"]
    assert set(got) == set(JUDGES)  # type: ignore[arg-type]
    for judge in JUDGES:
        own, others = [], []
        for (_, first, second), verdicts in by_presentation.items():
            if judge not in (first, second) or judge not in verdicts or len(verdicts) < 2:
                continue
            flip = (
                first != judge
            )  # the scores are the first-shown contestant's: the judge's own is 1 - s then
            own.append(abs(flip - verdicts[judge]))
            others += [abs(flip - s) for j, s in verdicts.items() if j != judge]
        g = got[judge]  # type: ignore[index]
        assert g["presentations"] == len(own)
        assert g["judge_win_rate"] == pytest.approx(sum(own) / len(own), abs=1e-12)
        assert g["others_win_rate"] == pytest.approx(sum(others) / len(others), abs=1e-12)
        assert g["ci_low"] <= g["difference"] <= g["ci_high"]
    assert got["gpt-4"]["difference"] > 0.05 and got["gpt-4"]["ci_low"] > 0  # type: ignore[index]


def test_each_judge_ranking_is_its_own_verdicts_alone(report: dict[str, object], store_path: Path) -> None:
    t = load_tournament(TOURNAMENT)
    with Store.open_for(t, store_path) as store:
        table = VerdictTable.from_rows(store.plan_verdicts(), contestants=t.contestant_ids)
    options = RatingOptions.from_config(t.spec.ranking).replace(bootstrap=0)
    for judge in JUDGES:
        want = rank(table, threshold="none", method="elo", options=options, judges=[judge]).ratings()
        assert report["per_judge"]["by_judge"][judge]["ratings"] == pytest.approx(want)  # type: ignore[index]


def test_exclude_self_equals_leaving_those_verdicts_out(store_path: Path, tmp_path: Path) -> None:
    text = TOURNAMENT.read_text(encoding="utf-8").replace("seed = 0\n", "seed = 0\nexclude_self = true\n", 1)
    for name in ("questions.jsonl", "answers.jsonl", "verdicts.jsonl.gz", "human_votes.jsonl.gz"):
        (tmp_path / name).symlink_to(SAMPLES / "vicuna80" / name)
    path = tmp_path / "tournament.toml"
    path.write_text(text, encoding="utf-8")
    t = load_tournament(path)
    assert t.spec.ranking.exclude_self and t.selves()["claude"] == ("claude", "same id")
    with Store.open_for(load_tournament(TOURNAMENT), store_path) as store:
        rows = store.plan_verdicts()
        board = TournamentSession(t, store).leaderboard(method="bt", threshold="none")
    kept = [r for r in rows if r.judge not in (r.first, r.second)]
    assert (
        len(kept) == len(rows) - 2 * 4 * 80 * 5
    )  # each judge sits out the 8 ordered pairs with its contestant
    options = RatingOptions.from_config(t.spec.ranking)
    want = rank(
        VerdictTable.from_rows(kept, contestants=t.contestant_ids),
        threshold="none",
        method="bt",
        options=options,
    )
    assert board.ratings() == pytest.approx(want.ratings(), abs=1e-9)


def test_one_random_order_with_a_position_term_ranks_like_both_orders(
    store_path: Path, report: dict[str, object]
) -> None:
    """vicuna80 with one seeded random seat order per presentation (half the verdicts, as `both_orders = false`
    plans them): position-aware Bradley–Terry lands inside the full both-orders fit's intervals for every
    contestant (the same model on all the verdicts: with the position term the scale is a little wider than plain
    Bradley–Terry's, which leaves the position effect in the noise), the order is the plain full fit's, and each
    judge's fitted first-slot advantage has the sign of its first-slot share."""
    from elotui.plan.presentations import seat_flipped

    t = load_tournament(TOURNAMENT)
    with Store.open_for(t, store_path) as store:
        rows = store.plan_verdicts()
    order = {c: i for i, c in enumerate(t.contestant_ids)}
    one_order = []
    for r in rows:
        a, b = (r.first, r.second) if order[r.first] < order[r.second] else (r.second, r.first)
        shown_first = b if seat_flipped(0, r.prompt, a, b, r.condition, r.sample) else a
        if r.first == shown_first:
            one_order.append(r)
    assert len(one_order) == len(rows) // 2
    both = VerdictTable.from_rows(rows, contestants=t.contestant_ids)
    half = VerdictTable.from_rows(one_order, contestants=t.contestant_ids)
    options = RatingOptions(bootstrap=100, seed=0)
    aware_options = options.replace(position_effect=True)
    full = rank(both, threshold="none", method="bt", options=aware_options)
    aware = rank(half, threshold="none", method="bt", options=aware_options).ratings()
    for row in full.rows:
        assert row.ci_low <= aware[row.contestant] <= row.ci_high, row.contestant
    plain = rank(both, threshold="none", method="bt", options=options).ratings()
    assert sorted(aware, key=lambda c: -aware[c]) == sorted(plain, key=lambda c: -plain[c])
    advantage = report["position_effect"]
    for judge in JUDGES:
        share = report["judges"][judge]["position"]["first_slot_share"]  # type: ignore[index]
        points = advantage[judge]["elo_points"]  # type: ignore[index]
        assert (points > 0) == (share > 0.5), (judge, points, share)
