"""The TUI's view of the ratings: a VerdictTable kept up to date as verdicts arrive, and a cache of leaderboards
per (threshold, method, scope, style) that stays valid until new verdicts arrive. `style`: the style features
Bradley–Terry controls for (`("length", "markdown")`; `()`: the raw ranking, whatever `[ranking] style_control`
says).

Thread-safe: the UI thread appends verdicts; ranking workers take a consistent snapshot of the table under the
lock and compute outside it. No Textual here.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from elotui.rating.games import Games
from elotui.rating.leaderboard import Leaderboard, RatingOptions, rank, scoped_games
from elotui.rating.table import VerdictTable
from elotui.records import PlanVerdict
from elotui.vocab import METHOD_NAMES, Threshold, threshold_label


@dataclass(frozen=True)
class ViewScope:
    """All prompts / one prompt / one category's prompts / one turn's prompts (`[data] turn = [1, 2]`); all judges /
    one judge (None = all)."""

    prompt: str | None = None
    judge: str | None = None
    category: str | None = None
    turn: int | None = None

    def describe(self) -> str:
        turn = f"turn {self.turn} · " if self.turn is not None else ""
        category = f"category {self.category} · " if self.category is not None else ""
        return f"{turn}{category}prompt {self.prompt or 'all'} · judge {self.judge or 'all'}"

    def prompts(self, categories: Mapping[str, str]) -> list[str] | None:
        """The prompt ids in scope (None = all); `categories`: prompt id → category."""
        chosen = [self.prompt] if self.prompt is not None else None
        if self.category is None:
            return chosen
        in_category = [p for p, c in categories.items() if c == self.category]
        return in_category if chosen is None else [p for p in chosen if p in in_category]


ViewKey = tuple[Threshold, str, ViewScope, tuple[str, ...]]  # threshold, method, scope, style features
PREVIEW_ORDERS = 20  # Elo orders of the trajectory's earlier points (the last point is the leaderboard's)


def chart_label(
    threshold: Threshold, method: str, trajectory: dict[str, Any], style: tuple[str, ...] = ()
) -> str:
    """What the chart of a trajectory shows: the view, and, when its earlier points play fewer Elo orders than
    the board, that they are a preview (the last point is the leaderboard)."""
    label = f"threshold {threshold_label(threshold)}, {METHOD_NAMES.get(method, method)}"
    label += f" style-controlled ({', '.join(style)})" if style else ""
    orders = trajectory.get("preview_orders")
    return label + (
        f"; ends at the leaderboard, earlier points a preview with {orders} orders" if orders else ""
    )


def _unchanged(board: Leaderboard) -> Leaderboard:
    return board


@dataclass(frozen=True)
class RankingContext:
    """What a view needs besides the verdicts: the prompts' categories, and a last step that every leaderboard
    of this tournament goes through (TournamentSession.note_design: the comparison design and its warning).
    `scope_prompts`: (prompt, category, turn) → the prompts in scope, as `elotui export` takes them
    (TournamentSession.scope_prompts); without it a view's prompts come from `categories` and it has no turn."""

    categories: Mapping[str, str] = field(default_factory=dict)
    finish: Callable[[Leaderboard], Leaderboard] = _unchanged
    # the games' style counts (elotui.rating.style_rank.StyleLookup) for a style-controlled view, read when first
    # asked for (from a ranking thread)
    style: Callable[[], Any] | None = None
    scope_prompts: Callable[[str | None, str | None, int | None], list[str] | None] | None = None


# a board of this many verdicts or more shows its point fit first, its bootstrap's intervals when they come (200
# prompt-bootstrap rounds of a 10^6-battle import take ~15 s; 5 * 10^4 verdicts' about a second)
PREVIEW_VERDICTS = 50_000


class LiveRanking:
    def __init__(
        self, table: VerdictTable, options: RatingOptions, context: RankingContext | None = None
    ) -> None:
        """`table`: the answered verdicts so far (TournamentSession.plan_table(include_missing=False))."""
        self.options = options
        self.context = context or RankingContext()
        self._lock = threading.Lock()
        self._table = table
        self._cache: dict[ViewKey, tuple[int, Leaderboard]] = {}
        self._previews: dict[ViewKey, tuple[int, Leaderboard]] = {}
        self._flipped: dict[ViewKey, tuple[int, Leaderboard]] = {}

    @property
    def version(self) -> int:
        return self._table.version

    def __len__(self) -> int:
        return len(self._table)

    def append(self, rows: Sequence[PlanVerdict]) -> int:
        with self._lock:
            return self._table.append(list(rows)) if rows else 0

    def snapshot(self) -> VerdictTable:
        """A private copy of the table (safe to read in another thread)."""
        with self._lock:
            return self._table.subset(None)

    def cached(self, key: ViewKey) -> tuple[Leaderboard | None, bool]:
        """The cached leaderboard for a view (possibly from older verdicts) and whether it is current."""
        with self._lock:
            found = self._cache.get(key)
            version = self._table.version
        if found is None:
            return None, False
        return found[1], found[0] == version

    def compute(
        self, key: ViewKey, table: VerdictTable | None = None, version: int | None = None
    ) -> Leaderboard:
        """Rank a view (from a thread); stores it in the cache. Pass a snapshot to rank several views on one."""
        if table is None:
            with self._lock:
                version = self._table.version
                table = self._table.subset(None)
        threshold, method, scope, style = key
        options = self.view_options(style)
        board = self.context.finish(self._rank_view(table, threshold, method, scope, options))
        with self._lock:
            old = self._cache.get(key)
            if old is None or old[0] <= (version or 0):
                self._cache[key] = (version or 0, board)
        return board

    def preview(self, key: ViewKey, table: VerdictTable, version: int) -> Leaderboard:
        """A view's board without its bootstrap: the point fit, its order and ratings final, no interval yet (a
        style-controlled view's rounds cost a hundred times its point fit: 21 s at 200k games; any view's of
        PREVIEW_VERDICTS verdicts or more take seconds). Kept apart from the
        cache, for `latest` until the full board comes (and made once for these verdicts)."""
        with self._lock:
            made = self._previews.get(key)
        if made is not None and made[0] == version:
            return made[1]
        threshold, method, scope, style = key
        options = self.view_options(style).replace(bootstrap=0)
        board = self.context.finish(self._rank_view(table, threshold, method, scope, options))
        with self._lock:
            self._previews[key] = (version, board)
        return board

    def latest(self, key: ViewKey) -> tuple[Leaderboard | None, bool]:
        """The view's newest board, full or preview, of any verdicts (the order the rank changes count from), and
        whether it is a preview."""
        with self._lock:
            found = self._cache.get(key)
            preview = self._previews.get(key)
        if found is None or (preview is not None and preview[0] > found[0]):
            return (preview[1], True) if preview is not None else (None, False)
        return found[1], False

    def flips(self, key: ViewKey) -> tuple[int, Leaderboard] | None:
        """The view's newest board with each adjacent row's `drop_to_flip` and `fragile` filled in, and the
        version of the verdicts it is of (None: not computed yet)."""
        with self._lock:
            return self._flipped.get(key)

    def compute_flips(self, key: ViewKey) -> tuple[int, Leaderboard] | None:
        """From a thread: the view's current board with its drop_to_flip counts (elotui.rating.drop_to_flip: refits,
        as `elotui export --format json` computes them), cached per board. None when the view has no board of the
        newest verdicts yet (it is being ranked: ask again once it is)."""
        with self._lock:
            version = self._table.version
            found = self._cache.get(key)
            done = self._flipped.get(key)
            if found is None or found[0] != version:
                return None
            if done is not None and done[0] == version:
                return done
            table = self._table.subset(None)
        from elotui.rating.drop_to_flip import with_drop_to_flip

        threshold, _, scope, style = key
        options = self.view_options(style)
        g = self._view_games(table, threshold, scope, options)
        flipped = (version, with_drop_to_flip(found[1], list(table.contestants), g, options))
        with self._lock:
            old = self._flipped.get(key)
            if old is None or old[0] <= version:
                self._flipped[key] = flipped
        return flipped

    def _view_games(
        self, table: VerdictTable, threshold: Threshold, scope: ViewScope, options: RatingOptions
    ) -> Games:
        """The games `_rank_view` ranks for a view (its scope's prompts: `scope_prompts`, turn scopes too)."""
        prompts = self.scope_prompts(scope)
        judges = [scope.judge] if scope.judge else None
        return scoped_games(
            table, threshold=threshold, options=options, scope={"prompts": prompts, "judges": judges}
        )

    def snapshot_with_version(self) -> tuple[VerdictTable, int]:
        with self._lock:
            return self._table.subset(None), self._table.version

    def view_options(self, style: tuple[str, ...]) -> RatingOptions:
        """The rating options of a view: Bradley–Terry controls for `style` (its counts from the context), or for
        nothing (`()`: the raw ranking)."""
        if not style:
            return (
                self.options.replace(style_control=(), style=None)
                if self.options.style_control
                else self.options
            )
        lookup = self.options.style
        if lookup is None and self.context.style is not None:
            lookup = self.context.style()
        return self.options.replace(style_control=style, style=lookup)

    def trajectory(
        self,
        threshold: Threshold,
        method: str,
        points: int = 24,
        scope: ViewScope | None = None,
        style: tuple[str, ...] = (),
    ) -> dict[str, Any]:
        """Ratings after the first 1/points, 2/points, ... of the verdicts (in arrival order), within `scope`
        (Bradley–Terry controlled for `style`).

        Returns {"done": [n verdicts at each point], "ratings": {contestant: [rating at each point]},
        "preview_orders": k | None}. The last point is the leaderboard of the view (threshold, method, scope)
        itself, so the chart ends at the values the board shows. The earlier points are the same estimator
        without bootstrap rounds (they do not change a point rating); for Elo with more than PREVIEW_ORDERS
        permutations they play PREVIEW_ORDERS orders (a preview: `preview_orders` says so), else the same orders.
        """
        scope = scope or ViewScope()
        table, version = self.snapshot_with_version()
        n = len(table)
        contestants = list(table.contestants)
        out: dict[str, Any] = {"done": [], "ratings": {c: [] for c in contestants}, "preview_orders": None}
        if n == 0:
            return out
        import numpy as np

        orders = self.options.permutations
        if method == "elo" and orders > PREVIEW_ORDERS:
            orders = PREVIEW_ORDERS
            out["preview_orders"] = orders
        options = self.view_options(style).replace(permutations=orders, bootstrap=0)
        cuts = sorted({max(1, round(n * (i + 1) / points)) for i in range(points)})
        for cut in cuts:
            if cut < n:
                mask = np.zeros(n, dtype=bool)
                mask[:cut] = True
                board = self._rank_view(table.subset(mask), threshold, method, scope, options)
            else:  # the leaderboard itself (the cached one when it is current)
                key = (threshold, method, scope, style)
                cached, current = self.cached(key)
                board = cached if cached is not None and current else self.compute(key, table, version)
            out["done"].append(cut)
            ratings = board.ratings()
            for c in contestants:
                out["ratings"][c].append(ratings.get(c, self.options.initial_rating))
        return out

    def _rank_view(
        self, table: VerdictTable, threshold: Threshold, method: str, scope: ViewScope, options: RatingOptions
    ) -> Leaderboard:
        return rank(
            table,
            threshold=threshold,
            method=method,
            options=options,
            prompts=self.scope_prompts(scope),
            judges=[scope.judge] if scope.judge else None,
        )

    def scope_prompts(self, scope: ViewScope) -> list[str] | None:
        """The prompts of a view's scope (None = all)."""
        if self.context.scope_prompts is not None:
            return self.context.scope_prompts(scope.prompt, scope.category, scope.turn)
        if scope.turn is not None:
            raise ValueError("a turn scope needs the session's scope_prompts (RankingContext.scope_prompts)")
        return scope.prompts(self.context.categories)
