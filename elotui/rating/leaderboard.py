"""The leaderboard: ratings for one scope and threshold, ranks, gaps between adjacent ranks, bands — and how
certain each of them is.

Gap bands (Braun and Forell 2026, Elo over random permutations): Δ < 50 "practically tied", 50 <= Δ <= 150 "moderate", Δ > 150 "strong"; the expected
win probability of a gap is 1 / (1 + 10^(-Δ/400)).

Certainty (elotui.rating.bootstrap): each rating's interval is a 95 % percentile bootstrap interval (by prompt by
default) for both methods; from the same rounds, centred on the point ratings, each adjacent gap gets its interval
and the order confidence (the share of rounds in which the upper contestant is above the lower one), so that both
speak of the order shown; an order below one half is marked (`order_uncertain`). `band_range` is the bands the
gap interval spans: a band is certain only when the range has one band. What the games do not determine is said
(elotui.rating.identify): unranked contestants, groups ranked apart, and for Bradley–Terry the win components
(elotui.rating.win_order): the order follows the wins, and across a separation the ratings are the weakly
penalised estimate (`bt_following_wins`, stated in `settings.interval.separation`). Elo rates every contestant
with games.

Scales: at threshold "none" every verdict is a game; at 1.0 ... 0.5 each presentation's agreed vote is one game,
so a consistent preference counts as fully won: those ratings are steeper and not comparable with "none"'s.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, TypedDict

import numpy as np
from numpy.typing import NDArray

from elotui.rating.anchor import anchor_option as _anchor_option
from elotui.rating.anchor import anchored
from elotui.rating.board import Leaderboard, LeaderboardRow, Rated, build_leaderboard
from elotui.rating.bootstrap import ELO_MAX_ROUNDS, LEVEL, BootstrapUnit, IntervalSpec
from elotui.rating.bt import DEFAULT_PRIOR, bradley_terry, fit_theta, to_elo, win_matrix
from elotui.rating.elo import Canonical, canonical, elo_rounds, online_elo, permutation_elo
from elotui.rating.games import Games, games
from elotui.rating.identify import Identified, identify
from elotui.rating.order_noise import elo_round_count
from elotui.rating.small_sample import small_sample_noted
from elotui.rating.table import VerdictTable
from elotui.rating.win_order import contradicted
from elotui.vocab import (
    BAND_MODERATE,
    BAND_STRONG,
    BAND_TIED,
    METHODS,
    Method,
    Threshold,
    band,
    check_method,
    parse_threshold,
    win_probability,
)

__all__ = [
    "BAND_MODERATE",
    "BAND_STRONG",
    "BAND_TIED",
    "METHODS",
    "Leaderboard",
    "LeaderboardRow",
    "Method",
    "RatingOptions",
    "band",
    "build_leaderboard",
    "rank",
    "rank_games",
    "ratings_for",
    "win_probability",
]


@dataclass(frozen=True)
class RatingOptions:
    """The rating settings every method shares (from `[ranking]`). `bootstrap` rounds (by `bootstrap_unit`) give
    both methods their intervals (Elo uses at most ELO_MAX_ROUNDS of them)."""

    k_factor: float = 16
    initial_rating: float = 1000
    permutations: int = 100
    bootstrap: int = 200
    seed: int = 0
    bootstrap_unit: BootstrapUnit = "prompt"
    # (judge, contestant): that judge's verdicts on that contestant's games left out (`exclude_self`)
    excluded: tuple[tuple[str, str], ...] = ()
    judge_weights: str = "equal"  # "learned": Bradley–Terry at threshold none fits a weight per judge
    position_effect: bool = False  # Bradley–Terry at threshold none fits a first-slot advantage per judge
    anchor: tuple[str, float] | None = None  # (contestant, rating): shift every rating so that it sits there
    style_control: tuple[str, ...] = ()  # Bradley–Terry with these style covariates ("length", "markdown")
    style: Any = None  # the games' style counts (elotui.rating.style_rank.StyleLookup), set by the session
    strong_weight: int = 1  # a strong verdict counts as this many games at threshold none
    strong: Any = None  # the strong verdicts (elotui.rating.graded.StrongVerdicts), set by the session

    @classmethod
    def from_config(cls, ranking: Any) -> RatingOptions:
        """From a `[ranking]` table (elotui.tournament.model.RankingConfig)."""
        return cls(
            ranking.k_factor,
            ranking.initial_rating,
            ranking.permutations,
            ranking.bootstrap,
            ranking.seed,
            ranking.bootstrap_unit,
            judge_weights=getattr(ranking, "judge_weights", "equal"),
            position_effect=bool(getattr(ranking, "position_effect", False)),
            anchor=_anchor_option(getattr(ranking, "anchor", None)),
            style_control=tuple(getattr(ranking, "style_control", ()) or ()),
            strong_weight=int(getattr(ranking, "strong_weight", 1)),
        )

    @property
    def per_verdict_model(self) -> bool:
        """Bradley–Terry at threshold none fits a term per judge (learned weights or a position effect): the
        games must then carry each verdict's judge (no view from verdict counts alone)."""
        return self.judge_weights == "learned" or self.position_effect

    def replace(self, **changes: Any) -> RatingOptions:
        return dataclasses.replace(self, **changes)

    def as_settings(self) -> dict[str, Any]:
        return {
            "k_factor": float(self.k_factor),
            "initial_rating": float(self.initial_rating),
            "permutations": int(self.permutations),
            "bootstrap": int(self.bootstrap),
            "seed": int(self.seed),
            "bootstrap_unit": self.bootstrap_unit,
            "judge_weights": self.judge_weights,
            "position_effect": self.position_effect,
            "anchor": None
            if self.anchor is None
            else {"contestant": self.anchor[0], "rating": self.anchor[1]},
        }

    def interval(self, method: str, games: int = 0, contestants: int = 0) -> IntervalSpec:
        """The interval of `method` on `games` games of `contestants` (Elo's rounds depend on them)."""
        elo = elo_round_count(min(self.bootstrap, ELO_MAX_ROUNDS), games, contestants, float(self.k_factor))
        rounds = 0 if method == "online" else elo if method == "elo" else self.bootstrap
        return IntervalSpec("bootstrap" if rounds > 0 else "none", self.bootstrap_unit, LEVEL, rounds)


def excluded_mask(table: VerdictTable, excluded: Iterable[tuple[str, str]]) -> NDArray[np.bool_]:
    """The rows of each (judge, contestant): the judge's verdicts on comparisons that involve the contestant
    (`[ranking] exclude_self`: a judge does not vote on its own games)."""
    out = np.zeros(len(table), dtype=bool)
    for judge, contestant in excluded:
        if judge in table.judges and contestant in table.contestants:
            j, c = table.judges.index(judge), table.contestant_index(contestant)
            out |= (table.judge == j) & ((table.first == c) | (table.second == c))
    return out


class Scope(TypedDict, total=False):
    """What a ranking counts (None, or no entry: all): the verdicts on these prompts, by these judges, under these
    conditions. `scoped_games` selects by it; the leaderboard's settings record it."""

    prompts: list[str] | None
    judges: list[str] | None
    conditions: list[str] | None


def rank(
    table: VerdictTable,
    *,
    threshold: Threshold,
    method: str,
    options: RatingOptions | None = None,
    prompts: Iterable[str] | None = None,
    judges: Iterable[str] | None = None,
    conditions: Iterable[str] | None = None,
) -> Leaderboard:
    """Rank every contestant of `table` within a scope (None = all prompts / judges / conditions).

    method "elo": permutation-averaged Elo; "bt": Bradley–Terry; both with bootstrap intervals; "online": Elo
    once in arrival order (no interval).
    """
    threshold = parse_threshold(threshold)
    check_method(method)
    scope: Scope = {
        "prompts": list(prompts) if prompts is not None else None,
        "judges": list(judges) if judges is not None else None,
        "conditions": list(conditions) if conditions is not None else None,
    }
    g = scoped_games(table, threshold=threshold, options=options, scope=scope)
    return rank_games(table.contestants, g, threshold=threshold, method=method, options=options, scope=scope)


def scoped_games(
    table: VerdictTable,
    *,
    threshold: Threshold,
    options: RatingOptions | None = None,
    scope: Scope | None = None,
) -> Games:
    """The games `rank` ranks: the table's verdicts within `scope` (None: all), less each judge's verdicts on its
    own contestant (`[ranking] exclude_self`), at `threshold`."""
    mask = table.scope_mask(**(scope or {}))
    if options is not None and options.excluded:
        keep = ~excluded_mask(table, options.excluded)
        mask = keep if mask is None else mask & keep
    g = games(table, threshold, mask)
    if options is not None and options.strong is not None and parse_threshold(threshold) == "none":
        from elotui.rating.graded import weighted  # a strong verdict as strong_weight games

        g = weighted(table, table.valid(mask), g, options.strong, options.strong_weight)
    return g


def _model_settings(options: RatingOptions, threshold: Threshold, style_info: Any) -> dict[str, Any]:
    """The settings of what the ranking added to the games, where it did: the style covariates' fit
    (`style_control`), and `strong_weight` (the weight, the strong verdicts, and how they counted here)."""
    out: dict[str, Any] = {}
    if style_info is not None:
        out["style_control"] = style_info
    if options.strong_weight > 1:
        out["strong_weight"] = {
            "weight": int(options.strong_weight),
            "strong_verdicts": len(options.strong) if options.strong is not None else 0,
            "counted": "as games" if threshold == "none" else "as one vote each",
        }
    return out


def rank_games(
    contestants: list[str],
    g: Games,
    *,
    threshold: Threshold,
    method: str,
    options: RatingOptions | None = None,
    scope: Scope | None = None,
) -> Leaderboard:
    """`rank` on games already made for `threshold` within `scope` (which is only recorded in the settings)."""
    threshold = parse_threshold(threshold)
    scope = scope or {}
    check_method(method)
    options = options or RatingOptions()
    listed = canonical(g)  # the distinct games: what identify reads, what Elo plays
    ident = identify(listed, list(contestants))
    settled = listed if method == "elo" else None
    del listed
    raw, prior, style_info = _rated(g, method, options, ident, settled)
    del settled
    rated = _centred(raw, ident, float(options.initial_rating), by_wins=method == "bt")
    rated = anchored(rated, list(contestants), options.anchor)
    interval = options.interval(method, len(g), g.n_contestants).as_settings()
    if prior is not None:
        interval["separation"] = separation_setting(prior)
    settings = {
        "threshold": threshold,
        "method": method,
        **options.as_settings(),
        "prompts": scope.get("prompts"),
        "judges": scope.get("judges"),
        "conditions": scope.get("conditions"),
        "interval": interval,
        "scale": SCALE_NONE if threshold == "none" else SCALE_THRESHOLD,
    }
    settings.update(_model_settings(options, threshold, style_info))
    if method == "elo":
        settings["order_spread"] = {
            "kind": "order spread",
            "level": LEVEL,
            "orders": int(options.permutations),
        }
    board = small_sample_noted(build_leaderboard(list(contestants), g, rated, ident, settings), g)
    if options.style_control and method != "bt":
        board.warnings.append(
            {
                "kind": "style_control_unused",
                "contestants": [],
                "message": "style_control applies to Bradley–Terry: this Elo view is not style-controlled",
            }
        )
    if options.per_verdict_model and not (method == "bt" and threshold == "none"):
        model = 'judge_weights = "learned"' if options.judge_weights == "learned" else "position_effect"
        board.warnings.append(
            {
                "kind": "judge_weights_unused"
                if options.judge_weights == "learned"
                else "position_effect_unused",
                "contestants": [],
                "message": f"{model} applies to Bradley–Terry at threshold none (every verdict a game, a term fitted "
                "per judge); this view weighs the judges equally, with no position term",
            }
        )
    return board


def _rated(
    g: Games, method: str, options: RatingOptions, ident: Identified, settled: Canonical | None
) -> tuple[Rated, float | None, dict[str, Any] | None]:
    """The method's raw ratings, Bradley–Terry's prior (None: not that fit) and the style fit's report (None: no
    style control)."""
    if method == "bt" and options.style_control and options.style is not None:
        from elotui.rating.style_rank import style_rated

        raw, info = style_rated(
            g,
            options.style_control,
            options.style,
            bootstrap=options.bootstrap,
            seed=options.seed,
            unit=options.bootstrap_unit,
        )
        return raw, None, info
    if method == "bt":
        raw, prior = bt_following_wins(g, options, ident)
        return raw, prior, None
    return ratings_for(g, method, options, settled), None, None


SCALE_NONE = "every verdict is a game"
SCALE_THRESHOLD = (
    "each presentation's agreed vote is a game: a steeper scale than threshold none "
    "(ratings are not comparable across the two)"
)


def ratings_for(
    g: Games, method: str, options: RatingOptions = RatingOptions(), settled: Canonical | None = None
) -> Rated:
    """Ratings, intervals and bootstrap rounds for a set of games (`settled`: `canonical(g)`, where the caller has
    it)."""
    check_method(method)
    o = options
    n = g.n_contestants
    if method == "elo":
        if settled is None:
            settled = canonical(g)  # the orders and the rounds play the same listing of the games
        pe = permutation_elo(
            g,
            k_factor=o.k_factor,
            initial_rating=o.initial_rating,
            permutations=o.permutations,
            seed=o.seed,
            canon=settled,
        )
        spec = o.interval("elo", len(g), n)
        rounds = elo_rounds(
            g,
            rounds=spec.rounds,
            unit=o.bootstrap_unit,
            k_factor=o.k_factor,
            initial_rating=o.initial_rating,
            seed=o.seed,
            canon=settled,
            point_orders=pe,
        )
        del settled
        low, high = _interval(pe.mean, rounds)
        return Rated(pe.mean, low, high, rounds, (pe.low, pe.high))
    if method == "bt" and o.per_verdict_model and len(g.judge) == len(g.a) and len(g.a):
        return _per_verdict_bt(g, o)
    if method == "bt":
        bt = bradley_terry(
            g, bootstrap=o.bootstrap, seed=o.seed, mean=float(o.initial_rating), unit=o.bootstrap_unit
        )
        return Rated(bt.rating, bt.low, bt.high, bt.bootstrap)
    r = online_elo(g.a, g.b, g.score_a, n, k_factor=o.k_factor, initial_rating=o.initial_rating)
    return Rated(r, r.copy(), r.copy(), np.zeros((0, n)))


# Bradley–Terry's prior (precision on the natural-log strengths), weakened tenfold while the point ratings still
# contradict the wins (rare: the penalised estimate tends to the order the wins set as the prior weakens)
SEPARATION_PRIORS = (DEFAULT_PRIOR, DEFAULT_PRIOR / 10, DEFAULT_PRIOR / 100)


def bt_following_wins(g: Games, o: RatingOptions, ident: Identified) -> tuple[Rated, float | None]:
    """Bradley–Terry's ratings and the prior they were fitted with: the penalised estimate with the first prior
    of SEPARATION_PRIORS whose point ratings put every contestant above all it reaches through wins without
    being reached back (None: a per-judge model, whose own fit sets its prior)."""
    if o.per_verdict_model and len(g.judge) == len(g.a) and len(g.a):
        return _per_verdict_bt(g, o), None
    prior = SEPARATION_PRIORS[0]
    if ident.wins is not None and ident.wins.separated:
        wins = win_matrix(g)
        for prior in SEPARATION_PRIORS:
            if not contradicted(to_elo(fit_theta(wins, prior)), ident.wins):
                break
    bt = bradley_terry(
        g,
        bootstrap=o.bootstrap,
        seed=o.seed,
        prior=prior,
        mean=float(o.initial_rating),
        unit=o.bootstrap_unit,
    )
    return Rated(bt.rating, bt.low, bt.high, bt.bootstrap), prior


def separation_setting(prior: float | None) -> dict[str, Any]:
    """What Bradley–Terry shows across a separation (the export's `settings.interval.separation`)."""
    return {
        "display": "penalised estimate",
        "prior": prior,
        "note": "where the wins do not link every contestant both ways (a win component beat another and never "
        "lost to it), the ratings are the estimate penalised by a weak Gaussian prior (precision `prior` on the "
        "natural-log strengths; null: the per-judge model's own): the order follows the wins, and the gaps "
        "between win components are set by the prior, not by the data",
    }


def _per_verdict_bt(g: Games, o: RatingOptions) -> Rated:
    """Bradley–Terry with a term per judge (a first-slot advantage, or a learned weight), on games that carry
    their judges (threshold none): Elo-scale points and prompt-bootstrap rounds around `initial_rating`."""
    if o.position_effect:
        from elotui.rating.position_bt import position_aware_ratings

        point, rounds, _ = position_aware_ratings(
            g, bootstrap=o.bootstrap, seed=o.seed, unit=o.bootstrap_unit
        )
    else:
        from elotui.rating.judge_weights import judge_aware_ratings

        point, rounds = judge_aware_ratings(g, bootstrap=o.bootstrap, seed=o.seed, unit=o.bootstrap_unit)
    point, rounds = point + float(o.initial_rating), rounds + float(o.initial_rating)
    low, high = _interval(point, rounds)
    return Rated(point, low, high, rounds)


def _interval(point: NDArray[np.float64], rounds: NDArray[np.float64]) -> tuple[NDArray[np.float64], ...]:
    if len(rounds) == 0:
        return point.copy(), point.copy()
    low, high = np.percentile(rounds, [100 * (1 - LEVEL) / 2, 100 * (1 + LEVEL) / 2], axis=0)
    return low, high


def _centred(r: Rated, ident: Identified, mean: float, *, by_wins: bool = False) -> Rated:
    """Each group's rated contestants centred so that its anchor's mean is `mean` (points, intervals, rounds,
    spread alike): a group's offset is not determined by data, so it is fixed by convention, not by the prior.
    The anchor is the whole group; with `by_wins` (Bradley–Terry), its largest win component when that has two
    members or more (the contestants whose ratings the data determine relative to each other: a separated
    contestant's prior-set rating does not move them)."""
    rating, low, high, rounds = r.rating.copy(), r.low.copy(), r.high.copy(), r.rounds.copy()
    spread = (r.spread[0].copy(), r.spread[1].copy()) if r.spread is not None else None
    for k in range(int(ident.component.max()) + 1 if len(ident.component) else 0):
        members = np.flatnonzero((ident.component == k) & ident.rated)
        if len(members) == 0:
            continue
        anchor = _anchor(members, ident) if by_wins else members
        shift = mean - rating[anchor].mean()
        for arr in (rating, low, high, *(spread or ())):
            arr[members] += shift
        if len(rounds):
            rounds[:, members] += mean - rounds[:, anchor].mean(axis=1, keepdims=True)
    return Rated(rating, low, high, rounds, spread)


def _anchor(members: NDArray[np.intp], ident: Identified) -> NDArray[np.intp]:
    """The members a group is centred on: its largest win component (ties: the one with the lowest member) when
    that has two members or more, else all of them."""
    if ident.wins is None:
        return members
    labels = ident.wins.label[members]
    sizes = np.bincount(labels[labels >= 0], minlength=1)
    largest = int(np.argmax(sizes))
    return members[labels == largest] if sizes[largest] >= 2 else members
