"""The leaderboard's drop_to_flip counts (elotui.rating.drop_to_flip): computed off the UI thread for the board shown,
once it is of the newest verdicts, cached per board (elotui.tui.state.live_ranking), then shown as `!` after the
fragile gaps and in the selected row's detail (elotui.tui.widgets.gap_detail).

A mixin of `ElotuiApp`: it names what it uses of the app below, and imports nothing of the app.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from textual import work

from elotui.tui.messages import FlipsComputed
from elotui.tui.mixin_base import AppBase, W
from elotui.tui.screens.leaderboard import LeaderboardPane
from elotui.tui.state.live_ranking import LiveRanking, ViewKey
from elotui.tui.widgets.gap_detail import GapFlip, gap_flips, legend
from elotui.tui.widgets.leaderboard_table import LeaderboardTable

FLIPS_EVERY_S = 5.0  # a board's drop_to_flip counts (refits) are computed again at most this often


class FlipsView(AppBase):
    ranking: LiveRanking
    board_key: ViewKey | None
    board_version: int
    board_preview: bool
    _flips_started: float

    if TYPE_CHECKING:  # elotui.tui.actions (declared only: the app's own come later in its bases)

        def _busy(self, group: str) -> bool: ...
        def _spawn(self, group: str, start: Any) -> None: ...
        def _view(self, kind: type[W]) -> W | None: ...

    def _want_flips(self) -> None:
        """Compute the shown board's drop_to_flip counts in a thread when it is of the newest verdicts and has none
        (for a view shown before: at most every FLIPS_EVERY_S while verdicts arrive)."""
        key = self.board_key
        if (
            key is None
            or self.board_preview
            or self.board_version != self.ranking.version
            or self._busy("flips")
        ):
            return
        found = self.ranking.flips(key)
        if found is not None and (
            found[0] == self.board_version or time.monotonic() - self._flips_started < FLIPS_EVERY_S
        ):
            return
        self._flips_started = time.monotonic()
        self._spawn("flips", lambda: self._compute_flips(key))

    @work(thread=True, exclusive=True, group="flips", exit_on_error=False)
    def _compute_flips(self, key: ViewKey) -> None:
        found = self.ranking.compute_flips(key)
        if found is not None:
            self.post_message(FlipsComputed(key, *found))

    def on_flips_computed(self, message: FlipsComputed) -> None:
        table, pane = self._view(LeaderboardTable), self._view(LeaderboardPane)
        if message.key != self.board_key or table is None or pane is None:
            return
        flips = self._flips_of(message.key)
        table.show_flips(flips)
        pane.show_flips_legend(legend(flips))

    def _flips_of(self, key: ViewKey) -> dict[tuple[str, str], GapFlip]:
        """The view's newest drop_to_flip counts, marked stale when they are of older verdicts than the board."""
        found = self.ranking.flips(key)
        if found is None or (self.board_preview and key == self.board_key):
            return {}
        return gap_flips(found[1], stale=found[0] != self.board_version)
