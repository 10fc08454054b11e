"""The ranking half of `elotui export --format json --style-control`, timed inside one process after the tournament
is loaded: the session, `[data] style` read into the style lookup (`control_style`), and the leaderboard with its
drop_to_flip counts (`leaderboard(..., once=True, drop_to_flip=True)`), as `elotui export` runs them.

Run as `python -m tests.benchmarks.bench_ranking_half T.toml [--repeat 3] [--profile]` from the repository root, with
the tournament's store where `elotui import` put it (ELOTUI_HOME as at the import). The first repeat is the one an
export pays (fresh memory, nothing cached); later ones reuse the process's memory. `--profile`: one repeat under
cProfile, the 40 costliest calls by cumulative time.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time
from pathlib import Path
from typing import Any


def ranking_half(tournament: Any, store: Any) -> dict[str, float]:
    """Seconds of each part of the ranking half, run once."""
    from elotui.session import TournamentSession

    times = {}
    start = time.perf_counter()
    session = TournamentSession(tournament, store)
    session.control_style(("length", "markdown"))
    times["session and style lookup"] = time.perf_counter() - start
    start = time.perf_counter()
    session.leaderboard(method="bt", once=True, drop_to_flip=True)
    times["leaderboard and drop_to_flip"] = time.perf_counter() - start
    times["ranking half"] = sum(times.values())
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tournament", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    from elotui.commands.common import store_to_read
    from elotui.tournament.model import load_tournament

    start = time.perf_counter()
    tournament = load_tournament(args.tournament)
    print(f"load_tournament: {time.perf_counter() - start:.2f} s (not counted)")
    store = store_to_read(tournament, None)
    try:
        if args.profile:
            profile = cProfile.Profile()
            profile.runcall(ranking_half, tournament, store)
            pstats.Stats(profile).sort_stats("cumulative").print_stats(40)
            return
        for k in range(max(args.repeat, 1)):
            times = ranking_half(tournament, store)
            print(
                f"repeat {k + 1}: " + ", ".join(f"{name} {seconds:.3f} s" for name, seconds in times.items())
            )
    finally:
        store.close()


if __name__ == "__main__":
    main()
