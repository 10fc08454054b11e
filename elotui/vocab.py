"""elotui's vocabulary: each concept that several floors name, defined once.

Ground floor: imports nothing from elotui. Thresholds (Braun and Forell 2026, agreement thresholds), rating methods, call kinds and statuses,
the expected win probability of a rating gap and its band (Braun and Forell 2026, Elo over random permutations), and the cost of tokens at a price.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Final, Literal, TypeVar

# --- agreement thresholds -----------------------------------------------------------------------------------------

Threshold = float | Literal["none"]
THRESHOLDS: Final[tuple[Threshold, ...]] = (1.0, 0.9, 0.75, 0.5, "none")
_THRESHOLD_VALUES: Final = (1.0, 0.9, 0.75, 0.5)
_THRESHOLD_MESSAGE: Final = 'threshold must be one of 1.0, 0.9, 0.75, 0.5 or "none"'


def parse_threshold(value: Any) -> Threshold:
    """1.0, 0.9, 0.75, 0.5 or "none"; also the strings "1", "1.0", "0.9", "none", "no", "no-threshold".

    Raises ValueError (pydantic turns it into a validation error, and the CLI into exit 2)."""
    if isinstance(value, str):
        text = value.strip().lower()
        if text in {"none", "no", "no-threshold"}:
            return "none"
        try:
            value = float(text)
        except ValueError:
            raise ValueError(_THRESHOLD_MESSAGE) from None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(_THRESHOLD_MESSAGE)  # noqa: TRY004 - ValueError is what pydantic and callers expect
    for allowed in _THRESHOLD_VALUES:
        if abs(float(value) - allowed) < 1e-9:
            return allowed
    raise ValueError(_THRESHOLD_MESSAGE)


def threshold_label(threshold: Threshold) -> str:
    """1.0, 0.9, 0.75, 0.5 or none: as the keys, the CLI and the diagnose report name them."""
    if threshold == "none":
        return "none"
    return "1.0" if float(threshold) == 1.0 else f"{float(threshold):g}"


# --- rating methods -----------------------------------------------------------------------------------------------

Method = Literal["elo", "bt", "online"]
METHODS: Final[tuple[Method, ...]] = ("elo", "bt", "online")
SCREEN_METHODS: Final[tuple[Method, ...]] = ("elo", "bt")  # what the TUI's `m` toggles between
METHOD_NAMES: Final[dict[str, str]] = {"elo": "Elo", "bt": "Bradley–Terry", "online": "online Elo"}


def check_method(method: str) -> Method:
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, not {method!r}")
    return method  # type: ignore[return-value]  # narrowed by the membership test


# --- calls --------------------------------------------------------------------------------------------------------

CallKind = Literal["verdict", "generation", "paraphrase"]
Status = Literal["ok", "invalid", "error"]  # a recorded call
PlanStatus = Literal[
    "ok", "invalid", "error", "missing"
]  # a planned presentation: "missing" = no call recorded
Winner = Literal["first", "second", "tie"]
# a graded verdict's strength (`[judge_prompt] scale = "graded"`, a verdict log's "strength"): 2 strong, 1 clear
Strength = Literal[1, 2]
_GRADES: Final[dict[tuple[str, int], str]] = {
    ("first", 2): "A>>B",
    ("first", 1): "A>B",
    ("second", 1): "B>A",
    ("second", 2): "B>>A",
}


def grade_label(winner: str | None, strength: int | None) -> str | None:
    """A graded verdict as a judge gave it, A the response shown first: `A>>B (strong)`, `A>B`, `B>A`,
    `B>>A (strong)`; None for a verdict without a strength (a tie, a binary or a failed verdict)."""
    grade = _GRADES.get((winner or "", strength or 0))
    if grade is None:
        return None
    return f"{grade} (strong)" if strength == 2 else grade


CACHED_STATUSES: Final[tuple[Status, ...]] = ("ok", "invalid")  # answered: never paid for twice

# The outcome of a planned presentation as one small integer: how the store's columnar snapshot and every rating
# code it (elotui.store.columns, elotui.rating.table).
OUTCOME_FIRST: Final = 0  # the contestant shown first won
OUTCOME_SECOND: Final = 1  # the contestant shown second won
OUTCOME_TIE: Final = 2
OUTCOME_INVALID: Final = 3  # the judge answered but the verdict could not be parsed
OUTCOME_FAILED: Final = 4  # the call failed for good ("error")
OUTCOME_MISSING: Final = 5  # planned, not judged (yet)
_STATUS_CODES: Final = {"invalid": OUTCOME_INVALID, "error": OUTCOME_FAILED, "failed": OUTCOME_FAILED}
_WINNER_CODES: Final = {"first": OUTCOME_FIRST, "second": OUTCOME_SECOND, "tie": OUTCOME_TIE}


def outcome_code(status: str | None, winner: str | None) -> int:
    """The outcome code of one verdict (status None or "missing": no call recorded). An "ok" verdict without a
    known winner counts as invalid."""
    if status == "ok":
        return _WINNER_CODES.get(winner or "", OUTCOME_INVALID)
    if status is None or status == "missing":
        return OUTCOME_MISSING
    code = _STATUS_CODES.get(status)
    if code is None:
        raise ValueError(f"unknown verdict status {status!r}")
    return code


def tokens_in_text(characters: int) -> int:
    """elotui's token estimate for a text of this many characters (about four characters a token, rounded up)."""
    return (characters + 3) // 4


def cost_of(input_tokens: int, output_tokens: int, price_in: float | None, price_out: float | None) -> float:
    """Cost of a call at prices per million tokens (an unset price costs nothing)."""
    cost = 0.0
    if price_in:
        cost += input_tokens * price_in / 1e6
    if price_out:
        cost += output_tokens * price_out / 1e6
    return cost


# --- gaps ---------------------------------------------------------------------------------------------------------

BAND_TIED: Final = "practically tied"
BAND_MODERATE: Final = "moderate"
BAND_STRONG: Final = "strong"
# Ratings closer than this (Elo points) are equal: a tie. The fits agree with themselves to ~1e-12 (the last
# digits are rounding, which an equal record can leave on either side); any real difference is far larger.
RATING_TIE: Final = 1e-9

_T = TypeVar("_T")


def by_rating(items: Iterable[_T], rating: Callable[[_T], float], name: Callable[[_T], str]) -> list[_T]:
    """`items` from the highest rating down; ratings within RATING_TIE of each other (a run of them) are one
    tie, listed by name: which of two equal ratings comes out a few units in the last place higher depends on
    the order of a fit's floating-point operations, not on the data."""
    ordered = sorted(items, key=lambda x: (-rating(x), name(x)))
    out: list[_T] = []
    run: list[_T] = []
    for x in ordered:
        if run and not rating(run[-1]) - rating(x) <= RATING_TIE:
            out += sorted(run, key=name)
            run = []
        run.append(x)
    return out + sorted(run, key=name)


def ranked_names(ratings: dict[str, float]) -> list[str]:
    """The names of `ratings` from the highest down, ties (within RATING_TIE) by name: `by_rating`."""
    return by_rating(ratings, ratings.__getitem__, str)


def win_probability(gap: float) -> float:
    """Expected score of the higher-rated side of a gap Δ on the Elo scale: 1 / (1 + 10^(-Δ/400))."""
    return 1.0 / (1.0 + 10.0 ** (-gap / 400.0))


def band(gap: float) -> str:
    """Braun and Forell 2026, interpretability of Elo scores: Δ < 50 practically tied, 50 ≤ Δ ≤ 150 moderate, Δ > 150 strong."""
    if gap < 50:
        return BAND_TIED
    if gap <= 150:
        return BAND_MODERATE
    return BAND_STRONG
