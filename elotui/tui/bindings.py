"""The app's keys but quitting (bound in elotui.tui.app), and the pairs screen's: each with the short description
the footer shows and, as its tooltip, the long one the help screen (`?`) shows, made from these bindings."""

from __future__ import annotations

from textual.binding import Binding, BindingType

VIEW_BINDINGS: list[BindingType] = [
    Binding(
        "1",
        "threshold(1)",
        "1.0",
        show=False,
        tooltip="agreement threshold 1.0: a game is a win only when unanimous",
    ),
    Binding(
        "2",
        "threshold(2)",
        "0.9",
        show=False,
        tooltip="agreement threshold 0.9: a win needs 90 % of the votes",
    ),
    Binding(
        "3",
        "threshold(3)",
        "0.75",
        show=False,
        tooltip="agreement threshold 0.75: a win needs 75 % of the votes",
    ),
    Binding(
        "4", "threshold(4)", "0.5", show=False, tooltip="agreement threshold 0.5: a simple majority wins"
    ),
    Binding("5", "threshold(5)", "none", show=False, tooltip="no threshold: every verdict is its own game"),
    Binding("m", "toggle_method", "Elo/BT", tooltip="the rating method: permutation Elo or Bradley–Terry"),
    Binding("l", "show_tab('tab-leaderboard')", "board", tooltip="show the leaderboard"),
    Binding(
        "v", "show_tab('tab-pairs')", "pairs", tooltip="show the pairs: each pair's responses and verdicts"
    ),
    Binding(
        "d", "show_tab('tab-diagnostics')", "diagnostics", tooltip="show the diagnostics: biases, agreement"
    ),
    Binding("p", "pause", "pause", tooltip="pause or resume judging (calls in flight finish)"),
    Binding(  # in place of `pause` while a large import's replay waits (AppActions.hold_replay)
        "p",
        "replay",
        "replay",
        tooltip="replay the imported verdicts into the store (minutes and GBs at 10^6)",
    ),
    Binding("e", "export", "export CSV", tooltip="export the ranking on screen to CSV (as `elotui export`)"),
    Binding(
        "y",
        "toggle_style",
        "style",
        tooltip="Bradley–Terry style-controlled (who wins when style is equal) or raw; ▲▼: each rank's change",
    ),
    Binding(
        "i", "last_invalid", "invalid reply", show=False, tooltip="the raw reply of the last invalid verdict"
    ),
    Binding(
        "r", "pair_raw", "raw reply", show=False, tooltip="pairs screen: the selected pair's invalid replies"
    ),
    Binding(
        "s", "screenshot", "screenshot", show=False, tooltip="save an SVG screenshot in the current folder"
    ),
    Binding("question_mark", "help", "help", tooltip="this help: every key where you pressed it"),
]

PAIRS_BINDINGS: list[BindingType] = [
    Binding(
        "slash",
        "search",
        "search",
        tooltip="search prompts, responses and reasoning (enter: to the list)",
    ),
    Binding(
        "escape", "leave_search", "back to the list", show=False, tooltip="leave the search box, keep it"
    ),
    Binding("n", "match(1)", "next match", show=False, tooltip="next match of the search in the pair below"),
    Binding("N", "match(-1)", "previous match", show=False, tooltip="previous match of the search"),
    Binding("o", "cycle_sort", "sort", show=False, tooltip="next sort order of the list"),
    Binding(
        "a",
        "vote('first')",
        "1st better",
        tooltip="vote: the selected pair's first-listed contestant is better (stored at once as a human vote)",
    ),
    Binding(
        "b", "vote('second')", "2nd better", tooltip="vote: the pair's second-listed contestant is better"
    ),
    Binding("t", "vote('tie')", "tie", tooltip="vote: the selected pair is a tie"),
    Binding(
        "u", "undo_vote", "undo vote", show=False, tooltip="undo your last vote (and go back to its pair)"
    ),
    Binding("j", "next_queued", "queue", tooltip="the next pair of the vote queue you have not voted on"),
    Binding(
        "B",
        "blind_review",
        "blind review",
        show=False,
        tooltip="blind review of the queue: Response 1 and 2 in a random order, no names, no judges, until you vote",
    ),
    Binding("x", "export_pairs('csv')", "export pairs", show=False, tooltip="export the listed pairs to CSV"),
    Binding(
        "X",
        "export_pairs('json')",
        "export pairs (JSON)",
        show=False,
        tooltip="export the listed pairs to JSON, with the filters used",
    ),
]
