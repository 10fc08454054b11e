"""Style-controlled Bradley–Terry (`[ranking] style_control`, `export --style-control`) on an imported Chatbot
Arena log equals FastChat's own `compute_style_control` (its rating_systems.py, vendored verbatim in
tests/benchmarks/fastchat_rating.py, run on the log as a pandas DataFrame) within 1 Elo point for every model, same
order, coefficients within 1 %; the raw Bradley–Terry equals its `compute_bt`. The numpy re-expression in
tests.importers.fastchat_reference (no pandas) is checked against the same code.
By simulation with a known length effect, the controlled ranking recovers the qualities better than the raw one
and the length coefficient's interval covers the truth."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy.stats import kendalltau

from elotui.cli import main
from elotui.rating import style_bt
from tests.benchmarks import fastchat_rating as fastchat_code
from tests.importers import fastchat_reference as fastchat
from tests.importers.fixtures import arena_battles, write_jsonl

MIXTRAL = '{ contestant = "mixtral-8x7b-instruct-v0.1", rating = 1114 }'


def imported_and_run(tmp_path: Path, battles: list[dict[str, Any]], ranking: str = "") -> Path:
    src = write_jsonl(tmp_path / "clean_battle.jsonl", battles)
    out = tmp_path / "t"
    assert main(["import", "arena", str(src), "-o", str(out)]) == 0
    toml = out / "tournament.toml"
    toml.write_text(toml.read_text().replace('method = "bt"', f'method = "bt"\n{ranking}'), encoding="utf-8")
    assert main(["run", str(toml), "--headless"]) == 0
    return toml


def export(toml: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["export", str(toml), "--format", "json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def test_equals_fastchat_compute_style_control_and_compute_bt(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    battles = arena_battles(n=1500, length_effect=1.0)
    toml = imported_and_run(tmp_path, battles, f"anchor = {MIXTRAL}\nbootstrap = 20")
    ratings, coef = fastchat_code.compute_style_control(pd.DataFrame(battles))  # FastChat's own code
    want = {str(m): float(r) for m, r in ratings.items()}
    doc = export(toml, capsys, "--style-control")
    got = {r["contestant"]: r["rating"] for r in doc["rows"]}
    assert set(got) == set(want)
    for model, rating in want.items():
        assert got[model] == pytest.approx(rating, abs=1.0), model
    assert [r["contestant"] for r in doc["rows"]] == list(want)  # FastChat's series is sorted, best first
    style = doc["settings"]["style_control"]
    assert style["features"] == ["length", "markdown"] and "conv_metadata" in style["source"]
    got_coef = [c["logit_per_sd"] for c in style["coefficients"]]
    assert [c["feature"] for c in style["coefficients"]] == ["tokens", "headers", "lists", "bold"]
    assert got_coef[0] == pytest.approx(coef[0], rel=0.01)
    assert np.allclose(got_coef, coef, rtol=0.01, atol=1e-4)
    assert style["coefficients"][0]["text"].startswith("+1 SD of relative length (tokens): +")
    raw = export(toml, capsys)  # the file's ranking: plain Bradley–Terry at threshold none
    assert "style_control" not in raw["settings"]
    want_raw = fastchat_code.compute_bt(pd.DataFrame(battles))
    for r in raw["rows"]:
        assert r["rating"] == pytest.approx(want_raw[r["contestant"]], abs=1.0), r["contestant"]
    assert [r["contestant"] for r in raw["rows"]] == list(want_raw.index)


def test_the_numpy_reference_equals_fastchat_code() -> None:
    """tests.importers.fastchat_reference (used where pandas is not wanted) against FastChat's own code."""
    battles = arena_battles(n=900, seed=3, length_effect=1.5)
    ratings, coef = fastchat_code.compute_style_control(pd.DataFrame(battles))
    mine, mine_coef = fastchat.compute_style_control(battles)
    assert all(mine[m] == pytest.approx(float(r), abs=1e-3) for m, r in ratings.items())
    assert np.allclose(mine_coef, coef, rtol=1e-4, atol=1e-7)
    bt = fastchat_code.compute_bt(pd.DataFrame(battles))
    assert all(fastchat.compute_bt(battles)[m] == pytest.approx(float(r), abs=1e-3) for m, r in bt.items())


def test_newton_fit_equals_the_lbfgs_reference_on_a_length_only_model() -> None:
    battles = arena_battles(n=800, seed=5, length_effect=2.0)
    models = sorted({b["model_a"] for b in battles} | {b["model_b"] for b in battles})
    code = {m: i for i, m in enumerate(models)}
    a = np.array([code[b["model_a"]] for b in battles])
    b = np.array([code[b["model_b"]] for b in battles])
    y = np.array([{"model_a": 1.0, "model_b": 0.0}.get(x["winner"], 0.5) for x in battles])
    x = fastchat.style_features(battles)
    params = style_bt.fit(a, b, y, x, len(models))
    ref_ratings, ref_coef = fastchat.compute_style_control(battles)
    mine = 400 * params[: len(models)]
    mine += ref_ratings[models[0]] - mine[0]
    assert np.allclose(mine, [ref_ratings[m] for m in models], atol=0.05)
    assert np.allclose(params[len(models) :], ref_coef, rtol=1e-3, atol=1e-5)


def simulated(n: int, seed: int, effect: float) -> tuple[list[dict[str, Any]], dict[str, float]]:
    """Battles where quality and length both matter: the better models write shorter answers, so a raw ranking
    rewards the verbose ones. `effect`: logits per standard deviation of relative length."""
    rng = random.Random(seed)
    names = [f"m{i}" for i in range(8)]
    quality = {m: 0.15 * i for i, m in enumerate(names)}
    mean_len = {m: 900 - 100 * i for i, m in enumerate(names)}
    rows, rel = [], []
    for k in range(n):
        a, b = rng.sample(names, 2)
        ta, tb = (max(20, int(rng.gauss(mean_len[m], 150))) for m in (a, b))
        rows.append((k, a, b, ta, tb))
        rel.append((ta - tb) / (ta + tb + 1))
    mu, sd = float(np.mean(rel)), float(np.std(rel))
    battles = []
    for (k, a, b, ta, tb), r in zip(rows, rel, strict=True):
        z = quality[a] - quality[b] + effect * (r - mu) / sd
        winner = "model_a" if rng.random() < 1 / (1 + math.exp(-z)) else "model_b"
        zero = {"h1": 0}
        metadata = {
            "sum_assistant_a_tokens": ta,
            "sum_assistant_b_tokens": tb,
            "header_count_a": zero,
            "header_count_b": zero,
            "list_count_a": zero,
            "list_count_b": zero,
            "bold_count_a": zero,
            "bold_count_b": zero,
        }
        battles.append(
            {"question_id": f"s{k}", "model_a": a, "model_b": b, "winner": winner, "conv_metadata": metadata}
        )
    return battles, quality


def test_simulated_length_bias_is_controlled_and_its_coefficient_covered(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    effect = 1.0  # logits per SD of relative length
    battles, quality = simulated(4000, seed=11, effect=effect)
    toml = imported_and_run(tmp_path, battles, 'style_control = ["length"]\nbootstrap = 40')
    controlled = export(toml, capsys)
    raw = export(toml, capsys, "--no-style-control")
    raw_doc = json.loads(json.dumps(raw))
    truth = [quality[m] for m in quality]

    def tau(doc: dict[str, Any]) -> float:
        rating = {r["contestant"]: r["rating"] for r in doc["rows"]}
        return float(kendalltau(truth, [rating[m] for m in quality]).statistic)

    assert "style_control" in controlled["settings"]
    assert "style_control" not in raw_doc["settings"]
    print(f"kendall tau: raw {tau(raw_doc):.2f}, controlled {tau(controlled):.2f}")
    assert tau(raw_doc) < 0.5
    assert tau(controlled) >= 0.85
    (coef,) = controlled["settings"]["style_control"]["coefficients"]
    lo, hi = coef["interval"]
    true_elo = effect * style_bt.ELO_PER_LOGIT
    print(f"length coefficient {coef['elo_per_sd']:+.1f} [{lo:+.1f}, {hi:+.1f}], truth {true_elo:+.1f}")
    assert lo <= true_elo <= hi


def test_diagnose_reports_each_style_coefficient(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    battles = arena_battles(n=400, length_effect=1.5)
    toml = imported_and_run(tmp_path, battles, 'style_control = ["length"]\nbootstrap = 20')
    capsys.readouterr()
    assert main(["diagnose", str(toml)]) == 0
    text = capsys.readouterr().out
    assert "Style control (length; counts from style.jsonl (conv_metadata counts))" in text
    (line,) = [x for x in text.splitlines() if x.startswith("+1 SD of relative length (tokens): ")]
    assert line.endswith(" Elo points") and "[" in line
    assert main(["diagnose", str(toml), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    (coef,) = report["style_control"]["coefficients"]
    assert coef["text"] == line and coef["interval"][0] < coef["elo_per_sd"] < coef["interval"][1]
    elo = export(
        toml, capsys, "--method", "elo"
    )  # style control is Bradley–Terry's: Elo says it is not applied
    assert "style_control" not in elo["settings"]
    assert "style_control_unused" in [w["kind"] for w in elo["warnings"]]


def test_style_file_typed_reading_equals_the_general_reading(tmp_path: Path) -> None:
    """`[data] style` JSON Lines are decoded typed (msgspec) into columns; the lookup equals the one built from the
    general reading row by row (the first row of a response kept, undeclared names left out), and a file the typed
    reading does not take (a negative count) is read the general way, which names the line."""
    from elotui.errors import UserError
    from elotui.rating.style_rank import StyleLookup, _read_style, _typed_rows

    rng = random.Random(4)
    prompts, contestants = [f"p{i}" for i in range(50)], ["a", "b", "c"]
    rows = [
        {
            "prompt": rng.choice([*prompts, "undeclared"]),
            "contestant": rng.choice([*contestants, "z"]),
            "tokens": rng.randint(0, 900),
            "headers": rng.choice([0, 1.5, 3]),
            "lists": rng.randint(0, 4),
            "bold": rng.randint(0, 2),
        }
        for _ in range(400)
    ]
    path = write_jsonl(tmp_path / "style.jsonl", rows)
    typed = _typed_rows(path)
    assert typed is not None
    fast = StyleLookup.from_columns(*typed, prompts, contestants, "s")
    general = StyleLookup.build(_read_style(path), prompts, contestants, "s")
    assert np.array_equal(fast.keys, general.keys) and np.array_equal(fast.counts, general.counts)
    assert 0 < len(fast.keys) < len(rows)  # repeats and undeclared names left out
    first = next(r for r in rows if (r["prompt"], r["contestant"]) == ("p3", "b"))
    got, missing = fast.of(np.array([3]), np.array([1]))
    assert missing == 0 and got[0].tolist() == [first[f] for f in style_bt.FEATURES]
    rows[7]["bold"] = -1
    path = write_jsonl(tmp_path / "style.jsonl", rows)
    assert _typed_rows(path) is None
    with pytest.raises(UserError) as err:
        _read_style(path)
    assert f"{path}:8: needs counts" in "\n".join(err.value.details)


def test_a_style_controlled_ranking_claims_no_drop_to_flip_of_the_raw_fit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """drop_to_flip refits Bradley–Terry without the style terms: a style-controlled board says it has none (the
    export's settings, the TUI's gap line), and diagnose's counts are the raw ranking's, which it says."""
    from elotui.rating.drop_to_flip import STYLE_NOT_COMPUTED
    from elotui.tui.widgets.gap_detail import gap_flips

    toml = imported_and_run(tmp_path, arena_battles(n=300, length_effect=1.5), "bootstrap = 0")
    raw = export(toml, capsys, "--method", "bt")
    styled = export(toml, capsys, "--style-control")
    assert any(r["drop_to_flip"] is not None for r in raw["rows"])
    assert all(r["drop_to_flip"] is None and r["fragile"] is None for r in styled["rows"])
    assert styled["settings"]["drop_to_flip"] == {"not_computed": STYLE_NOT_COMPUTED}
    assert main(["diagnose", str(toml), "--format", "json"]) == 0
    plain = json.loads(capsys.readouterr().out)["drop_to_flip"]
    assert main(["diagnose", str(toml), "--format", "json", "--style-control"]) == 0
    assert json.loads(capsys.readouterr().out)["drop_to_flip"] == plain
    assert main(["diagnose", str(toml), "--style-control"]) == 0
    text = capsys.readouterr().out
    assert "the raw ranking's orders: a style-controlled fit is not refitted per removal" in text
    # one judge (the voters): said as the TUI says it, with counts in words
    assert "one judge: no inter-judge agreement to measure" in text and "Fleiss' κ" not in text
    assert "300 planned verdicts: 300 valid, 0 invalid, 0 failed, 0 missing; 5 contestants, 1 judge, " in text
    from elotui.session import TournamentSession
    from elotui.store import Store
    from elotui.tournament.model import load_tournament

    t = load_tournament(toml)
    with Store.open_for(t) as store:
        session = TournamentSession(t, store)
        session.control_style(("length", "markdown"))
        flips = gap_flips(session.leaderboard(method="bt", drop_to_flip=True))
    assert len(flips) == 4 and {f.text() for f in flips.values()} == {STYLE_NOT_COMPUTED}


def test_style_control_with_elo_asked_for_is_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--style-control --method elo` asks for two rankings at once: exit 2 and a line, not a Bradley–Terry board
    printed under an Elo flag."""
    toml = imported_and_run(tmp_path, arena_battles(n=60), "bootstrap = 0")
    capsys.readouterr()
    assert main(["export", str(toml), "--style-control", "--method", "elo"]) == 2
    assert (
        "--style-control ranks with Bradley–Terry: it cannot rank with --method elo"
        in capsys.readouterr().err
    )
    assert main(["export", str(toml), "--style-control", "--method", "bt"]) == 0


def test_the_provenance_hashes_the_style_file_and_the_replayed_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A ranking to trust names every file it came from: the style counts (style control reads them) and the
    verdict log the replay judge answers from, each with its SHA-256."""
    import hashlib

    toml = imported_and_run(tmp_path, arena_battles(n=80), "bootstrap = 0")
    prov = export(toml, capsys, "--style-control")["provenance"]
    digest = {
        name: hashlib.sha256((toml.parent / name).read_bytes()).hexdigest()
        for name in ("style.jsonl", "verdicts.jsonl", "prompts.jsonl")
    }
    assert prov["data_files"] == {
        "prompts.jsonl": digest["prompts.jsonl"],
        "style.jsonl": digest["style.jsonl"],
    }
    (judge,) = prov["judges"].values()
    assert judge["path"] == "verdicts.jsonl" and judge["path_sha256"] == digest["verdicts.jsonl"]
