"""`[comparison] plan = "adaptive"` through the real runner with simulated judges: it stops settled with a fraction
of the full plan's calls, ranks like the full plan, and a stopped run resumes to exactly the calls one
uninterrupted run buys (never repeating an answered one)."""

from __future__ import annotations

from pathlib import Path

import pytest

from elotui.cli import main
from elotui.plan.adaptive import TIED_BAND
from elotui.session import TournamentSession
from elotui.store import Store
from elotui.tournament.model import load_tournament

NAMES = [f"m{i:02d}" for i in range(10)]
PROMPTS = 20


def _write(folder: Path, extra: str = "") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    qualities = ", ".join(f'"{c}" = {1400 - 150 * i}' for i, c in enumerate(NAMES))
    prompts = "".join(
        f'[[prompts]]\nid = "p{p}"\ntext = "question {p}"\n[prompts.responses]\n'
        + "".join(f'"{c}" = "answer {c} {p}"\n' for c in NAMES)
        for p in range(PROMPTS)
    )
    judges = "".join(
        f'[[judges]]\nid = "j{k}"\nprovider = "simulated"\n[judges.simulation]\nnoise = {100 + 60 * k}\n'
        f"position_bias = {40 - 40 * k}\nseed = {k}\nqualities = {{ {qualities} }}\n"
        for k in range(2)
    )
    contestants = "".join(f'[[contestants]]\nid = "{c}"\n' for c in NAMES)
    path = folder / "t.toml"
    path.write_text(
        f'[tournament]\nname = "adaptive"\n[comparison]\nplan = "adaptive"\n{extra}\n[ranking]\nmethod = "bt"\n'
        f'threshold = "none"\nbootstrap = 50\n{contestants}{prompts}{judges}',
        encoding="utf-8",
    )
    return path


def _answered(path: Path, store: Path) -> set[tuple[str, ...]]:
    t = load_tournament(path)
    with Store.open_for(t, store) as s:
        return {(r.prompt, r.first, r.second, r.judge) for r in s.plan_verdicts() if r.status != "missing"}


def test_adaptive_stops_settled_with_a_fraction_of_the_calls(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ELOTUI_NO_SHARED_CACHE", "1")
    path = _write(tmp_path)
    store = tmp_path / "s.sqlite"
    assert main(["run", str(path), "--headless", "--no-delay", "--store", str(store)]) == 0
    err = capsys.readouterr().err
    assert "adaptive plan: settled:" in err and "· settled" in err
    bought = _answered(path, store)
    full = PROMPTS * 45 * 2 * 2
    assert 0 < len(bought) < 0.6 * full
    t = load_tournament(path)
    with Store.open_for(t, store) as s:
        board = TournamentSession(t, s).leaderboard()
    assert [r.contestant for r in board.rows] == NAMES  # 150 points apart: the true order


def test_a_stopped_adaptive_run_resumes_to_the_same_calls(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ELOTUI_NO_SHARED_CACHE", "1")
    whole = tmp_path / "whole"
    path = _write(whole)
    assert main(["run", str(path), "--headless", "--no-delay", "--store", str(whole / "s.sqlite")]) == 0
    want = _answered(path, whole / "s.sqlite")
    part = tmp_path / "part"
    limited = _write(part, "max_calls = 200")
    assert main(["run", str(limited), "--headless", "--no-delay", "--store", str(part / "s.sqlite")]) == 0
    assert "max_calls 200 reached" in capsys.readouterr().err
    first = _answered(limited, part / "s.sqlite")
    assert 0 < len(first) <= 200 and first < want
    _write(part)  # the same file without the limit: the run resumes from what the store answered
    assert (
        main(
            [
                "run",
                str(path.parent.parent / "part" / "t.toml"),
                "--headless",
                "--no-delay",
                "--store",
                str(part / "s.sqlite"),
            ]
        )
        == 0
    )
    assert _answered(path, part / "s.sqlite") == want


@pytest.mark.parametrize(("name", "recorded"), [("vicuna80", 8000), ("guanaco", 4480)])
def test_adaptive_replay_ranks_like_the_full_tournament_with_under_half_the_calls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, recorded: int
) -> None:
    """Adaptive "buys" recorded verdicts (the rest are never read) and stops settled with the full ranking (up to
    the order within a pair it finds certainly practically tied: settled without an order)."""
    from tests.samples.sample_paths import SAMPLES

    monkeypatch.setenv("ELOTUI_NO_SHARED_CACHE", "1")
    sample = SAMPLES / name
    for file in ("questions.jsonl", "answers.jsonl", "verdicts.jsonl.gz", "human_votes.jsonl.gz"):
        (tmp_path / file).symlink_to(sample / file)
    text = (
        (sample / "tournament.toml")
        .read_text(encoding="utf-8")
        .replace("both_orders = true\n", 'both_orders = true\nplan = "adaptive"\n', 1)
    )
    path = tmp_path / "t.toml"
    path.write_text(text, encoding="utf-8")
    adaptive_store, full_store = tmp_path / "a.sqlite", tmp_path / "f.sqlite"
    assert main(["run", str(path), "--headless", "--no-delay", "--store", str(adaptive_store)]) == 0
    assert (
        main(["run", str(sample / "tournament.toml"), "--headless", "--no-delay", "--store", str(full_store)])
        == 0
    )
    answered = _answered(path, adaptive_store)
    assert len(answered) <= 0.5 * recorded
    boards = []
    for tournament, store in ((path, adaptive_store), (sample / "tournament.toml", full_store)):
        t = load_tournament(tournament)
        with Store.open_for(t, store) as s:
            boards.append(TournamentSession(t, s).leaderboard().rows)
    adaptive, full = ([r.contestant for r in rows] for rows in boards)
    unclaimed = 0
    for k, row in enumerate(boards[0][:-1]):
        # a certainly tied pair may come out in either order, and so may one whose order the adaptive board does
        # not claim (order confidence below 0.95: an open gap, said so by the plan's status)
        low, high = row.gap_ci_low, row.gap_ci_high
        tied = low is not None and high is not None and -TIED_BAND < low and high < TIED_BAND
        claimed = row.order_confidence is not None and row.order_confidence >= 0.95
        if (tied or not claimed) and adaptive[k : k + 2] == full[k : k + 2][::-1]:
            adaptive[k : k + 2] = full[k : k + 2]
            unclaimed += not tied
    assert adaptive == full
    assert unclaimed <= 2  # most of the order is claimed, and right


def _screened(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    names = NAMES[:6]
    qualities = ", ".join(f'"{c}" = {1400 - 150 * i}' for i, c in enumerate(names))
    prompts = "".join(
        f'[[prompts]]\nid = "p{p}"\ntext = "q {p}"\n[prompts.responses]\n'
        + "".join(f'"{c}" = "a {c} {p}"\n' for c in names)
        for p in range(8)
    )
    judges = "".join(
        f'[[judges]]\nid = "{jid}"\nprovider = "simulated"\n[judges.simulation]\nnoise = {noise}\nposition_bias = {bias}\n'
        f"seed = {k}\nqualities = {{ {qualities} }}\n"
        for k, (jid, noise, bias) in enumerate([("cheap", 60, 0), ("p1", 120, 60), ("p2", 120, -60)])
    )
    path = folder / "t.toml"
    path.write_text(
        '[tournament]\nname = "screen"\n[comparison]\nscreen = "cheap"\n[ranking]\nthreshold = "none"\nbootstrap = 50\n'
        + "".join(f'[[contestants]]\nid = "{c}"\n' for c in names)
        + prompts
        + judges,
        encoding="utf-8",
    )
    return path


def test_screening_asks_the_panel_only_where_the_cheap_judge_needs_checking(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ELOTUI_NO_SHARED_CACHE", "1")
    path = _screened(tmp_path)
    store = tmp_path / "s.sqlite"
    assert main(["run", str(path), "--headless", "--no-delay", "--store", str(store)]) == 0
    err = capsys.readouterr().err
    assert "plan: screening by cheap:" in err and "panel calls saved" in err
    t = load_tournament(path)
    with Store.open_for(t, store) as s:
        rows = [r for r in s.plan_verdicts() if r.status != "missing"]
    cheap = {}
    for r in rows:
        if r.judge == "cheap":
            a, b = sorted((r.first, r.second))
            won = r.first if r.winner == "first" else r.second if r.winner == "second" else "tie"
            cheap.setdefault((r.prompt, a, b), []).append(won)
    assert len(cheap) == 8 * 15 and all(
        len(v) == 2 for v in cheap.values()
    )  # the screening judge answered all
    panel = {(r.prompt, *sorted((r.first, r.second))) for r in rows if r.judge != "cheap"}
    for unit, winners in cheap.items():
        if winners[0] != winners[1] or winners[0] == "tie":
            assert unit in panel  # every unit the cheap judge did not answer consistently was checked
    assert 0 < len(panel) < 8 * 15  # and some consistent ones were not
    assert main(["validate", str(path)]) == 0


def test_screening_needs_a_declared_judge_and_plan_all(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _screened(tmp_path)
    path.write_text(
        path.read_text(encoding="utf-8").replace('screen = "cheap"', 'screen = "nobody"\nplan = "adaptive"'),
        encoding="utf-8",
    )
    assert main(["validate", str(path)]) == 2
    assert "comparison.screen: judge 'nobody' is not declared" in capsys.readouterr().err
