"""The pairs pane as a reviewer uses it, on the vicuna80 sample (800 pairs, 5 judges, 8,000 recorded verdicts
with reasoning): majority classes, search, sorts, filters and the review export, each checked against an
independent count from the sample's verdict log."""

from __future__ import annotations

import csv
import gzip
import json
import re
import threading
from collections import Counter, defaultdict
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Checkbox, DataTable, Input, Select

from elotui.cli import main
from elotui.session import TournamentSession
from elotui.store import Store
from elotui.tournament.model import load_tournament
from elotui.tui.launch import make_app
from elotui.tui.screens import pairs as pairs_screen
from elotui.tui.screens.pairs import PairsPane
from elotui.tui.state.pair_query import PairQuery, SortContext, select_pairs, sort_keys
from tests.samples.sample_paths import SAMPLES
from tests.tui.conftest import settle

TOURNAMENT = SAMPLES / "vicuna80" / "tournament.toml"
ORDER = ["gpt-4", "gpt-3.5", "claude", "bard", "vicuna-13b"]
BIG = (160, 60)


def _log() -> list[dict[str, object]]:
    with gzip.open(SAMPLES / "vicuna80" / "verdicts.jsonl.gz", "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def _pair(first: str, second: str) -> tuple[str, str]:
    return (first, second) if ORDER.index(first) < ORDER.index(second) else (second, first)


def independent_units() -> dict[tuple[str, str, str], Counter[str]]:
    """(prompt, a, b) -> how many of its judges' two-order units are consistent / position bias / inconclusive."""
    seen: dict[tuple[str, str, str, str], dict[bool, str | None]] = defaultdict(dict)
    for r in _log():
        a, b = _pair(str(r["first"]), str(r["second"]))
        ab = r["first"] == a
        won = None
        if r["status"] == "ok" and r["winner"] in ("first", "second"):
            won = "slot1" if r["winner"] == "first" else "slot2"
            won = f"{won}:{r['first'] if r['winner'] == 'first' else r['second']}"
        seen[(str(r["prompt"]), a, b, str(r["judge"]))][ab] = won
    out: dict[tuple[str, str, str], Counter[str]] = defaultdict(Counter)
    for (prompt, a, b, _), orders in seen.items():
        w1, w2 = orders[True], orders[False]
        if w1 is None or w2 is None:
            kind = "inconclusive"
        elif w1.split(":")[0] == w2.split(":")[0]:
            kind = "position bias"  # the same slot won both orders
        else:
            kind = "consistent"  # the same contestant won both
        out[(prompt, a, b)][kind] += 1
    return out


def majority(c: Counter[str]) -> str:
    ranked = sorted(((c[k], k) for k in ("consistent", "position bias", "inconclusive")), reverse=True)
    return "inconclusive" if ranked[0][0] == ranked[1][0] else ranked[0][1]


@pytest.fixture(scope="module")
def store_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("vicuna80-pairs") / "store.sqlite"
    assert main(["run", str(TOURNAMENT), "--headless", "--no-delay", "--store", str(path)]) == 0
    return path


@pytest.fixture(scope="module")
def session(store_path: Path) -> TournamentSession:
    t = load_tournament(TOURNAMENT)
    return TournamentSession(t, Store.open_for(t, store_path))


def test_majority_classes_equal_an_independent_count(session: TournamentSession) -> None:
    units = independent_units()
    summaries = session.pair_summaries()
    assert len(summaries) == len(units) == 800
    for s in summaries:
        c = units[(s.prompt, s.a, s.b)]
        assert (s.consistent, s.flips, s.inconclusive) == (
            c["consistent"],
            c["position bias"],
            c["inconclusive"],
        )
        assert s.klass == majority(c)
        assert s.any_flip == (c["position bias"] > 0)
    by_class = Counter(s.klass for s in summaries)
    assert by_class["position bias"] < sum(1 for s in summaries if s.any_flip)  # the majority filter filters


def test_diagnose_json_has_the_same_pair_table(store_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diagnose", str(TOURNAMENT), "--store", str(store_path), "--format", "json"]) == 0
    pairs = json.loads(capsys.readouterr().out)["pairs"]
    units = independent_units()
    assert len(pairs) == 800
    for p in pairs:
        c = units[(p["prompt"], p["a"], p["b"])]
        assert p["class"] == majority(c)
        assert (p["consistent"], p["position_bias"], p["inconclusive"]) == (
            c["consistent"],
            c["position bias"],
            c["inconclusive"],
        )


def _ctx(session: TournamentSession) -> SortContext:
    t = session.tournament
    ratings = session.leaderboard().ratings()
    lengths = {k: len(v or "") for k, v in session.response_texts().items()}
    return SortContext(
        {p: i for i, p in enumerate(t.prompt_ids)},
        {c: i for i, c in enumerate(t.contestant_ids)},
        ratings,
        lengths,
    )


def test_each_sort_orders_as_stated(session: TournamentSession) -> None:
    pairs, ctx, cats = session.pair_summaries(), _ctx(session), session.tournament.categories
    by = {
        s: select_pairs(pairs, PairQuery(sort=s), cats, ctx)
        for s in ("prompt", "disagreement", "flips", "rating gap", "length difference")
    }
    prompt_index = [ctx.prompt_order[s.prompt] for s in by["prompt"]]
    assert prompt_index == sorted(prompt_index)
    splits = [s.split for s in by["disagreement"]]
    assert splits == sorted(splits, reverse=True) and splits[0] == 0.5  # 2 judges against 2 (one tied)
    flips = [s.flips for s in by["flips"]]
    assert flips == sorted(flips, reverse=True)
    gaps = [abs(ctx.ratings[s.a] - ctx.ratings[s.b]) for s in by["rating gap"]]
    assert gaps == sorted(gaps)
    diffs = [
        abs(ctx.lengths[(s.prompt, s.a)] - ctx.lengths[(s.prompt, s.b)]) for s in by["length difference"]
    ]
    assert diffs == sorted(diffs, reverse=True)
    with pytest.raises(ValueError):
        sort_keys(pairs, "alphabetical", ctx)


def test_each_filter_count_equals_an_independent_count(session: TournamentSession) -> None:
    pairs, ctx, cats = session.pair_summaries(), _ctx(session), session.tournament.categories
    units = independent_units()
    log = _log()
    prefs: dict[tuple[str, str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for r in log:
        if r["status"] != "ok":
            continue
        a, b = _pair(str(r["first"]), str(r["second"]))
        won = r["first"] if r["winner"] == "first" else r["second"] if r["winner"] == "second" else None
        prefs[(str(r["prompt"]), a, b)][str(r["judge"])] += 0 if won is None else (1 if won == a else -1)
    sides = {
        k: (sum(1 for v in d.values() if v > 0), sum(1 for v in d.values() if v < 0), len(d))
        for k, d in prefs.items()
    }

    def count(q: PairQuery) -> int:
        return len(select_pairs(pairs, q, cats, ctx))

    assert count(PairQuery(any_flip=True)) == sum(1 for c in units.values() if c["position bias"])
    assert count(PairQuery(judges_split=True)) == sum(1 for a, b, _ in sides.values() if a and b)
    lone = sum(
        1
        for d in prefs.values()
        if len(d) >= 3
        and len(Counter((v > 0) - (v < 0) for v in d.values())) == 2
        and min(Counter((v > 0) - (v < 0) for v in d.values()).values()) == 1
    )
    assert count(PairQuery(dissent=True)) == lone
    for klass in ("consistent", "position bias", "inconclusive"):
        assert count(PairQuery(klass=klass)) == sum(1 for c in units.values() if majority(c) == klass)
    for judge in ORDER:
        flipped = 0
        seen: dict[tuple[str, str, str], dict[bool, str | None]] = defaultdict(dict)
        for r in log:
            if r["judge"] != judge:
                continue
            a, b = _pair(str(r["first"]), str(r["second"]))
            seen[(str(r["prompt"]), a, b)][r["first"] == a] = r["winner"] if r["status"] == "ok" else None
        flipped = sum(1 for o in seen.values() if o[True] in ("first", "second") and o[True] == o[False])
        assert count(PairQuery(flipped_judge=judge)) == flipped, judge
    assert count(PairQuery(contestant="bard")) == 80 * 4
    assert count(PairQuery(category="math")) == 3 * 10
    both = PairQuery(category="math", contestant="bard", any_flip=True)
    assert count(both) == sum(
        1 for k, c in units.items() if cats[k[0]] == "math" and "bard" in k[1:] and c["position bias"]
    )


def _texts_of_pairs(session: TournamentSession) -> dict[str, str]:
    """Independently: each pair's prompt, responses and reasoning, lowercased, from the sample's files."""
    t = session.tournament
    answers = {
        (r["prompt_id"], r["contestant"]): r["response"]
        for r in map(
            json.loads, (SAMPLES / "vicuna80" / "answers.jsonl").read_text(encoding="utf-8").splitlines()
        )
    }
    reasoning: dict[str, list[str]] = defaultdict(list)
    for r in _log():
        a, b = _pair(str(r["first"]), str(r["second"]))
        reasoning[f"{r['prompt']}\x1f{a}\x1f{b}"].append(str(r["reasoning"] or ""))
    out = {}
    for key, texts in reasoning.items():
        prompt, a, b = key.split("\x1f")
        out[key] = "\n".join(
            [t.prompt_texts[prompt], answers[(prompt, a)], answers[(prompt, b)], *texts]
        ).lower()
    return out


def _phrase_of_one_prompt(session: TournamentSession) -> tuple[str, str]:
    """Three words in a row from one prompt's text whose words, searched together, are only in that prompt's pairs."""
    texts = _texts_of_pairs(session)
    t = session.tournament
    for p in t.prompt_ids:
        words = t.prompt_texts[p].lower().split()
        for i in range(len(words) - 2):
            chosen = words[i : i + 3]
            if not all(w.isalpha() for w in chosen):
                continue  # typed key by key below: letters and spaces only
            hits = {k.split("\x1f")[0] for k, text in texts.items() if all(w in text for w in chosen)}
            if hits == {p}:
                return p, " ".join(chosen)
    raise AssertionError("no distinctive phrase")


def _word_of_one_judge(session: TournamentSession) -> tuple[str, set[str]]:
    """A word that appears only in one judge's reasoning (never in a prompt or response), and the pairs it is in."""
    by_judge: dict[str, set[str]] = defaultdict(set)
    pairs_of: dict[str, set[str]] = defaultdict(set)
    for r in _log():
        a, b = _pair(str(r["first"]), str(r["second"]))
        for w in set(re.findall(r"[a-z]{9,}", str(r["reasoning"] or "").lower())):
            by_judge[w].add(str(r["judge"]))
            pairs_of[w].add(f"{r['prompt']}\x1f{a}\x1f{b}")
    other = "\n".join(
        [
            *(t.lower() for t in session.tournament.prompt_texts.values()),
            *((v or "").lower() for v in session.response_texts().values()),
        ]
    )
    for w in sorted(by_judge):
        if len(by_judge[w]) == 1 and 3 <= len(pairs_of[w]) <= 40 and w not in other:
            return w, pairs_of[w]
    raise AssertionError("no such word")


async def _pairs_pane(pilot: Pilot[object]) -> tuple[PairsPane, DataTable[object]]:
    """The app settled, then the pairs pane opened (`v`) and loaded: the pane and its table."""
    await settle(pilot)
    await pilot.press("v")
    await settle(pilot)
    return pilot.app.query_one(PairsPane), pilot.app.query_one("#pairs-table", DataTable)


async def test_search_narrows_to_one_prompt_and_finds_reasoning_words(session: TournamentSession) -> None:
    prompt, phrase = _phrase_of_one_prompt(session)
    word, pairs_with_word = _word_of_one_judge(session)
    app = make_app(session.tournament, session.store, start_run=False)
    async with app.run_test(size=BIG) as pilot:
        pane, table = await _pairs_pane(pilot)
        assert (
            len(pane.shown_pairs) == 800 and table.row_count == 200
        )  # a window of the list, grown on demand
        table.focus()
        table.move_cursor(row=195)
        await settle(pilot)
        assert table.row_count == 400  # the cursor neared the end: the next rows came in
        await pilot.press("slash")
        assert app.focused is app.query_one("#f-search", Input)
        await pilot.press(
            *("space" if ch == " " else ch for ch in phrase.upper())
        )  # case-insensitive, key by key
        assert app.query_one("#f-search", Input).value == phrase.upper()
        await settle(pilot)
        assert {s.prompt for s in pane.shown_pairs} == {prompt} and table.row_count == 10
        app.query_one("#f-search", Input).value = '"zz no such phrase zz"'
        await settle(pilot)
        assert table.row_count == 0
        app.query_one("#f-search", Input).value = word
        await settle(pilot)
        assert {s.key for s in pane.shown_pairs} == pairs_with_word
        assert f"{len(pairs_with_word)} of 800 pairs" in str(app.query_one("#pairs-count").render())
        await pilot.press("escape")  # (focus is in the box) Escape leaves it and keeps the search
        assert app.focused is table and app.query_one("#f-search", Input).value == word
        await pilot.press("slash")
        await pilot.press("enter")  # back to the list; the first match opens
        await pilot.press("down", "up")
        await settle(pilot)
        await pilot.press("n")
        await pilot.pause()
        detail = app.query_one("#pair-detail")
        current = detail.query(".current-match")
        assert len(current) == 1
        assert word in current.first().content.plain.lower()  # type: ignore[attr-defined]
        spans = [sp for sp in current.first().content.spans if "reverse" in str(sp.style)]  # type: ignore[attr-defined]
        assert spans  # the word is highlighted


async def test_filters_show_their_counts_and_the_review_export_writes_the_list(
    session: TournamentSession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    app = make_app(session.tournament, session.store, start_run=False)
    async with app.run_test(size=BIG) as pilot:
        pane, _ = await _pairs_pane(pilot)
        split = sum(1 for s in session.pair_summaries() if s.judges_split)
        assert str(app.query_one("#f-split", Checkbox).label) == f"judges split ({split})"
        app.query_one("#f-split", Checkbox).value = True
        app.query_one("#f-category", Select).value = "coding"
        await settle(pilot)
        shown = list(pane.shown_pairs)
        assert shown and all(
            s.judges_split and session.tournament.categories[s.prompt] == "coding" for s in shown
        )
        await pilot.press("o")  # sort: most even split first
        await settle(pilot)
        assert pane.sort == "disagreement"
        app.query_one("#pairs-table", DataTable).focus()
        await pilot.press("x")
        await pilot.pause()
        await pilot.press("X")
        await pilot.pause()
    (written,) = tmp_path.glob("*.csv")
    rows = list(csv.DictReader(written.open(encoding="utf-8")))
    assert [(r["prompt"], r["a"], r["b"]) for r in rows] == [(s.prompt, s.a, s.b) for s in pane.shown_pairs]
    assert {r["category"] for r in rows} == {"coding"}
    doc = json.loads(next(tmp_path.glob("*.json")).read_text(encoding="utf-8"))
    assert len(doc["pairs"]) == len(rows) and "judges split" in doc["description"]


async def test_the_list_is_made_in_a_worker_and_requests_made_meanwhile_collapse(
    session: TournamentSession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While a list is being made (held here), the event loop keeps handling keys, the count says the list is
    being made, an export is refused (the list does not match its filters yet), and the changes made meanwhile
    are made as one list after it: two lists in all, the last for the final filters."""
    monkeypatch.chdir(tmp_path)
    gate, made = threading.Event(), []
    real = pairs_screen.select_pairs

    def held(pairs, q, *args):  # type: ignore[no-untyped-def]
        made.append(q)
        assert gate.wait(20)
        return real(pairs, q, *args)

    app = make_app(session.tournament, session.store, start_run=False)
    async with app.run_test(size=BIG) as pilot:
        pane, table = await _pairs_pane(pilot)
        table.focus()
        monkeypatch.setattr(pairs_screen, "select_pairs", held)
        monkeypatch.setattr(pairs_screen, "WORKER_FROM", 0)  # 800 pairs would be listed at once
        app.query_one("#f-flip", Checkbox).value = True
        await pilot.pause()
        assert not pane.settled and "filtering…" in str(app.query_one("#pairs-count").render())
        app.query_one("#f-category", Select).value = "coding"
        await pilot.press("o")  # a key, handled at once: the sort changes (and asks for a list)
        await pilot.pause()
        assert pane.sort == "disagreement" and len(made) == 1
        await pilot.press("x")
        await pilot.pause()
        assert not list(tmp_path.glob("*.csv"))
        gate.set()
        await settle(pilot)
        assert pane.settled
        assert made == [
            PairQuery(any_flip=True),
            PairQuery(any_flip=True, category="coding", sort="disagreement"),
        ]
        want = real(session.pair_summaries(), made[-1], session.tournament.categories, _ctx(session))
        assert [s.key for s in pane.shown_pairs] == [s.key for s in want] and want
        assert table.row_count == min(len(want), 200)
        assert "filtering…" not in str(app.query_one("#pairs-count").render())
        await pilot.press("x")
        await pilot.pause()
    (written,) = tmp_path.glob("*.csv")
    assert len(list(csv.DictReader(written.open(encoding="utf-8")))) == len(want)
