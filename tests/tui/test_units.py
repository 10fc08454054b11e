"""The TUI's plain parts: the sanitiser, the theme files, pair summaries, charts' arithmetic."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.text import Text

from elotui.rating.pair_summary import (
    CONSISTENT,
    INCONCLUSIVE,
    ONE_ORDER,
    PENDING,
    summarise_pairs,
)
from elotui.themes import APP_VARIABLE_DEFAULTS, ThemeError, bundled_themes_dir, load_theme_file, load_themes
from elotui.tui.sanitize import clean, literal, one_line
from elotui.tui.widgets.charts import histogram_bins, sparkline
from elotui.tui.widgets.status_bar import human_duration, progress_bar


# --- sanitiser -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("[bold]x[/bold]", "[bold]x[/bold]"),
        ("a\x1b[31mred\x1b[0m b", "ared b"),
        ("title\x1b]0;pwned\x07 ok", "title ok"),
        ("bell\x07 nul\x00 del\x7f c1\x9b2J", "bell nul del c1"),
        ("crlf\r\nline\rnext", "crlf\nline\nnext"),
        ("tab\tstop", "tab    stop"),
        ("bidi \u202eevil\u202c", "bidi evil"),
        ("emoji 👩\u200d💻 and accents é", "emoji 👩\u200d💻 and accents é"),
        (None, ""),
    ],
)
def test_clean(raw: str | None, shown: str) -> None:
    assert clean(raw) == shown


def test_literal_is_never_markup() -> None:
    text = literal("[bold red]alarm[/] [link=x]y[/link]")
    assert isinstance(text, Text)
    assert text.plain == "[bold red]alarm[/] [link=x]y[/link]"
    assert text.spans == []


def test_one_line() -> None:
    assert one_line("a\n b\tc", 20) == "a b c"
    assert one_line("abcdefgh", 5) == "abcd…"


# --- themes ---------------------------------------------------------------------------------------------------
def test_three_bundled_themes_with_every_variable() -> None:
    folder = bundled_themes_dir()
    assert folder is not None
    themes, problems = load_themes(None)
    assert problems == []
    assert {"elotui-dark", "elotui-light", "elotui-contrast"} <= set(themes)
    assert themes["elotui-light"].dark is False
    for spec in themes.values():
        assert set(spec.variables) == set(APP_VARIABLE_DEFAULTS)  # bands and verdicts defined by each theme


def test_high_contrast_theme_uses_the_okabe_ito_palette() -> None:
    themes, _ = load_themes(None)
    okabe_ito = {
        "#e69f00",
        "#56b4e9",
        "#009e73",
        "#f0e442",
        "#0072b2",
        "#d55e00",
        "#cc79a7",
        "#000000",
        "#ffffff",
    }
    spec = themes["elotui-contrast"]
    for name in ("band-moderate", "band-strong", "verdict-first", "verdict-second", "verdict-invalid"):
        assert spec.variables[name].lower() in okabe_ito
    assert spec.colors["background"] == "#000000" and spec.colors["foreground"] == "#ffffff"


def test_user_themes_load_and_broken_ones_are_reported(tmp_path: Path) -> None:
    (tmp_path / "mine.json").write_text(
        json.dumps(
            {"name": "mine", "colors": {"primary": "#123456"}, "variables": {"band-strong": "#00ff00"}}
        )
    )
    (tmp_path / "broken.toml").write_text("name = 'broken'\n[colors\nprimary = 1")
    (tmp_path / "bad-colour.toml").write_text("name = 'bad'\n[colors]\nprimary = 'not a colour!'")
    (tmp_path / "bad-var.toml").write_text(
        "name = 'badvar'\n[colors]\nprimary = '#fff'\n[variables]\nband-x = '#fff'"
    )
    themes, problems = load_themes(tmp_path)
    assert "mine" in themes and themes["mine"].app_variables()["band-strong"] == "#00ff00"
    assert themes["mine"].app_variables()["band-tied"] == APP_VARIABLE_DEFAULTS["band-tied"]
    assert len(problems) == 3
    assert any("broken.toml" in p and "not valid TOML" in p for p in problems)
    assert any("bad-colour.toml" in p and "not a colour" in p for p in problems)
    assert any("bad-var.toml" in p and "band-x" in p for p in problems)


def test_theme_needs_a_primary_colour(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text("name = 't'\n[colors]\nbackground = '#000'")
    with pytest.raises(ThemeError, match="primary is required"):
        load_theme_file(path)


# --- pair summaries -------------------------------------------------------------------------------------------
def row(
    prompt: str,
    first: str,
    second: str,
    judge: str,
    winner: str | None,
    status: str = "ok",
    condition: str = "clean",
) -> tuple[str, str, str, str, str, int, str, str | None]:
    return (prompt, first, second, judge, condition, 0, status, winner)


def test_pair_classes_by_hand() -> None:
    rows = [
        # p1 A/B: j1 consistent (A both orders), j2 flips (first slot both times) -> position bias, 1 flip of 2
        row("p1", "A", "B", "j1", "first"),
        row("p1", "B", "A", "j1", "second"),
        row("p1", "A", "B", "j2", "first"),
        row("p1", "B", "A", "j2", "first"),
        # p1 A/C: j1 consistent, j2 tie in one order -> inconclusive
        row("p1", "A", "C", "j1", "second"),
        row("p1", "C", "A", "j1", "first"),
        row("p1", "A", "C", "j2", "tie"),
        row("p1", "C", "A", "j2", "first"),
        # p1 B/C: both judges consistent on C
        row("p1", "B", "C", "j1", "second"),
        row("p1", "C", "B", "j1", "first"),
        row("p1", "B", "C", "j2", "second"),
        row("p1", "C", "B", "j2", "first"),
        # p2 A/B: BA not judged yet
        row("p2", "A", "B", "j1", "first"),
        row("p2", "B", "A", "j1", None, "missing"),
        # p2 A/C: planned in one order only
        row("p2", "A", "C", "j1", "first"),
    ]
    by_key = {(s.prompt, s.a, s.b): s for s in summarise_pairs(rows, ["A", "B", "C"])}
    ab = by_key[("p1", "A", "B")]
    # j1 consistent, j2 flipped: 1·1·0, a tie between classes -> inconclusive by majority; any_flip still says so
    assert (ab.klass, ab.counts, ab.units, ab.any_flip, ab.flipped) == (
        INCONCLUSIVE,
        "1·1·0",
        2,
        True,
        {"j2"},
    )
    # j1 prefers A (2-0); j2 is even (1-1, its flip) -> a tie preference: 1 of 2 judges agree
    assert ab.agreement == 0.5 and ab.disagreement and ab.preference is None
    ac = by_key[("p1", "A", "C")]
    assert (ac.klass, ac.units, ac.flips) == (INCONCLUSIVE, 2, 0)
    assert ac.preference == "C" and ac.agreement == 1.0  # j1: C 2-0; j2: C 1-0 (+ a tie)
    bc = by_key[("p1", "B", "C")]
    assert (bc.klass, bc.preference, bc.agreement, bc.verdicts) == (CONSISTENT, "C", 1.0, 4)
    assert by_key[("p2", "A", "B")].klass == PENDING
    assert by_key[("p2", "A", "C")].klass == ONE_ORDER


# --- drawing arithmetic -----------------------------------------------------------------------------------------
def test_sparkline_and_histogram() -> None:
    assert sparkline([0, 7, 3.5], 0, 7) == "▁█▅"
    assert sparkline([5, 5], 5, 5) == "▁▁"
    assert histogram_bins([-1.0, -0.95, 0.0, 0.99, 1.0, float("nan")], -1, 1, 4) == [2, 0, 1, 2]


def test_progress_bar_and_durations() -> None:
    assert progress_bar(0, 10, 8) == " " * 8
    assert progress_bar(10, 10, 8) == "█" * 8
    assert progress_bar(1, 16, 8) == "▌" + " " * 7
    assert human_duration(59) == "59s" and human_duration(61) == "1m01s" and human_duration(3720) == "1h02m"
    assert human_duration(None) == "—"


# --- search ------------------------------------------------------------------------------------------------------
def test_search_terms_and_typing_forward_gives_the_same_matches_as_a_fresh_search() -> None:
    from elotui.rating.pair_summary import PairSummary
    from elotui.tui.state.pair_query import SearchIndex, words_of

    assert words_of('  Time "Management  Skills" tips ') == ("time", "management skills", "tips")
    assert words_of('"unclosed phr') == ("unclosed phr",)
    assert words_of('""  ') == ()
    pairs = [PairSummary(prompt=f"p{i}", a="A", b="B") for i in range(6)]
    prompts = {
        f"p{i}": f"Question {i} about {'cats' if i % 2 else 'dogs'} and Time management" for i in range(6)
    }
    responses = {(f"p{i}", c): f"{c} says {'purr' if i % 3 else 'woof'}" for i in range(6) for c in "AB"}
    reasoning = {s.key: f"judge j{int(s.prompt[1:]) % 4} prefers A" for s in pairs}
    typed = SearchIndex(pairs, prompts, responses, reasoning)
    query = '"time management" cats purr j1'
    for n in range(1, len(query) + 1):
        fresh = SearchIndex(pairs, prompts, responses, reasoning).search(query[:n])
        assert typed.search(query[:n]) == fresh, query[:n]
    assert typed.search(query) == {"p1\x1fA\x1fB", "p5\x1fA\x1fB"}
    assert typed.search("") is None
