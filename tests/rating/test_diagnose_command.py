"""`elotui diagnose T` end to end: a tournament file, a real SQLite store, text and JSON output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from elotui.cli import main
from elotui.store import CallRecord, PlanRow, Store

TOURNAMENT = """
[tournament]
name = "Diag"

[[contestants]]
id = "alpha"
[[contestants]]
id = "beta"
[[contestants]]
id = "gamma"

[[prompts]]
id = "p1"
text = "Say hello."
responses = { alpha = "Hello there, friend!", beta = "Hi", gamma = "Hey you" }

[[prompts]]
id = "p2"
text = "Say bye."
responses = { alpha = "Goodbye and take care!", beta = "Bye", gamma = "Later" }

[[judges]]
id = "s1"
provider = "simulated"
[judges.simulation]
qualities = { alpha = 100.0, beta = 0.0, gamma = -100.0 }

[[judges]]
id = "s2"
provider = "simulated"
[judges.simulation]
qualities = { alpha = 100.0, beta = 0.0, gamma = -100.0 }

[ranking]
method = "bt"
threshold = 0.5

[reference]
votes = "human.jsonl"
ranking = ["alpha", "beta", "gamma"]
"""

RANK = {"alpha": 0, "beta": 1, "gamma": 2}


@pytest.fixture()
def tournament(tmp_path: Path) -> tuple[Path, Path]:
    path = tmp_path / "t.toml"
    path.write_text(TOURNAMENT, encoding="utf-8")
    votes = [
        {
            "prompt": "p1",
            "first": "alpha",
            "second": "beta",
            "judge": "human",
            "condition": "clean",
            "sample": 0,
            "winner": "first",
            "reasoning": None,
            "status": "ok",
        }
    ]
    (tmp_path / "human.jsonl").write_text("\n".join(json.dumps(v) for v in votes) + "\n", encoding="utf-8")
    store_path = tmp_path / "store.sqlite"
    plan, seq = [], 0
    with Store(store_path) as store:
        for prompt in ("p1", "p2"):
            for first, r_first in RANK.items():
                for second, r_second in RANK.items():
                    if first == second:
                        continue
                    for judge in ("s1", "s2"):
                        key = f"{prompt}-{first}-{second}-{judge}"
                        plan.append(PlanRow(seq, prompt, first, second, judge, "clean", 0, key))
                        seq += 1
                        if judge == "s2" and prompt == "p2":
                            winner = "first"  # s2 always picks the first slot on p2: position bias
                        else:
                            winner = "first" if r_first < r_second else "second"
                        if (prompt, first, second, judge) == ("p2", "beta", "gamma", "s1"):
                            store.record_call(
                                CallRecord(key=key, kind="verdict", status="invalid", judge=judge)
                            )
                        elif (prompt, first, second, judge) != (
                            "p2",
                            "gamma",
                            "beta",
                            "s1",
                        ):  # that one: missing
                            store.record_call(
                                CallRecord(key=key, kind="verdict", status="ok", judge=judge, winner=winner)
                            )
        store.set_plan(plan)
    return path, store_path


def test_diagnose_json(tournament: tuple[Path, Path], tmp_path: Path) -> None:
    path, store_path = tournament
    out = tmp_path / "d.json"
    assert main(["diagnose", str(path), "--store", str(store_path), "--format", "json", "-o", str(out)]) == 0
    d = json.loads(out.read_text(encoding="utf-8"))
    assert d["counts"] == {"verdicts": 24, "verdicts_used": 22, "invalid": 1, "failed": 0, "missing": 1}
    s1, s2 = d["judges"]["s1"]["position"], d["judges"]["s2"]["position"]
    # the invalid and the missing verdict are the two orders of one unit (p2, beta-gamma)
    assert (
        s1["units"] == 6
        and s1["consistent"] == pytest.approx(5 / 6)
        and s1["inconclusive"] == pytest.approx(1 / 6)
    )
    assert s2["units"] == 6 and s2["consistent"] == 0.5 and s2["position_bias"] == 0.5
    assert s2["first_slot_share"] == pytest.approx(9 / 12)
    assert d["judges"]["s1"]["human"]["compared"] == 2 and d["judges"]["s1"]["human"]["accuracy"] == 1.0
    assert d["win_rates"]["s1"]["alpha"] == 1.0
    assert d["reference"]["source"] == "ranking" and d["reference"]["method"] == "bt"
    assert d["reference"]["by_threshold"]["none"]["kendall_tau"] == pytest.approx(1.0)
    # length bias: alpha's responses are the longest and alpha wins most decisive verdicts
    assert d["length_bias"]["decisive_verdicts"] == 22
    assert d["tournament"] == "Diag"
    # each adjacent order of the leaderboard and how few verdicts it rests on (tests/rating/test_drop_to_flip.py
    # checks the counts against an exhaustive search)
    flips = d["drop_to_flip"]
    assert len(flips) == len(d["contestants"]) - 1
    assert all(f["upper"] != f["lower"] and f["games"] == 12 and f["searched"] for f in flips)
    assert all(f["fragile"] == (f["drop_to_flip"] is not None and f["drop_to_flip"] <= 0.12) for f in flips)
    # at threshold 0.5 a game is a presentation's agreed vote: 12 of them; these small counts are exact
    assert [(f["upper"], f["lower"], f["drop_to_flip"], f["exact"]) for f in flips] == [
        ("alpha", "beta", 4, True),
        ("beta", "gamma", 3, True),
    ]


def test_diagnose_text(tournament: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    path, store_path = tournament
    assert main(["diagnose", str(path), "--store", str(store_path)]) == 0
    text = capsys.readouterr().out
    for heading in (
        "Position stability",
        "Inter-judge agreement",
        "Agreement with human votes",
        "Win rates",
        "Head-to-head",
        "Kendall τ",
        "Length bias",
        "Agreement with the reference ranking",
        "How few verdicts each adjacent order rests on",
    ):
        assert heading in text
    assert "24 planned verdicts: 22 valid, 1 invalid, 0 failed, 1 missing" in text


def test_diagnose_bad_file_exits_2(tmp_path: Path) -> None:
    assert main(["diagnose", str(tmp_path / "nope.toml")]) == 2


def with_prompt_references(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    text = text.replace(
        'gamma = "Hey you" }\n', 'gamma = "Hey you" }\nreference_ranking = ["alpha", "beta", "gamma"]\n'
    )
    text = text.replace(
        'gamma = "Later" }\n', 'gamma = "Later" }\nreference_ranking = ["gamma", "beta", "alpha"]\n'
    )
    path.write_text(text, encoding="utf-8")


def test_diagnose_per_prompt_reference(
    tournament: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, store_path = tournament
    args = ["diagnose", str(path), "--store", str(store_path)]
    assert main([*args, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["per_prompt_reference"] is None
    assert main(args) == 0
    assert "reference_ranking" not in capsys.readouterr().out

    with_prompt_references(path)
    assert main([*args, "--format", "json"]) == 0
    ppr = json.loads(capsys.readouterr().out)["per_prompt_reference"]
    # p1: every verdict follows alpha > beta > gamma -> win rates 1, 1/2, 0, the reference order
    p1 = ppr["by_prompt"]["p1"]
    assert p1["contestants"] == 3 and p1["kendall_tau"] == pytest.approx(1.0)
    assert p1["kendall_p"] == pytest.approx(1 / 3) and p1["spearman_rho"] == pytest.approx(1.0)
    # p2: s1 right but beta-gamma lost, s2 always the first slot -> alpha 6/8, beta 2/6, gamma 2/6;
    # against gamma > beta > alpha: 2 discordant pairs, 1 tied in the prompt's ranking ->
    # τ-b = -2 / sqrt(2 · 3); ρ = Pearson of ranks (3, 1.5, 1.5) and (1, 2, 3) = -1.5 / sqrt(1.5 · 2)
    p2 = ppr["by_prompt"]["p2"]
    assert p2["contestants"] == 3
    assert p2["kendall_tau"] == pytest.approx(-2 / 6**0.5) and p2["spearman_rho"] == pytest.approx(
        -(3**0.5) / 2
    )
    assert ppr["summary"] == {
        "prompts": 2,
        "mean": pytest.approx((1 - 2 / 6**0.5) / 2),
        "median": pytest.approx((1 - 2 / 6**0.5) / 2),
        "min": pytest.approx(-2 / 6**0.5),
        "max": pytest.approx(1.0),
    }

    assert main(args) == 0
    text = capsys.readouterr().out
    section = text[text.index("Per-prompt ranking vs the prompt's reference_ranking") :]
    assert "Kendall τ over 2 prompts: mean 0.09, median 0.09, min -0.82, max 1.00" in section
    lines = section.splitlines()
    assert lines[4].split() == ["prompt", "contestants", "Kendall", "τ", "p", "Spearman", "ρ", "p"]
    assert lines[6].split()[:5] == ["p1", "3", "1.000", "0.3333", "1.000"]
    assert lines[7].split()[:3] == ["p2", "3", "-0.816"] and lines[7].split()[4] == "-0.866"


def test_the_report_has_exactly_the_keys_its_typed_records_declare(tournament: tuple[Path, Path]) -> None:
    """records.DiagnoseReport (and its nested TypedDicts) name every key of the report and no other, so a key
    renamed in the report fails here, not silently in the TUI (which reads with .get) or loudly in the CLI."""
    import typing

    from elotui.records import Agreement, AgreementPair, DiagnoseReport, JudgeReport, PositionRates, Reference
    from elotui.session import TournamentSession
    from elotui.tournament.model import load_tournament

    path, store_path = tournament
    with Store(store_path) as store:
        report = TournamentSession(load_tournament(path), store).diagnose_report()

    def keys(td: type) -> set[str]:
        return set(typing.get_type_hints(td))

    # the pair table and the drop-to-flip counts: `elotui diagnose` asks for them; the style coefficients:
    # `elotui diagnose` of a tournament with `[ranking] style_control` (tests/importers)
    assert set(report) == keys(DiagnoseReport) - {"pairs", "drop_to_flip", "style_control"}
    with Store(store_path) as store:
        with_pairs = TournamentSession(load_tournament(path), store).diagnose_report(pairs=True)
    assert set(with_pairs) == keys(DiagnoseReport) - {"style_control"}
    assert set(report["position"]) == keys(PositionRates)
    judge = next(iter(report["judges"].values()))
    assert set(judge) == keys(JudgeReport) and set(judge["position"]) == keys(PositionRates)
    assert set(report["agreement"]) == keys(Agreement)
    assert all(set(p) == keys(AgreementPair) for p in report["agreement"]["pairs"])
    assert set(report["reference"]) == keys(Reference)


def test_text_output_does_not_summarise_every_pair(
    tournament: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each pair's record is the JSON's alone: the text (which shows the drop-to-flip counts, not the pairs)
    summarises no pair (10^6 of them for a Chatbot Arena import)."""
    from elotui.session import TournamentSession

    path, store_path = tournament
    calls: list[str] = []
    real = TournamentSession.pair_summaries

    def counted(self: TournamentSession, **kwargs: object) -> object:
        calls.append("pairs")
        return real(self, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(TournamentSession, "pair_summaries", counted)
    assert main(["diagnose", str(path), "--store", str(store_path)]) == 0
    assert "How few verdicts each adjacent order rests on" in capsys.readouterr().out and calls == []
    assert main(["diagnose", str(path), "--store", str(store_path), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert calls == ["pairs"] and doc["pairs"] and doc["drop_to_flip"]
