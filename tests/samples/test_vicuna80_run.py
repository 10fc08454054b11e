"""The product path on the vicuna80 sample: a headless run (replay delay off) into a temp store, then the
rating code over `store.plan_verdicts()`, the diagnostics, and the export / diagnose commands on that store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from elotui.cli import main
from elotui.rating.diagnostics import diagnose
from elotui.rating.leaderboard import RatingOptions, rank
from elotui.rating.table import VerdictTable
from elotui.store import Store
from elotui.tournament.model import Tournament, load_tournament
from elotui.verdict_log import read_log
from tests.samples.sample_paths import PUBLISHED_GPT4_WIN_RATES, SAMPLES

TOURNAMENT = SAMPLES / "vicuna80" / "tournament.toml"
JUDGES = ["gpt-4", "gpt-3.5", "claude", "bard", "vicuna-13b"]


@pytest.fixture(scope="module")
def run_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    store_path = tmp_path_factory.mktemp("vicuna80") / "store.sqlite"
    code = main(["run", str(TOURNAMENT), "--headless", "--no-delay", "--store", str(store_path)])
    assert code == 0
    return store_path


@pytest.fixture(scope="module")
def tournament() -> Tournament:
    return load_tournament(TOURNAMENT)


@pytest.fixture(scope="module")
def table(run_store: Path, tournament: Tournament) -> VerdictTable:
    with Store.open_for(tournament, run_store) as store:
        rows = store.plan_verdicts()
    return VerdictTable.from_rows(rows, contestants=tournament.contestant_ids)


def test_the_run_answers_every_planned_call(run_store: Path, tournament: Tournament) -> None:
    with Store.open_for(tournament, run_store) as store:
        rows = store.plan_verdicts()
        runs = store.runs()
    assert len(rows) == 80 * 20 * 5
    assert {r[6] for r in rows} == {"ok"}
    assert {(r[4], r[5]) for r in rows} == {("clean", 0)}
    assert runs and runs[-1].state == "finished"


def test_gpt4_alone_at_threshold_none_gives_the_published_win_rates(table: VerdictTable) -> None:
    board = rank(
        table,
        threshold="none",
        method="elo",
        judges=["gpt-4"],
        options=RatingOptions(permutations=10, bootstrap=0),
    )
    got = {row.contestant: row.win_rate for row in board.rows}
    assert set(got) == set(PUBLISHED_GPT4_WIN_RATES)
    for contestant, published in PUBLISHED_GPT4_WIN_RATES.items():
        assert got[contestant] == pytest.approx(float(published), abs=1e-12), contestant
    assert sum(row.games for row in board.rows) == 2 * 1600
    # the same through the diagnostics' per-judge win rates
    report = diagnose(table, options=RatingOptions(permutations=5))
    for contestant, published in PUBLISHED_GPT4_WIN_RATES.items():
        assert report["win_rates"]["gpt-4"][contestant] == pytest.approx(float(published), abs=1e-12)


def test_human_agreement_and_position_consistency_per_judge(
    table: VerdictTable, tournament: Tournament
) -> None:
    assert tournament.spec.reference is not None and tournament.spec.reference.votes
    votes = list(read_log(tournament.resolve(tournament.spec.reference.votes)))
    report = diagnose(table, human_votes=votes, options=RatingOptions(permutations=5))
    assert report["human"]["votes"] == 1760
    lines = []
    for judge in JUDGES:
        human = report["judges"][judge]["human"]
        position = report["judges"][judge]["position"]
        assert human["compared"] == 1600  # every verdict's (prompt, pair) has human votes in some order
        assert 0.0 <= human["accuracy"] <= 1.0 and -1.0 <= human["cohen_kappa"] <= 1.0
        assert position["units"] == 800  # 80 prompts x 10 unordered pairs, each seen in both orders
        assert position["consistent"] + position["position_bias"] + position["inconclusive"] == pytest.approx(
            1.0
        )
        lines.append(
            f"{judge:>10}: human accuracy {human['accuracy']:.3f} κ {human['cohen_kappa']:.3f}, "
            f"position-consistent {position['consistent']:.3f}"
        )
    print("\n".join(lines))  # shown with `pytest -s`
    kappa = {j: report["judges"][j]["human"]["cohen_kappa"] for j in JUDGES}
    consistent = {j: report["judges"][j]["position"]["consistent"] for j in JUDGES}
    # GPT-4 agrees best with the human majority and is the most order-consistent; Bard and Vicuna-13B the least
    assert max(kappa, key=kappa.__getitem__) == "gpt-4"
    assert max(consistent, key=consistent.__getitem__) == "gpt-4"
    assert set(sorted(consistent, key=consistent.__getitem__)[:2]) == {"bard", "vicuna-13b"}
    assert set(sorted(kappa, key=kappa.__getitem__)[:2]) == {"bard", "vicuna-13b"}


def test_export_reads_the_run_store(run_store: Path, tmp_path: Path) -> None:
    out = tmp_path / "ranking.json"
    code = main(
        [
            "export",
            str(TOURNAMENT),
            "--store",
            str(run_store),
            "--threshold",
            "none",
            "--format",
            "json",
            "-o",
            str(out),
        ]
    )
    assert code == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    text = json.dumps(data)
    for contestant in PUBLISHED_GPT4_WIN_RATES:
        assert f'"{contestant}"' in text
    csv_out = tmp_path / "ranking.csv"
    assert main(["export", str(TOURNAMENT), "--store", str(run_store), "-o", str(csv_out)]) == 0
    assert len(csv_out.read_text(encoding="utf-8").strip().splitlines()) == 1 + 5


def test_diagnose_reads_the_run_store(run_store: Path, tmp_path: Path) -> None:
    out = tmp_path / "diagnose.json"
    assert (
        main(["diagnose", str(TOURNAMENT), "--store", str(run_store), "--format", "json", "-o", str(out)])
        == 0
    )
    report = json.loads(out.read_text(encoding="utf-8"))
    assert set(report["judges"]) == set(JUDGES)
    assert report["human"]["votes"] == 1760
    text_out = tmp_path / "diagnose.txt"
    assert main(["diagnose", str(TOURNAMENT), "--store", str(run_store), "-o", str(text_out)]) == 0
    assert "human" in text_out.read_text(encoding="utf-8").lower()


def test_no_elo_interval_collapses_to_a_point_on_guanaco(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Regression: where the order-noise estimate reached a contestant's whole bootstrap spread, its 95 % interval
    collapsed to one value beside the point (guanaco-33b: 987.3 with [994.2, 994.2])."""
    guanaco = SAMPLES / "guanaco" / "tournament.toml"
    store = tmp_path / "s.sqlite"
    assert main(["run", str(guanaco), "--headless", "--no-delay", "--store", str(store)]) == 0
    capsys.readouterr()
    assert main(["export", str(guanaco), "--store", str(store), "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    for r in rows:
        assert r["ci_high"] - r["ci_low"] > 5, r["contestant"]
        assert r["ci_low"] <= r["rating"] <= r["ci_high"], r["contestant"]
