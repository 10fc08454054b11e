"""Small-sample honesty: below SMALL_SAMPLE_PROMPTS prompts the board says its intervals under-cover and calls no
band certain (bench_small_samples.py measures both by simulation with known truth)."""

from __future__ import annotations

import pytest

from elotui.rating import VerdictTable, rank
from elotui.rating.leaderboard import RatingOptions
from elotui.rating.small_sample import SMALL_SAMPLE_PROMPTS
from tests.rating.rating_builders import simulate

QUALITIES = {"A": 400, "B": 0, "C": -400}  # gaps far inside the strong band: certain with enough prompts


def _board(prompts: int, method: str):  # type: ignore[no-untyped-def]
    rows = simulate(QUALITIES, prompts=prompts, judges=2, seed=1)
    return rank(
        VerdictTable.from_rows(rows), threshold="none", method=method, options=RatingOptions(bootstrap=60)
    )


@pytest.mark.parametrize("method", ["bt", "elo"])
def test_few_prompts_are_noted_and_no_band_is_called_certain(method: str) -> None:
    board = _board(SMALL_SAMPLE_PROMPTS - 1, method)
    notes = [w for w in board.warnings if w["kind"] == "small_sample"]
    assert len(notes) == 1 and f"only {SMALL_SAMPLE_PROMPTS - 1} prompts" in notes[0]["message"]
    assert board.settings["small_sample"] == {
        "prompts": SMALL_SAMPLE_PROMPTS - 1,
        "below": SMALL_SAMPLE_PROMPTS,
    }
    gaps = [r for r in board.rows if r.band_range is not None]
    assert gaps and all(len(r.band_range) == 1 for r in gaps)  # the interval alone would call them certain
    assert not any(r.band_certain for r in board.rows)


@pytest.mark.parametrize("method", ["bt", "elo"])
def test_enough_prompts_carry_no_note_and_certain_bands(method: str) -> None:
    board = _board(SMALL_SAMPLE_PROMPTS, method)
    assert not [w for w in board.warnings if w["kind"] == "small_sample"]
    assert [r.band_certain for r in board.rows[:-1]] == [True, True]
