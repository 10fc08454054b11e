"""TUI benchmark (a script, not a test): `python tests/benchmarks/bench_tui.py [T STORE]` (with T and STORE: part 1
on that tournament's existing store, e.g. bench_fastchat's 1M world).

1. Threshold / method switching on a store with ~100,000 cached verdicts: time from the key press until the
   leaderboard table shows the new view, against the plain reference (ranking that view from scratch, as a TUI
   without the cache would have to before showing it). With T and STORE, also in a real terminal
   (`terminal_keys`: a pseudo-terminal read by a terminal emulator): key -> the screen changed.
2. A live stream of 200 verdicts per second for 3 seconds: the event loop's worst lateness (how long a 20 ms timer
   fired late), and how many rankings the stream cost.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from elotui.rating.leaderboard import RatingOptions

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from elotui.judges.base import Presentation
from elotui.rating.leaderboard import rank
from elotui.run.events import VerdictRecorded
from elotui.store import CallRecord, PlanRow, Store
from elotui.tournament.model import load_tournament
from elotui.tui.launch import make_app
from tests.benchmarks import terminal_keys

CONTESTANTS = [f"model-{i}" for i in range(10)]
JUDGES = [f"judge-{i}" for i in range(5)]
PROMPTS = [f"q{i}" for i in range(223)]  # 223 x 90 ordered pairs x 5 judges = 100,350 verdicts


def write_tournament(folder: Path) -> Path:
    lines = ["[tournament]", 'name = "bench"', ""]
    for c in CONTESTANTS:
        lines += ["[[contestants]]", f'id = "{c}"', ""]
    for p in PROMPTS:
        lines += ["[[prompts]]", f'id = "{p}"', 'text = "q"', "[prompts.responses]"]
        lines += [f'"{c}" = "answer"' for c in CONTESTANTS] + [""]
    for j in JUDGES:
        lines += [
            "[[judges]]",
            f'id = "{j}"',
            'provider = "simulated"',
            "[judges.simulation]",
            "qualities = { " + ", ".join(f'"{c}" = {i * 20}' for i, c in enumerate(CONTESTANTS)) + " }",
            "",
        ]
    path = folder / "bench.toml"
    path.write_text("\n".join(lines))
    return path


def fill(
    store: Store, prompts: list[str] = PROMPTS, reasoning: Callable[[random.Random], str] | None = None
) -> int:
    """Every ordered pair on every prompt judged by every judge (simulated outcomes, quality 20 points apart),
    stored as answered calls under the plan; `reasoning` writes each verdict's reasoning (default none)."""
    rng = random.Random(0)
    plan, seq = [], 0
    quality = {c: i * 20 for i, c in enumerate(CONTESTANTS)}
    for p in prompts:
        for a in CONTESTANTS:
            for b in CONTESTANTS:
                if a == b:
                    continue
                for j in JUDGES:
                    key = f"k{seq}"
                    pa = 1 / (1 + 10 ** (-(quality[a] - quality[b] + 30) / 400))
                    u = rng.random()
                    winner = "first" if u < pa - 0.05 else "tie" if u < pa + 0.05 else "second"
                    plan.append(PlanRow(seq, p, a, b, j, "clean", 0, key))
                    store.record_call(
                        CallRecord(
                            key=key,
                            kind="verdict",
                            status="ok",
                            judge=j,
                            prompt=p,
                            first=a,
                            second=b,
                            condition="clean",
                            sample=0,
                            winner=winner,
                            reasoning=reasoning(rng) if reasoning is not None else None,
                        )
                    )
                    seq += 1
    store.set_plan(plan)
    return seq


async def switching(tournament, store) -> None:  # type: ignore[no-untyped-def]
    launched = time.perf_counter()
    app = make_app(tournament, store, start_run=False)
    async with app.run_test(size=(140, 45)) as pilot:
        while app.board is None:  # the first leaderboard on the screen, from the store
            await asyncio.sleep(0.001)
        await pilot.pause()
        print(f"app created -> first leaderboard painted: {time.perf_counter() - launched:.2f} s")
        t0 = time.perf_counter()
        while app.board_version != app.ranking.version or app.workers._workers:
            await app.workers.wait_for_complete()
            await pilot.pause()
        print(f"start-up incl. ranking + precomputing 10 views: {time.perf_counter() - t0:.2f} s")
        cached, reference = [], []
        table = app.ranking.snapshot()
        s = tournament.spec.ranking
        painted = []
        for key in ["1", "2", "3", "5", "m", "1", "4", "m", "2", "5"]:
            start = time.perf_counter()
            if key == "m":
                app.action_toggle_method()  # what the key binding calls
            else:
                app.action_threshold(int(key))
            while app.board_key != app.view_key:  # (never waits when the view was precomputed)
                await asyncio.sleep(0.001)
            cached.append(time.perf_counter() - start)
            await pilot.pause()  # until the app is idle (Pilot.pause: no CPU used over 20 ms)
            painted.append(time.perf_counter() - start)
            threshold, method = app.view_key[:2]
            start = time.perf_counter()
            rank(
                table,
                threshold=threshold,
                method=method,
                options=RatingOptions(
                    k_factor=s.k_factor,
                    initial_rating=s.initial_rating,
                    permutations=s.permutations,
                    bootstrap=s.bootstrap,
                    seed=s.seed,
                ),
            )
            reference.append(time.perf_counter() - start)
        print(
            f"key -> new leaderboard in the table ({len(table)} verdicts): median "
            f"{1000 * statistics.median(cached):.1f} ms, max {1000 * max(cached):.1f} ms; "
            f"-> app idle: median {1000 * statistics.median(painted):.1f} ms, max {1000 * max(painted):.1f} ms"
        )
        print(
            f"reference (rank the view from scratch): median {1000 * statistics.median(reference):.1f} ms, "
            f"max {1000 * max(reference):.1f} ms"
        )
        print(
            f"ratio reference / cached (median): {statistics.median(reference) / statistics.median(cached):.0f}x"
        )


async def streaming(tournament, store) -> None:  # type: ignore[no-untyped-def]
    from elotui.tui.messages import LeaderboardComputed

    seen: list[object] = []
    app = make_app(tournament, store, start_run=False)
    async with app.run_test(size=(140, 45), message_hook=seen.append) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        seen.clear()
        rng = random.Random(1)
        lateness: list[float] = []
        rankings_before = app.ranking.version
        end = time.perf_counter() + 3.0
        i = 0
        while time.perf_counter() < end:
            for _ in range(4):  # 4 verdicts every 20 ms = 200 per second
                a, b = rng.sample(CONTESTANTS, 2)
                app.on_run_event(
                    VerdictRecorded(
                        key=f"s{i}",
                        judge=rng.choice(JUDGES),
                        presentation=Presentation(rng.choice(PROMPTS), a, b, "clean", 1),
                        status="ok",
                        winner=rng.choice(["first", "second"]),
                        reasoning=None,
                    )
                )
                i += 1
            t = time.perf_counter()
            await asyncio.sleep(0.02)
            lateness.append(time.perf_counter() - t - 0.02)
        print(
            f"streamed {i} verdicts in 3 s: event-loop lateness median {1000 * statistics.median(lateness):.1f} ms, "
            f"p99 {1000 * sorted(lateness)[int(0.99 * len(lateness))]:.1f} ms, "
            f"max {1000 * max(lateness):.1f} ms; table appends {app.ranking.version - rankings_before}, "
            f"re-rankings {sum(isinstance(m, LeaderboardComputed) for m in seen)}"
        )


async def first_board(tournament, store, mode: str) -> None:  # type: ignore[no-untyped-def]
    """App created -> first leaderboard painted, for `elotui run T` (a run starts: on a fully cached store it
    plans nothing and sends nothing), the view of a store (no run) and `elotui watch T`; for the run, also until
    it finished."""
    launched = time.perf_counter()
    app = make_app(tournament, store, start_run=mode == "run", watch=mode == "watch")
    async with app.run_test(size=(80, 24)) as pilot:
        while app.board is None:
            await asyncio.sleep(0.001)
        shown = time.perf_counter() - launched
        await pilot.pause()
        painted = time.perf_counter() - launched
        line = f"{mode}: app created -> first leaderboard in the table {shown:.2f} s, painted (app idle) {painted:.2f} s"
        if mode == "run":
            while app._run_worker is None or not app._run_worker.is_finished:
                await asyncio.sleep(0.01)
            line += f"; run finished {time.perf_counter() - launched:.2f} s"
        print(line)


def main() -> None:
    if (
        len(sys.argv) == 3
    ):  # python tests/benchmarks/bench_tui.py T STORE: an existing store (e.g. 1M verdicts)
        tournament = load_tournament(sys.argv[1])
        for mode in ("run", "view", "watch"):
            with Store(sys.argv[2]) as store:
                asyncio.run(first_board(tournament, store, mode))
        with Store(sys.argv[2]) as store:
            asyncio.run(switching(tournament, store))
        terminal_keys.report(sys.argv[1], sys.argv[2])
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        tournament = load_tournament(write_tournament(folder))
        store = Store(folder / "bench.sqlite")
        t0 = time.perf_counter()
        n = fill(store)
        print(f"filled the store with {n} verdicts in {time.perf_counter() - t0:.1f} s")
        asyncio.run(switching(tournament, store))
        asyncio.run(streaming(tournament, store))
        store.close()


if __name__ == "__main__":
    main()
