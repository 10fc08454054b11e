"""The leaderboard's style-controlled and raw Bradley–Terry views (`y` toggles): with `[ranking] style_control` the
TUI opens on the controlled board, the line above it says which view it is, each rank shows its change from the other
view (`3▲2`), and the boards are `elotui export --style-control`'s and `--no-style-control`'s at every threshold and
scope; the coefficients are in the diagnostics. Without `style_control`, `y` ranks with length and markdown
controlled (as `export --style-control`) and says how to open on it. On a tournament whose judges favour long,
markdown-heavy answers written by the weaker contestants (tests.tui.styled), so the two views disagree."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from elotui.cli import main
from elotui.rating.leaderboard import Leaderboard
from elotui.tui.app import ElotuiApp
from elotui.tui.launch import make_app
from elotui.tui.style_view import rank_shifts
from elotui.tui.widgets.leaderboard_table import (
    MIN_CONTESTANT_COMPARED,
    LeaderboardTable,
    fit_columns,
    rank_column_width,
)
from elotui.vocab import THRESHOLDS
from tests.tui.conftest import press_and_settle, settle
from tests.tui.small_terminal import screen_text
from tests.tui.styled import WRITERS, run_styled

FEATURES = ("length", "markdown")
RANK_CELL = re.compile(r"^(\d+)(?:([▲▼])(\d+)| =)$")
HEADERS = ("#", "contestant", "rating", "interval", "Δ next", "order", "band")


def export(folder: Path, *extra: str) -> dict[str, Any]:
    """`elotui export --format json` of the tournament in `folder`, on its store (written to a file: the app, when
    running, holds stdout)."""
    target = folder / "export.json"
    args = ["export", str(folder / "tournament.toml"), "--store", str(folder / "store.sqlite")]
    assert main([*args, "--format", "json", "-o", str(target), *extra]) == 0
    doc: dict[str, Any] = json.loads(target.read_text(encoding="utf-8"))
    return doc


def exported(folder: Path, threshold: str, *extra: str) -> dict[str, Any]:
    return export(folder, "--threshold", threshold, *extra)


def rank_cells(app: ElotuiApp) -> dict[str, tuple[int, int | None]]:
    """Each contestant's rank and rank change as the table shows them (`3▲2` → (3, 2), `5▼1` → (5, -1), `4 =` →
    (4, 0), `4` → (4, None))."""
    table = app.query_one(LeaderboardTable)
    out = {}
    for i, contestant in enumerate(table.order()):
        cell = table.get_cell_at((i, 0)).plain.strip()
        plain = re.fullmatch(r"\d+", cell)
        if plain:
            out[contestant] = (int(cell), None)
            continue
        m = RANK_CELL.fullmatch(cell)
        assert m is not None, cell
        shift = 0 if m.group(2) is None else int(m.group(3)) * (1 if m.group(2) == "▲" else -1)
        out[contestant] = (int(m.group(1)), shift)
    return out


def board_title(app: ElotuiApp) -> str:
    line = app.query_one("#board-title", Static)
    return str(line.render()) if line.display else ""


def same_board(board: Leaderboard, doc: dict[str, Any]) -> None:
    """The board is the export's: order, ratings, intervals, gaps and bands."""
    assert [r.contestant for r in board.rows] == [r["contestant"] for r in doc["rows"]]
    for row, want in zip(board.rows, doc["rows"], strict=True):
        assert row.rating == pytest.approx(want["rating"], abs=1e-6)
        assert row.ci_low == pytest.approx(want["ci_low"], abs=1e-6)
        assert row.ci_high == pytest.approx(want["ci_high"], abs=1e-6)
        assert row.band == want["band"]
        if want["gap_to_next"] is None:
            assert row.gap_to_next is None
        else:
            assert row.gap_to_next == pytest.approx(want["gap_to_next"], abs=1e-6)


def shifts_between(doc: dict[str, Any], other: dict[str, Any]) -> dict[str, int]:
    """Places gained in `doc` over `other`, from the two exports' orders (written out here on its own)."""
    there = [r["contestant"] for r in other["rows"]]
    return {r["contestant"]: there.index(r["contestant"]) - i for i, r in enumerate(doc["rows"])}


async def test_y_toggles_the_controlled_and_the_raw_board_and_its_title(tmp_path: Path) -> None:
    tournament, store = await run_styled(tmp_path / "t")
    app = make_app(tournament, store, start_run=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        assert (
            app.method == "bt" and app.view_key[3] == FEATURES
        )  # style_control opens on the controlled board
        assert app.board_key == app.view_key
        assert board_title(app).startswith("style-controlled (length, markdown) · ▲▼ rank vs raw · y: raw")
        controlled = app.query_one(LeaderboardTable).order()
        await press_and_settle(pilot, "y")
        assert app.view_key[3] == () and app.board_key == app.view_key
        assert board_title(app).startswith("raw · ▲▼ rank vs style-controlled (length, markdown)")
        assert app.board is not None and "style_control" not in app.board.settings
        raw = app.query_one(LeaderboardTable).order()
        assert raw != controlled
        await press_and_settle(pilot, "y")
        assert app.view_key[3] == FEATURES and app.query_one(LeaderboardTable).order() == controlled
        assert app.board is not None and app.board.settings["style_control"]["features"] == list(FEATURES)
    store.close()


async def test_the_two_boards_are_the_exports_and_the_rank_changes_their_difference(tmp_path: Path) -> None:
    folder = tmp_path / "t"
    tournament, store = await run_styled(folder)
    controlled = exported(folder, "0.5", "--style-control")
    raw = exported(folder, "0.5", "--no-style-control", "--method", "bt")
    assert [r["contestant"] for r in controlled["rows"]] != [r["contestant"] for r in raw["rows"]]
    app = make_app(tournament, store, start_run=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        assert app.board is not None
        same_board(app.board, controlled)
        cells = rank_cells(app)
        assert {c: shift for c, (_, shift) in cells.items()} == shifts_between(controlled, raw)
        assert [rank for rank, _ in cells.values()] == [r["rank"] for r in controlled["rows"]]
        assert any(shift for _, shift in cells.values())  # the views disagree: some rank moved
        await press_and_settle(pilot, "y")
        assert app.board is not None
        same_board(app.board, raw)
        assert {c: shift for c, (_, shift) in rank_cells(app).items()} == shifts_between(raw, controlled)
    store.close()


async def test_every_threshold_key_keeps_the_view_and_ranks_as_the_export(tmp_path: Path) -> None:
    folder = tmp_path / "t"
    tournament, store = await run_styled(folder)
    labels = {1.0: "1.0", 0.9: "0.9", 0.75: "0.75", 0.5: "0.5", "none": "none"}
    app = make_app(tournament, store, start_run=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        for view, extra in ((FEATURES, ("--style-control",)), ((), ("--no-style-control", "--method", "bt"))):
            if app.view_key[3] != view:
                await press_and_settle(pilot, "y")
            for key, threshold in enumerate(THRESHOLDS, start=1):
                await press_and_settle(pilot, str(key))
                assert app.view_key[:2] == (threshold, "bt") and app.view_key[3] == view
                assert app.board is not None and app.board_key == app.view_key
                doc = exported(folder, labels[threshold], *extra)
                same_board(app.board, doc)
                other = exported(
                    folder,
                    labels[threshold],
                    *(("--no-style-control", "--method", "bt") if view else ("--style-control",)),
                )
                shown = {c: shift for c, (_, shift) in rank_cells(app).items()}
                assert shown == shifts_between(doc, other)
                assert ("style-controlled (length" if view else "raw · ") in board_title(app)
    store.close()


async def test_a_scope_keeps_the_view_and_ranks_as_the_export(tmp_path: Path) -> None:
    folder = tmp_path / "t"
    tournament, store = await run_styled(folder)
    app = make_app(tournament, store, start_run=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        app.set_scope_judge("j2")
        await settle(pilot)
        assert app.view_key[3] == FEATURES and app.board is not None and app.board_key == app.view_key
        same_board(app.board, exported(folder, "0.5", "--style-control", "--judge", "j2"))
        await press_and_settle(pilot, "y")
        assert app.board is not None and app.view_key[2].judge == "j2"
        same_board(
            app.board,
            exported(folder, "0.5", "--no-style-control", "--method", "bt", "--judge", "j2"),
        )
    store.close()


async def test_the_coefficients_are_in_the_diagnostics_as_the_export_reports_them(tmp_path: Path) -> None:
    folder = tmp_path / "t"
    tournament, store = await run_styled(folder)
    want = exported(folder, "0.5", "--style-control")["settings"]["style_control"]
    app = make_app(tournament, store, start_run=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await press_and_settle(pilot, "y")  # also from the raw board: the controlled board's coefficients
        await press_and_settle(pilot, "d")
        app.query_one("#diag-style", Static).scroll_visible(animate=False)
        await settle(pilot)
        shown = "\n".join(screen_text(app))
        texts = [c["text"] for c in want["coefficients"]]
        assert texts[0].startswith("+1 SD of relative length (tokens): +")
        section = str(app.query_one("#diag-style", Static).render())
        assert all(text in section for text in texts)
        assert "counts from the responses' texts (tokens: characters / 4)" in section
        assert "Style control: Elo points per standard deviation" in shown
        assert texts[0] in shown
        length = want["coefficients"][0]
        low, high = length["interval"]
        assert f"length {length['elo_per_sd']:+.0f} [{low:+.0f}, {high:+.0f}]" in board_title(app)
    store.close()


async def test_80x24_keeps_the_essentials_with_the_rank_changes(tmp_path: Path) -> None:
    tournament, store = await run_styled(tmp_path / "t")
    app = make_app(tournament, store, start_run=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        lines = screen_text(app)
        assert len(lines) == 24 and all(len(line) <= 80 for line in lines)
        title = next(line for line in lines if "style-controlled (length, markdown)" in line)
        assert "▲▼ rank vs raw · y: raw" in title
        header = next(line for line in lines if "contestant" in line and "rating" in line)
        assert all(f" {name} " in f" {header} " for name in HEADERS)
        board = [line for line in lines if re.match(r"^ +\d+(?:[▲▼]\d+| =) ", line)]
        assert len(board) == len(WRITERS)
        shown = "\n".join(board)
        assert all(f" {c} " in shown for c in WRITERS)  # each name whole (13 characters at most)
        for row in board:
            assert "–" in row  # the interval
            assert any(band in row for band in ("tied", "moderate", "strong", "—"))
        assert lines[-1].strip().startswith("? help  q quit")
    store.close()


def test_rank_changes_of_two_digits_fit_80_columns() -> None:
    for contestants in (6, 12, 99):
        width = rank_column_width(contestants, compared=True)
        assert width == (3 if contestants < 10 else 5)  # "8▼7", "12▲10"
        for longest in (6, 14, 26, 40):
            columns = fit_columns(80 - 2, longest, width)
            assert [n for n, _ in columns if n in HEADERS] == list(HEADERS)
            assert sum(w + 2 for _, w in columns) <= 78
            assert dict(columns)["contestant"] >= min(longest, MIN_CONTESTANT_COMPARED)
    assert rank_column_width(120, compared=False) == 3


async def test_without_style_control_y_controls_length_and_markdown_as_the_export(tmp_path: Path) -> None:
    folder = tmp_path / "plain"
    tournament, store = await run_styled(folder, style_control=False)
    controlled = exported(folder, "0.5", "--style-control")
    raw = exported(folder, "0.5", "--method", "bt")
    app = make_app(tournament, store, start_run=False)
    notes: list[str] = []
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        assert app.method == "elo" and board_title(app) == ""  # nothing changes until y is pressed
        assert all(shift is None for _, shift in rank_cells(app).values())
        shown: list[tuple[str, dict]] = []
        app.notify = lambda message, **kw: (notes.append(message), shown.append((message, kw)))  # type: ignore[method-assign,assignment,func-returns-value]
        await press_and_settle(pilot, "y")  # from Elo: the controlled Bradley–Terry board
        assert app.method == "bt" and app.view_key[3] == FEATURES
        assert app.board is not None
        same_board(app.board, controlled)
        assert {c: s for c, (_, s) in rank_cells(app).items()} == shifts_between(controlled, raw)
        assert any('style_control = ["length", "markdown"]' in n and "tournament.toml" in n for n in notes)
        # the how-to toast is short (the line above the board says the rest): a few lines at 80 columns, briefly
        how = [(m, kw) for m, kw in shown if "style_control" in m]
        assert how and all(len(m) <= 100 and kw.get("timeout", 0) <= 8 for m, kw in how), how
        assert any("style control is a Bradley–Terry fit" in n for n in notes)
        await press_and_settle(pilot, "y")
        assert app.board is not None and app.view_key[3] == ()
        same_board(app.board, raw)
        assert {c: s for c, (_, s) in rank_cells(app).items()} == shifts_between(raw, controlled)
        await press_and_settle(pilot, "m")  # Elo: never controlled, and the line says so
        assert app.view_key[1:] == ("elo", app.scope, ()) and board_title(app).startswith("Elo: raw")
        assert all(shift is None for _, shift in rank_cells(app).values())
    store.close()


async def test_an_elo_file_with_style_control_opens_on_elo(tmp_path: Path) -> None:
    tournament, store = await run_styled(tmp_path / "t", method="elo")
    app = make_app(tournament, store, start_run=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        assert app.view_key[1:] == ("elo", app.scope, ())
        assert board_title(app).startswith("Elo: raw · style control is a Bradley–Terry fit")
        await press_and_settle(pilot, "y")
        assert app.view_key[1] == "bt" and app.view_key[3] == FEATURES
    store.close()


def test_rank_shifts_are_the_difference_of_the_two_orders() -> None:
    from types import SimpleNamespace

    def board(*order: str, unranked: str = "") -> Any:
        rows = [SimpleNamespace(contestant=c, rank=i + 1) for i, c in enumerate(order)]
        rows += [SimpleNamespace(contestant=unranked, rank=None)] if unranked else []
        return SimpleNamespace(rows=rows)

    here, there = board("a", "b", "c", "d", unranked="e"), board("d", "c", "b", "a", unranked="e")
    assert rank_shifts(here, there) == {"a": 3, "b": 1, "c": -1, "d": -3}  # e is ranked in neither
    assert rank_shifts(here, here) == dict.fromkeys("abcd", 0)
    # b is ranked here only: a and c are each one place lower here than there
    assert rank_shifts(board("b", "a", "c"), board("a", "c", unranked="b")) == {"a": -1, "c": -1}


async def test_a_controlled_board_shows_its_point_fit_first_then_its_intervals(tmp_path: Path) -> None:
    from elotui.tui.messages import LeaderboardComputed

    tournament, store = await run_styled(tmp_path / "t")
    app = make_app(tournament, store, start_run=False)
    seen: list[LeaderboardComputed] = []

    def hook(message: object) -> None:
        if isinstance(message, LeaderboardComputed):
            seen.append(message)

    async with app.run_test(size=(160, 45), message_hook=hook) as pilot:
        await settle(pilot)
        key = app.view_key
        raw_key = (*key[:3], ())
        order = [(m.key, m.preview) for m in seen if m.key in (key, raw_key)]
        # the point fit at once, then the raw board (the rank changes), then the controlled board's bootstrap
        assert order[:3] == [(key, True), (raw_key, False), (key, False)]
        preview, full = (
            next(m.board for m in seen if m.key == key and m.preview is p) for p in (True, False)
        )
        assert [r.contestant for r in preview.rows] == [r.contestant for r in full.rows]
        assert [r.rating for r in preview.rows] == pytest.approx([r.rating for r in full.rows], abs=1e-9)
        assert app.board is full and not app.board_preview
        # what the point fit looks like while its rounds run: no interval, order or band claimed yet
        app._show_board(key, preview, -1, preview=True)  # (read at once: the status timer shows the full one)
        table = app.query_one(LeaderboardTable)
        columns = [c.key.value for c in table.ordered_columns]
        first = [table.get_cell_at((0, i)).plain for i in range(len(columns))]
        cells = dict(zip(columns, first, strict=True))
        assert cells["interval"] == cells["order"] == cells["band"] == "…"
        assert cells["rating"] == f"{full.rows[0].rating:.0f}"
        assert "[…]" in board_title(app)
        counts = str(app.query_one("#counts", Static).render())
        assert "interval: being computed (the order and ratings are final)" in counts
    store.close()


async def test_e_exports_the_view_on_screen_as_elotui_export_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "t"
    tournament, store = await run_styled(folder)
    args = ["export", str(folder / "tournament.toml"), "--store", str(folder / "store.sqlite")]
    for name, extra in (
        ("controlled.csv", ["--style-control"]),
        ("raw.csv", ["--no-style-control", "--method", "bt"]),
    ):
        assert main([*args, *extra, "-o", str(tmp_path / name)]) == 0
    monkeypatch.chdir(tmp_path)
    app = make_app(tournament, store, start_run=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await press_and_settle(pilot, "e")
        await press_and_settle(pilot, "y", "e")
        key = app.view_key
        preview = app.ranking.preview((*key[:3], FEATURES), app.ranking.snapshot(), app.ranking.version)
        app._show_board((*key[:3], FEATURES), preview, -1, preview=True)
        app.action_export()  # a point fit: its intervals are not there to export
        await pilot.pause()
        messages = [n.message for n in app._notifications]
    slug = tournament.slug
    assert (tmp_path / f"{slug}-ranking-t0.5-bt-style.csv").read_text(encoding="utf-8") == (
        tmp_path / "controlled.csv"
    ).read_text(encoding="utf-8")
    assert (tmp_path / f"{slug}-ranking-t0.5-bt.csv").read_text(encoding="utf-8") == (
        tmp_path / "raw.csv"
    ).read_text(encoding="utf-8")
    assert "the intervals are still being computed: export once they show" in messages
    assert len(list(tmp_path.glob(f"{slug}-ranking-*.csv"))) == 2
    store.close()


def test_the_title_and_the_diagnostics_say_when_responses_have_no_style_counts() -> None:
    from types import SimpleNamespace

    from elotui.tui.state.live_ranking import ViewScope
    from elotui.tui.style_view import StyleViews, coefficient_lines, title

    length = {"feature": "tokens", "elo_per_sd": 38.2, "interval": [31.0, 45.4], "text": "+1 SD of …: +38"}
    info = {
        "features": ["length"],
        "source": "style.jsonl",
        "missing_responses": 12,
        "coefficients": [length],
    }
    board: Any = SimpleNamespace(settings={"style_control": info})
    key = (0.5, "bt", ViewScope(), ("length",))
    shown = title(key, StyleViews.of(["length"]), board)
    assert shown is not None
    assert shown.plain == (
        "style-controlled (length) · ▲▼ rank vs raw · y: raw · ⚠ 12 game sides without style counts"
        " · Elo/SD: length +38 [+31, +45]"
    )
    lines = coefficient_lines(info, "threshold 0.5").plain
    assert "+1 SD of …: +38" in lines and "12 game sides without style counts (counted as 0)" in lines
    assert (
        title(key, StyleViews.of([]), None) is not None
    )  # asked for with y: said even before it is computed
    assert title((0.5, "bt", ViewScope(), ()), StyleViews.of([]), None) is None  # never asked for: nothing
