"""Graded verdicts: `[ranking] strong_weight` counts a strong verdict (a judge's `A>>B` on the graded scale, or the
verdict log's `"strength": 2`, as in arena-hard's judgments) as that many games at threshold `none`, for
Bradley–Terry and Elo — arena-hard's own computation repeats such a battle `WEIGHT = 3` times. Thresholds count it
as one vote. `strong_weight = 1` (the default) is the ungraded ranking.

The strong verdicts come from two places:
- the store: every verdict a judge gave on the graded scale (`[judge_prompt] scale = "graded"`) keeps its strength
  (elotui.store, `calls.strength`), so each strong one is known exactly (its condition and sample too); a replay
  judge's answers carry their log line's `"strength"` into the store the same way;
- the replay judges' verdict logs: per (prompt, shown first, shown second, judge), the presentations with a strong
  line (every sample of such a presentation counts as strong). These count only for a presentation the store holds
  no strong verdict of: a store whose replayed verdicts were recorded before replays copied the strength (it never
  asks a replay again) still ranks them by their logs. Wherever the store knows, it is the one source (each sample
  exactly), so no verdict is named twice, and `len` counts each once.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from elotui.rating.games import Games
from elotui.rating.table import VerdictTable

_NONE = np.zeros(0, dtype=np.int64)


@dataclass(frozen=True, eq=False)
class StrongVerdicts:
    """The strong verdicts as sorted integer keys over the tournament's declared orders (the verdict table's codes):
    `keys` ((prompt * C + first) * C + second) * J + judge of a presentation-and-judge (from the logs); `exact`
    that key * K + condition, * S + sample, of one verdict (from the store)."""

    keys: NDArray[np.int64]
    n_contestants: int
    n_judges: int
    exact: NDArray[np.int64] = field(default_factory=lambda: _NONE)
    n_conditions: int = 1
    n_samples: int = 1

    def __len__(self) -> int:
        return len(self.keys) + len(self.exact)

    def rows(self, table: VerdictTable, rows: NDArray[np.intp]) -> NDArray[np.bool_]:
        """Whether each of the table's `rows` is a strong verdict."""
        c, j = self.n_contestants, self.n_judges
        pres = ((table.prompt[rows].astype(np.int64) * c + table.first[rows]) * c + table.second[rows]) * j
        pres += table.judge[rows]
        strong = np.isin(pres, self.keys) if len(self.keys) else np.zeros(len(rows), dtype=np.bool_)
        if len(self.exact):
            one = (pres * self.n_conditions + table.condition[rows]) * self.n_samples + table.sample[rows]
            strong |= np.isin(one, self.exact)
        return strong


def strong_verdicts(
    tournament: Any,
    stored: Iterable[tuple[str, str, str, str, str, int]] = (),
    *,
    logged: set[int] | None = None,
) -> StrongVerdicts:
    """The strong verdicts the tournament's replay judges' logs record (`logged`: `logged_strong(tournament)`
    when the caller has it; UserError for a log that cannot be read), and the `stored` ones: (prompt, first,
    second, judge, condition, sample) of each strong verdict in the store (elotui.store.Store.strong_verdicts)."""
    codes = _Codes(tournament)
    exact = {k for k in map(codes.exact, stored) if k is not None}
    # a replayed verdict is in the store with its log line's strength (elotui.judges.replay), each sample exactly:
    # a log's presentation counts only where the store holds none of its strong verdicts (recorded before replays
    # copied the strength, or not replayed yet)
    per_presentation = len(codes.conditions) * codes.samples
    known = {k // per_presentation for k in exact}
    keys = (_logged(tournament, codes) if logged is None else logged) - known
    return StrongVerdicts(
        np.array(sorted(keys), dtype=np.int64),
        len(codes.contestants),
        len(codes.judges),
        np.array(sorted(exact), dtype=np.int64),
        len(codes.conditions),
        codes.samples,
    )


class _Codes:
    """The tournament's names numbered in their declared order (the verdict table's coding)."""

    def __init__(self, tournament: Any) -> None:
        self.prompts = {p: i for i, p in enumerate(tournament.prompt_ids)}
        self.contestants = {c: i for i, c in enumerate(tournament.contestant_ids)}
        self.judges = {j: i for i, j in enumerate(tournament.judge_ids)}
        self.conditions = {k: i for i, k in enumerate(tournament.spec.comparison.conditions)} or {"clean": 0}
        self.samples = int(tournament.spec.comparison.samples)

    def presentation(self, prompt: Any, first: Any, second: Any, judge: int) -> int | None:
        p, a, b = self.prompts.get(prompt), self.contestants.get(first), self.contestants.get(second)
        if p is None or a is None or b is None:
            return None
        c = len(self.contestants)
        return ((p * c + a) * c + b) * len(self.judges) + judge

    def exact(self, row: tuple[str, str, str, str, str, int]) -> int | None:
        prompt, first, second, judge, condition, sample = row
        j, k = self.judges.get(judge), self.conditions.get(condition)
        if j is None or k is None or not 0 <= sample < self.samples:
            return None
        key = self.presentation(prompt, first, second, j)
        return None if key is None else (key * len(self.conditions) + k) * self.samples + sample


def logged_strong(tournament: Any) -> set[int]:
    """The presentation keys of the strong verdicts in the tournament's replay logs (`StrongVerdicts.keys`)."""
    return _logged(tournament, _Codes(tournament))


def _logged(tournament: Any, codes: _Codes) -> set[int]:
    """The presentation keys of the strong verdicts in the replay judges' logs."""
    from elotui.tournament.user_files import open_regular

    keys: set[int] = set()
    for code, judge in enumerate(tournament.spec.judges):
        if judge.provider != "replay" or judge.path is None:
            continue
        with open_regular(tournament.resolve(judge.path)) as fh:
            for raw in fh:
                if b'"strength"' not in raw:
                    continue
                row = json.loads(raw)
                if row.get("strength") != 2 or row.get("judge") != judge.replay_name:
                    continue
                key = codes.presentation(row.get("prompt"), row.get("first"), row.get("second"), code)
                if key is not None:
                    keys.add(key)
    return keys


def weighted(
    table: VerdictTable, valid: NDArray[np.bool_], g: Games, strong: StrongVerdicts, weight: int
) -> Games:
    """The games of threshold none (one per valid row of `table`, `valid` the rows kept) with each strong
    verdict's game repeated `weight` times; the repeats are marked (`Games.repeat`), so that W/L/D count verdicts."""
    if weight <= 1 or not len(strong):
        return g
    rows = np.flatnonzero(valid)
    if len(rows) != len(g):
        raise ValueError("the games are not the table's valid rows")
    times = np.where(strong.rows(table, rows), weight, 1)
    at = np.repeat(np.arange(len(g.a)), times)
    out = g.select(at)
    repeat = np.zeros(len(at), dtype=np.bool_)
    repeat[1:] = at[1:] == at[:-1]  # every copy after a game's first: W/L/D count the verdict once
    return replace(out, repeat=repeat)
