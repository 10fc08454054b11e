"""Graded verdicts: `[ranking] strong_weight` counts a strong verdict (the verdict log's `"strength": 2`, as
`A>>B` in arena-hard's judgments) as that many games at threshold `none`, for Bradley–Terry and Elo — arena-hard's
own computation repeats such a battle `WEIGHT = 3` times. Thresholds count it as one vote. `strong_weight = 1`
(the default) is the ungraded ranking.

The strengths are read from the replay judges' verdict logs: per (prompt, shown first, shown second, judge), the
presentations whose verdict is strong (one sample each; a presentation with several samples takes its first
line's strength).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from elotui.rating.games import Games


@dataclass(frozen=True, eq=False)
class StrongVerdicts:
    """Keys ((prompt * C + first) * C + second) * J + judge of the strong verdicts, sorted."""

    keys: NDArray[np.int64]
    n_contestants: int
    n_judges: int

    def mask(self, g: Games) -> NDArray[np.bool_]:
        c, j = self.n_contestants, self.n_judges
        want = ((g.prompt.astype(np.int64) * c + g.a) * c + g.b) * j + g.judge
        return np.isin(want, self.keys)


def strong_verdicts(tournament: Any) -> StrongVerdicts:
    """The strong verdicts the tournament's replay judges' logs record (UserError for a log that cannot be read)."""
    from elotui.tournament.user_files import open_regular

    prompts = {p: i for i, p in enumerate(tournament.prompt_ids)}
    contestants = {c: i for i, c in enumerate(tournament.contestant_ids)}
    judges = tournament.spec.judges
    c, nj = len(contestants), len(judges)
    keys: set[int] = set()
    for code, judge in enumerate(judges):
        if judge.provider != "replay" or judge.path is None:
            continue
        with open_regular(tournament.resolve(judge.path)) as fh:
            for raw in fh:
                if b'"strength"' not in raw:
                    continue
                row = json.loads(raw)
                if row.get("strength") != 2 or row.get("judge") != judge.replay_name:
                    continue
                p, a, b = (
                    prompts.get(row.get("prompt")),
                    contestants.get(row.get("first")),
                    contestants.get(row.get("second")),
                )
                if p is not None and a is not None and b is not None:
                    keys.add(((p * c + a) * c + b) * nj + code)
    return StrongVerdicts(np.array(sorted(keys), dtype=np.int64), c, nj)


def weighted(g: Games, strong: StrongVerdicts, weight: int) -> Games:
    """The games with each strong verdict's game repeated `weight` times (threshold none: a game per verdict)."""
    if weight <= 1 or len(g.judge) != len(g.a) or not len(strong.keys):
        return g
    times = np.where(strong.mask(g), weight, 1)
    return g.select(np.repeat(np.arange(len(g.a)), times))
