"""Scopes (`export --category`, `--judge`) rank exactly what a tournament restricted to that scope ranks, and the
baseline design (`pairs = { baseline = ... }`) judges each contestant against the baseline only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from elotui.cli import main
from elotui.plan.presentations import build_plan
from elotui.tournament.model import load_tournament

CONTESTANTS = ["a", "b", "c", "d"]
QUALITY = {"a": 1100, "b": 1050, "c": 1000, "d": 900}


def _write(folder: Path, *, prompts: list[int], judges: list[str], extra: str = "") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    rows = [
        {"id": f"q{i}", "text": f"Question {i}?", "category": "math" if i % 2 else "prose"} for i in prompts
    ]
    (folder / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    answers = [
        {"prompt_id": f"q{i}", "model": c, "output": f"{c} on {i}"} for i in prompts for c in CONTESTANTS
    ]
    (folder / "answers.jsonl").write_text("".join(json.dumps(r) + "\n" for r in answers), encoding="utf-8")
    qualities = ", ".join(f'"{c}" = {q}' for c, q in QUALITY.items())
    judge_tables = "".join(
        f'[[judges]]\nid = "{j}"\nprovider = "simulated"\n[judges.simulation]\nnoise = {80 + 40 * n}\n'
        f"position_bias = {30 * n}\nseed = {n}\nqualities = {{ {qualities} }}\n\n"
        for n, j in enumerate(["j1", "j2"])
        if j in judges
    )
    contestants = "".join(f'[[contestants]]\nid = "{c}"\n\n' for c in CONTESTANTS)
    path = folder / "tournament.toml"
    path.write_text(
        '[tournament]\nname = "scopes"\n\n[data]\nprompts = "questions.jsonl"\nresponses = "answers.jsonl"\n\n'
        f"[ranking]\nbootstrap = 40\npermutations = 20\n{extra}\n{contestants}{judge_tables}",
        encoding="utf-8",
    )
    return path


def _export(path: Path, *args: str, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    capsys.readouterr()
    assert main(["export", str(path), "--format", "json", *args]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def _ratings(doc: dict[str, object]) -> dict[str, float]:
    return {r["contestant"]: r["rating"] for r in doc["rows"]}  # type: ignore[index, union-attr]


@pytest.mark.parametrize("method", ["elo", "bt"])
def test_category_and_judge_scopes_equal_restricted_tournaments(
    tmp_path: Path, method: str, capsys: pytest.CaptureFixture[str]
) -> None:
    full = _write(tmp_path / "full", prompts=list(range(8)), judges=["j1", "j2"])
    assert main(["run", str(full), "--headless", "--no-delay"]) == 0
    math = _write(tmp_path / "math", prompts=[1, 3, 5, 7], judges=["j1", "j2"])
    only_j2 = _write(tmp_path / "j2", prompts=list(range(8)), judges=["j2"])
    for restricted in (math, only_j2):
        assert main(["run", str(restricted), "--headless", "--no-delay"]) == 0
    for scope, restricted in ((["--category", "math"], math), (["--judge", "j2"], only_j2)):
        got = _ratings(_export(full, "--method", method, *scope, capsys=capsys))
        want = _ratings(_export(restricted, "--method", method, capsys=capsys))
        assert got.keys() == want.keys()
        for cid in got:
            assert got[cid] == pytest.approx(want[cid], abs=1e-9), (scope, cid)


def test_unknown_category_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    full = _write(tmp_path, prompts=[0, 1], judges=["j1"])
    assert main(["run", str(full), "--headless", "--no-delay"]) == 0
    assert main(["export", str(full), "--category", "poetry"]) == 2
    assert "categories: math, prose" in capsys.readouterr().err


def test_baseline_design_judges_each_contestant_against_the_baseline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(
        tmp_path,
        prompts=list(range(6)),
        judges=["j1", "j2"],
        extra='[comparison]\npairs = { baseline = "c" }\n',
    )
    t = load_tournament(path)
    plan = build_plan(t)
    pairs = {frozenset((c.first, c.second)) for c in plan.comparisons}
    assert pairs == {frozenset(("c", x)) for x in ("a", "b", "d")}
    assert plan.total == 6 * 3 * 2 * 2  # prompts × pairs × orders × judges
    assert main(["validate", str(path)]) == 0
    assert f"{plan.total:,} planned judge calls" in capsys.readouterr().out
    assert main(["run", str(path), "--headless", "--no-delay"]) == 0
    doc = _export(path, "--method", "bt", capsys=capsys)
    assert doc["settings"]["design"] == {"pairs": "baseline", "baseline": "c"}  # type: ignore[index]
    assert any(w["kind"] == "baseline_design" for w in doc["warnings"])  # type: ignore[union-attr]
    rows = {r["contestant"]: r for r in doc["rows"]}  # type: ignore[union-attr]
    assert rows["a"]["games"] == rows["b"]["games"] == rows["d"]["games"] > 0
    assert rows["c"]["games"] == 3 * rows["a"]["games"]  # every game has c in it
    assert list(rows)[-1] == "d"  # 100 points below the baseline, the others above it


def test_baseline_must_be_a_contestant(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, prompts=[0], judges=["j1"], extra='[comparison]\npairs = { baseline = "zz" }\n')
    assert main(["validate", str(path)]) == 2
    assert "comparison.pairs.baseline: contestant 'zz' is not declared" in capsys.readouterr().err


def test_json_export_carries_provenance_without_keys(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _write(tmp_path, prompts=[0, 1], judges=["j1"])
    assert main(["run", str(path), "--headless", "--no-delay"]) == 0
    doc = _export(path, capsys=capsys)
    prov = doc["provenance"]
    import hashlib

    from elotui import __version__

    assert prov["elotui_version"] == __version__  # type: ignore[index]
    assert prov["tournament_file"]["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()  # type: ignore[index]
    assert (
        prov["data_files"]["questions.jsonl"]
        == hashlib.sha256(  # type: ignore[index]
            (tmp_path / "questions.jsonl").read_bytes()
        ).hexdigest()
    )
    assert prov["judges"]["j1"]["provider"] == "simulated"  # type: ignore[index]
    assert [r["state"] for r in prov["store"]["runs"]] == ["finished"]  # type: ignore[index]
    assert prov["exported_at"].endswith("+00:00")  # type: ignore[index, union-attr]


def test_diagnose_ranks_each_category_and_compares_it_with_the_overall_ranking(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from scipy.stats import kendalltau

    full = _write(tmp_path, prompts=list(range(10)), judges=["j1", "j2"])
    assert main(["run", str(full), "--headless", "--no-delay"]) == 0
    capsys.readouterr()
    assert main(["diagnose", str(full), "--format", "json"]) == 0
    pc = json.loads(capsys.readouterr().out)["per_category"]
    overall = _ratings(_export(full, capsys=capsys))
    assert pc["overall"] == sorted(overall, key=lambda c: -overall[c])
    assert set(pc["by_category"]) == {"math", "prose"}
    for category, got in pc["by_category"].items():
        # the same ratings as the category's own leaderboard (point fit: bootstrap does not move it)
        want = _ratings(_export(full, "--category", category, capsys=capsys))
        assert got["ratings"] == pytest.approx(want, abs=1e-9)
        assert got["prompts"] == 5
        both = sorted(want)
        tau = kendalltau([want[c] for c in both], [overall[c] for c in both]).statistic
        assert got["kendall_tau"] == pytest.approx(tau)
    assert main(["diagnose", str(full)]) == 0
    assert "Rankings by category" in capsys.readouterr().out
