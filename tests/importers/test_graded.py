"""Graded verdicts from arena-hard judgments: with `[ranking] strong_weight = 3` (what `elotui import arena-hard`
writes), elotui's Bradley–Terry equals arena-hard-auto's show_result computation (a strong battle repeated
WEIGHT = 3 times, ties half, an unpenalised logistic fit, the baseline at 1000) within 1 point; `strong_weight = 1`
equals the same computation without the weight."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy.optimize import minimize

from elotui.cli import main
from tests.importers.fixtures import write_jsonl

BASELINE = "gpt-4-0314"
MODELS = {"claude-3-opus": 0.5, "llama-3-70b": 0.1, "mistral-large": -0.3, "gemma-7b": -0.9}


def judgments(tmp_path: Path, seed: int = 9) -> list[Path]:
    rng = random.Random(seed)
    folder = tmp_path / "model_judgment" / "gpt-4-1106-preview"
    folder.mkdir(parents=True)
    files = []
    for model, quality in MODELS.items():
        rows = []
        for q in range(80):
            games = []
            for model_is_a in (False, True):
                z = quality + rng.gauss(0, 1)  # the model's margin over the baseline
                z = z if model_is_a else -z  # from A's side
                score = (
                    "A>>B"
                    if z > 1.2
                    else "A>B"
                    if z > 0.3
                    else "A=B"
                    if z > -0.3
                    else "B>A"
                    if z > -1.2
                    else "B>>A"
                )
                games.append({"user_prompt": "...", "judgment": f"[[{score}]]", "score": score})
            rows.append(
                {"question_id": f"q{q}", "model": model, "judge": "gpt-4-1106-preview", "games": games}
            )
        files.append(write_jsonl(folder / f"{model}.jsonl", rows))
    return files


def arena_hard_ratings(files: list[Path], weight: int) -> dict[str, float]:
    """arena-hard-auto's show_result: each game a battle baseline vs model (game 2 with the winner flipped), a
    strong one repeated `weight` times, then Bradley–Terry by maximum likelihood (ties half), 400 log10 scale,
    the baseline at 1000."""
    battles: list[tuple[str, str, float]] = []  # (model_a, model_b, score of model_a)
    for path in files:
        for line in path.read_text().splitlines():
            row = json.loads(line)
            for k, game in enumerate(row["games"]):
                s = game["score"]
                base_wins = {"A>>B": 1.0, "A>B": 1.0, "A=B": 0.5, "B>A": 0.0, "B>>A": 0.0}[s]
                if k == 1:
                    base_wins = 1.0 - base_wins  # in game 2, A is the model
                times = weight if ">>" in s else 1
                battles += [(BASELINE, row["model"], base_wins)] * times
    names = [BASELINE, *MODELS]
    code = {m: i for i, m in enumerate(names)}
    a = np.array([code[x[0]] for x in battles])
    b = np.array([code[x[1]] for x in battles])
    y = np.array([x[2] for x in battles])
    alpha = math.log(10)

    def nll(r: np.ndarray) -> float:
        z = alpha * (r[a] - r[b])
        return float(np.sum(np.logaddexp(0, z) - y * z))

    r = minimize(nll, np.zeros(len(names)), method="BFGS", options={"gtol": 1e-10})["x"]
    elo = 400 * r
    return {m: float(elo[code[m]] - elo[0] + 1000) for m in names}


def exported(toml: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["export", str(toml), "--format", "json"]) == 0
    return {r["contestant"]: r["rating"] for r in json.loads(capsys.readouterr().out)["rows"]}


def test_strong_weight_three_equals_arena_hard_and_one_the_ungraded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = judgments(tmp_path)
    out = tmp_path / "t"
    assert main(["import", "arena-hard", *map(str, files), "-o", str(out), "--baseline", BASELINE]) == 0
    toml = out / "tournament.toml"
    assert "strong_weight = 3" in toml.read_text()
    assert main(["run", str(toml), "--headless"]) == 0
    graded = exported(toml, capsys)
    want = arena_hard_ratings(files, weight=3)
    assert graded[BASELINE] == 1000.0
    for model, rating in want.items():
        assert graded[model] == pytest.approx(rating, abs=1.0), model
    toml.write_text(toml.read_text().replace("strong_weight = 3", "strong_weight = 1"), encoding="utf-8")
    plain = exported(toml, capsys)
    ungraded = arena_hard_ratings(files, weight=1)
    for model, rating in ungraded.items():
        assert plain[model] == pytest.approx(rating, abs=1.0), model
    print(
        {
            m: (round(graded[m], 2), round(want[m], 2), round(plain[m], 2), round(ungraded[m], 2))
            for m in MODELS
        }
    )
    assert max(abs(graded[m] - plain[m]) for m in MODELS) > 5  # the weight changes the ratings


def test_an_arena_hard_judge_folder_imports_as_its_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`elotui import arena-hard model_judgment/JUDGE -o DIR`: the folder's files, in name order, as if listed."""
    files = judgments(tmp_path)
    listed, folder = tmp_path / "listed", tmp_path / "folder"
    names = sorted(files)
    assert main(["import", "arena-hard", *map(str, names), "-o", str(listed), "--baseline", BASELINE]) == 0
    assert (
        main(["import", "arena-hard", str(files[0].parent), "-o", str(folder), "--baseline", BASELINE]) == 0
    )
    for name in ("verdicts.jsonl", "prompts.jsonl", "tournament.toml"):
        assert (folder / name).read_bytes() == (listed / name).read_bytes(), name
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["import", "arena-hard", str(empty), "-o", str(tmp_path / "o"), "--baseline", BASELINE]) == 2
    assert f"{empty}: a folder without .jsonl or .json files" in capsys.readouterr().err


def test_arena_hard_v2_records_import_as_the_v01_ones(tmp_path: Path) -> None:
    """arena-hard-auto v2 names the question `uid`, and its show_result reads a grade written the other way round
    (`B<A` as `A>B`, `A<<B` as `B>>A`): such files give the same verdicts, strengths and tournament."""
    files = judgments(tmp_path / "v01")
    reverse = {"A>>B": "B<<A", "A>B": "B<A", "A=B": "B=A", "B>A": "A<B", "B>>A": "A<<B"}
    v2 = tmp_path / "v2" / "model_judgment" / "gpt-4-1106-preview"
    v2.mkdir(parents=True)
    for f in files:
        rows = [json.loads(line) for line in f.read_text(encoding="utf-8").splitlines()]
        for row in rows:
            row["uid"] = row.pop("question_id")
            for game in row["games"]:
                game["score"] = reverse.get(game["score"], game["score"])
        (v2 / f.name).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    outs = []
    for folder, name in ((files[0].parent, "a"), (v2, "b")):
        outs.append(tmp_path / name)
        assert main(["import", "arena-hard", str(folder), "-o", str(outs[-1]), "--baseline", BASELINE]) == 0
    for name in ("verdicts.jsonl", "prompts.jsonl", "tournament.toml"):
        assert (outs[0] / name).read_bytes() == (outs[1] / name).read_bytes(), name
    assert '"strength": 2' in (outs[1] / "verdicts.jsonl").read_text(encoding="utf-8")


def test_a_baseline_that_is_one_of_the_models_is_questioned(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = judgments(tmp_path)
    model = files[0].stem  # a judged model named as the baseline by mistake
    assert (
        main(["import", "arena-hard", str(files[0].parent), "-o", str(tmp_path / "o"), "--baseline", model])
        == 2
    )
    err = capsys.readouterr().err
    assert f"`model` is the baseline ('{model}'): a record judges a model against the baseline" in err
    assert "(is --baseline the baseline these files were judged against?)" in err
