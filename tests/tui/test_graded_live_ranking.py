"""The live leaderboard of a graded run counts the strong verdicts as the export does while the run goes on: the
TUI, started on an empty store, ranks the graded verdicts as they are stored with `[ranking] strong_weight = 3`
(paused halfway, its board equals the leaderboard of the store's verdicts so far)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from elotui.session import TournamentSession
from elotui.store import Store
from elotui.tournament.model import load_tournament
from elotui.tui.launch import make_app
from tests.tui.conftest import SIZE

QUALITIES = {"a": 1400, "b": 1250, "c": 1100, "d": 1000}


def write(tmp_path: Path, strong_weight: int) -> Path:
    contestants = "".join(f'[[contestants]]\nid = "{c}"\n' for c in QUALITIES)
    responses = ", ".join(f'{c} = "answer of {c}"' for c in QUALITIES)
    prompts = "".join(
        f'[[prompts]]\nid = "p{i}"\ntext = "Q{i}?"\nresponses = {{ {responses} }}\n' for i in range(4)
    )
    qualities = ", ".join(f"{c} = {q}" for c, q in QUALITIES.items())
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "t.toml"
    path.write_text(
        f'[tournament]\nname = "graded tui"\n{contestants}{prompts}'
        f'[[judges]]\nid = "sim"\nprovider = "simulated"\nsimulation = {{ qualities = {{ {qualities} }}, noise = 120 }}\n'
        "delay_ms = 15\nmax_concurrency = 1\n"
        '[judge_prompt]\nscale = "graded"\n'
        f'[ranking]\nmethod = "bt"\nthreshold = "none"\nbootstrap = 0\nstrong_weight = {strong_weight}\n',
        encoding="utf-8",
    )
    return path


async def live_and_exported(
    tmp_path: Path, strong_weight: int
) -> tuple[dict[str, float], dict[str, float], dict[str, float]]:
    """(the live board's ratings, the leaderboard of the stored verdicts, the same without the weight), with the
    run paused partway."""
    tournament = load_tournament(write(tmp_path, strong_weight))
    store = Store(tmp_path / f"store-{strong_weight}.sqlite")
    app = make_app(tournament, store)
    async with app.run_test(size=SIZE) as pilot:
        loop = asyncio.get_running_loop()
        end = loop.time() + 30
        while len(app.ranking) < 20:  # a part of the 48 verdicts
            assert loop.time() < end, "no verdicts came"
            await asyncio.sleep(0.01)
        await pilot.press("p")
        while app.runner is None or app.runner.in_flight:
            assert loop.time() < end, "the call in flight did not end"
            await asyncio.sleep(0.01)
        app._drain()
        app._show_current()
        while app.board_version != app.ranking.version:  # (the run's worker waits paused: no settle)
            assert loop.time() < end, "the board was not ranked"
            await asyncio.sleep(0.01)
        assert app.monitor.result is None  # still running (paused)
        live = app.board.ratings() if app.board is not None else {}
        session = TournamentSession(tournament, store)
        exported = session.leaderboard().ratings()
        session.options = session.options.replace(strong_weight=1)
        unweighted = session.leaderboard().ratings()
        stored = len([c for c in store.calls() if c.kind == "verdict"])
        assert stored == len(app.ranking) < 48
        await pilot.press("p")
        await pilot.press("q")
    assert len([c for c in store.calls() if c.strength == 2]) > 0
    store.close()
    return live, exported, unweighted


async def test_the_live_board_counts_strong_verdicts_as_the_export_does(tmp_path: Path) -> None:
    live, exported, unweighted = await live_and_exported(tmp_path, 3)
    assert set(live) == set(QUALITIES)
    for c in QUALITIES:
        assert abs(live[c] - exported[c]) < 1e-6, (c, live, exported)
    assert max(abs(exported[c] - unweighted[c]) for c in QUALITIES) > 1  # the weight changes these ratings
