"""Small-sample honesty: what a leaderboard on few prompts may claim.

Measured by simulation with known truth (tests/benchmarks/bench_small_samples.py; three worlds, Bradley–Terry and
Elo, 200 prompt rounds, seeds 0-11 per cell): the 95 % intervals covered the true rating 72-91 % of the time at 3
to 10 prompts and 87-95 % at 20, and 95-99 % from 30 prompts on; of the gaps called certain to be in one band
(the gap's interval inside one band), 87.5 % (42 of 48) were right at 3 to 10 prompts, 93 % (53 of 57) at 20, 99 %
(82 of 83) at 30. So below `SMALL_SAMPLE_PROMPTS` prompts a leaderboard carries a `small_sample` warning that
says its intervals are likely too narrow, and no band is called certain (`LeaderboardRow.band_claim` False: the
band is shown as the point gap's, not as certain).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from elotui.rating.board import Leaderboard
from elotui.rating.games import Games

SMALL_SAMPLE_PROMPTS = 30  # below this many prompts the intervals under-cover (bench_small_samples)


def prompts_with_games(g: Games) -> int:
    """How many prompts the games were played on (1 where the games carry no prompt)."""
    if len(g) == 0:
        return 0
    if len(g.prompt) != len(g):
        return 1
    low, high = int(g.prompt.min()), int(g.prompt.max())
    if low < 0 or high > 4 * len(g) + 1024:  # codes far apart: sorted instead of marked
        return len(np.unique(g.prompt))
    seen = np.zeros(high + 1, dtype=np.bool_)  # the codes marked: one pass, no sort (10^6 games)
    seen[g.prompt] = True
    return int(np.count_nonzero(seen))


def small_sample_noted(board: Leaderboard, g: Games) -> Leaderboard:
    """`board` with, below SMALL_SAMPLE_PROMPTS prompts, the `small_sample` warning and no band called certain;
    the prompt count and the limit in its settings either way."""
    prompts = prompts_with_games(g)
    board.settings["small_sample"] = {"prompts": prompts, "below": SMALL_SAMPLE_PROMPTS}
    if prompts == 0 or prompts >= SMALL_SAMPLE_PROMPTS:
        return board
    board.warnings.append(
        {
            "kind": "small_sample",
            "contestants": [r.contestant for r in board.rows if r.rating is not None],
            "message": f"only {prompts} prompt{'s' if prompts != 1 else ''}: intervals likely too narrow (72-95 % "
            f"coverage in simulation below {SMALL_SAMPLE_PROMPTS}); no band called certain",
        }
    )
    rows = [dataclasses.replace(r, band_claim=False) for r in board.rows]
    return dataclasses.replace(board, rows=rows)
