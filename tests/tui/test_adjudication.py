"""Voting in the pairs pane on the vicuna80 sample (800 pairs, 5 judges, recorded verdicts, a file of human votes):
the keys a reviewer presses (`j`, `a`, `b`, `t`, `u`), what the store then holds, what the screen shows, the queue,
and what the votes feed: `elotui verdicts --judge human`, the human agreement and the human ranking of `diagnose`."""

from __future__ import annotations

import gzip
import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from textual.widgets import Checkbox, DataTable, Select

from elotui.cli import main
from elotui.store import Store
from elotui.tournament.model import load_tournament
from elotui.tui.launch import make_app
from elotui.tui.screens.pairs import PairsPane
from tests.samples.sample_paths import SAMPLES
from tests.tui.conftest import press_and_settle, settle
from tests.tui.small_terminal import screen_text

TOURNAMENT = SAMPLES / "vicuna80" / "tournament.toml"
KEYS = "abtabtabta"  # ten votes; the last one is undone
MEANS = {"a": "first", "b": "second", "t": "tie"}


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("vicuna80-votes") / "judged.sqlite"
    assert main(["run", str(TOURNAMENT), "--headless", "--no-delay", "--store", str(path)]) == 0
    return path


@pytest.fixture
def store_path(judged: Path, tmp_path: Path) -> Path:
    """A copy of the judged store, for one test to vote into."""
    path = tmp_path / "store.sqlite"
    shutil.copy(judged, path)
    return path


def _log(name: str) -> list[dict[str, object]]:
    with gzip.open(SAMPLES / "vicuna80" / name, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def _diagnose(store_path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    assert main(["diagnose", str(TOURNAMENT), "--store", str(store_path), "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


async def _vote_ten(store_path: Path, voter: str) -> tuple[list[tuple[str, str, str, str]], list[str], int]:
    """Open the pairs, jump into the "judges split" queue, vote KEYS, undo the last. Returns the votes meant (prompt,
    first listed, second listed, winner), the screen after, and the queue's length at the start."""
    t = load_tournament(TOURNAMENT)
    with Store.open_for(t, store_path) as store:
        app = make_app(t, store, start_run=False, voter=voter)
        async with app.run_test(size=(160, 60)) as pilot:
            await settle(pilot)
            await press_and_settle(pilot, "v")
            pane = app.query_one(PairsPane)
            app.query_one("#pairs-table", DataTable).focus()
            assert app.query_one("#f-queue", Select).value == "judges split"
            split = str(app.query_one("#f-split", Checkbox).label)
            start = len(pane.queued())
            assert split == f"judges split ({start})"  # the queue is the filter's pairs
            assert start == sum(1 for s in pane.shown_pairs if s.judges_split) > 10
            await press_and_settle(pilot, "j")
            meant = []
            for n, key in enumerate(KEYS, 1):
                s = pane.selected()
                assert s is not None and s.judges_split
                meant.append((s.prompt, s.a, s.b, MEANS[key]))
                await press_and_settle(pilot, key)
                assert len(pane.queued()) == start - n  # one fewer per vote
                after = pane.selected()
                assert after is not None and after.key != s.key and after.judges_split  # on to the next
            await press_and_settle(pilot, "u")
            assert len(pane.queued()) == start - 9
            last = pane.selected()
            assert (
                last is not None and (last.prompt, last.a, last.b) == meant[-1][:3]
            )  # back to the undone pair
            await press_and_settle(pilot, "down")
            await press_and_settle(pilot, "up")
            return meant[:-1], screen_text(app), start


async def test_ten_votes_one_undone_are_stored_and_shown(store_path: Path) -> None:
    meant, screen, start = await _vote_ten(store_path, "alice")
    with Store(store_path) as store:  # a new connection: what was committed
        votes = store.human_votes()
    assert [(v.prompt, v.first, v.second, v.winner) for v in votes] == meant
    assert {v.voter for v in votes} == {"alice"} and {v.shown for v in votes} == {"listed"}
    text = "\n".join(screen)
    assert f"alice · voted 9 · queue {start - 9}" in text
    assert "human votes: none" in text  # the undone pair has no vote left


async def test_the_votes_leave_as_a_verdict_log_and_feed_diagnose(
    store_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _diagnose(store_path, capsys)
    meant, _, _ = await _vote_ten(store_path, "alice")
    assert main(["verdicts", str(TOURNAMENT), "--store", str(store_path), "--judge", "human"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [(r["prompt"], r["first"], r["second"], r["winner"]) for r in lines] == meant
    assert all(r["judge"] == "human" and r["reasoning"].startswith("human vote by alice at ") for r in lines)
    assert main(["verdicts", str(TOURNAMENT), "--store", str(store_path), "--judge", "gpt-4"]) == 0
    one_judge = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert len(one_judge) == 1600 and {r["judge"] for r in one_judge} == {"gpt-4"}
    assert main(["export", str(TOURNAMENT), "--store", str(store_path), "--format", "json"]) == 0
    provenance = json.loads(capsys.readouterr().out)["provenance"]
    assert provenance["store"]["human_votes"] == {"alice": len(meant)}  # the JSON export counts them by voter
    after = _diagnose(store_path, capsys)
    # the human ranking: every vote is used (the file's and the store's)
    assert after["human"]["votes"] == before["human"]["votes"] + len(meant)  # type: ignore[index]
    # each judge's comparisons with the human majority grow by its valid verdicts on the items no file vote covered
    filed = {(r["prompt"], *sorted((r["first"], r["second"]))) for r in _log("human_votes.jsonl.gz")}
    new = {(p, *sorted((a, b))) for p, a, b, _ in meant} - filed
    valid = Counter(
        r["judge"]
        for r in _log("verdicts.jsonl.gz")
        if r["status"] == "ok" and (r["prompt"], *sorted((r["first"], r["second"]))) in new
    )
    for judge, report in after["judges"].items():  # type: ignore[attr-defined]
        grew = report["human"]["compared"] - before["judges"][judge]["human"]["compared"]  # type: ignore[index]
        assert grew == valid[judge]


async def test_a_votes_log_listed_as_reference_counts_each_vote_once(
    store_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    meant, _, _ = await _vote_ten(store_path, "alice")
    assert main(["verdicts", str(TOURNAMENT), "--store", str(store_path), "--judge", "human"]) == 0
    exported = capsys.readouterr().out
    folder = tmp_path / "t"
    shutil.copytree(TOURNAMENT.parent, folder)
    with gzip.open(folder / "human_votes.jsonl.gz", "at", encoding="utf-8") as fh:
        fh.write(exported)  # the stored votes, also in the file
    toml = folder / "tournament.toml"
    t = load_tournament(toml)
    with Store.open_for(t, store_path) as store:
        from elotui.session import TournamentSession

        votes = TournamentSession(t, store).diagnose_inputs().human_votes
    assert votes is not None and len(votes) == 1760 + len(meant)


async def test_watch_reads_the_store_only_and_stores_no_vote(store_path: Path) -> None:
    t = load_tournament(TOURNAMENT)
    with Store.open_for(t, store_path, reader=True) as store:
        app = make_app(t, store, start_run=False, watch=True, voter="alice")
        async with app.run_test(size=(160, 60)) as pilot:
            await settle(pilot)
            await press_and_settle(pilot, "v")
            app.query_one("#pairs-table", DataTable).focus()
            await press_and_settle(pilot, "j", "a")
            text = "\n".join(screen_text(app))
            assert "read-only store: no votes here" in text
            titles = [n.title for n in app._notifications]
            assert "vote not stored" in titles
    with Store(store_path) as store:
        assert store.human_votes() == []


def _human_votes_shown(app: object) -> int:
    import re

    summary = str(app.query_one("#diag-summary").render())  # type: ignore[attr-defined]
    found = re.search(r"(\d+) human votes", summary)
    assert found is not None, summary
    return int(found.group(1))


async def test_the_diagnostics_count_a_vote_as_soon_as_it_is_cast(store_path: Path) -> None:
    t = load_tournament(TOURNAMENT)
    with Store.open_for(t, store_path) as store:
        app = make_app(t, store, start_run=False, voter="bob")
        async with app.run_test(size=(160, 60)) as pilot:
            await settle(pilot)
            await press_and_settle(pilot, "d")
            before = _human_votes_shown(app)
            await press_and_settle(pilot, "v")
            app.query_one("#pairs-table", DataTable).focus()
            await press_and_settle(pilot, "j", "b")
            await press_and_settle(pilot, "d")
            assert _human_votes_shown(app) == before + 1
            await press_and_settle(pilot, "v", "u", "d")
            assert _human_votes_shown(app) == before


async def test_the_vote_keys_are_the_pairs_screens_with_their_help(store_path: Path) -> None:
    from tests.tui.test_help_keys import bound

    t = load_tournament(TOURNAMENT)
    with Store.open_for(t, store_path) as store:
        app = make_app(t, store, start_run=False, voter="bob")
        async with app.run_test(size=(160, 60)) as pilot:
            await settle(pilot)
            everywhere = dict(bound(app))
            await press_and_settle(pilot, "v")
            on_pairs = dict(bound(app))
    for key in ("a", "b", "t", "u", "j"):
        assert on_pairs.get(key) and key not in everywhere, key
    assert "human vote" in on_pairs["a"] and "undo" in on_pairs["u"] and "queue" in on_pairs["j"]


async def test_blind_review_hides_names_and_judges_and_maps_the_vote_back(store_path: Path) -> None:
    import random

    from elotui.tui.screens.blind_review import BlindReviewScreen
    from elotui.tui.widgets.pair_detail import response_shown

    t = load_tournament(TOURNAMENT)
    hidden = [
        *t.contestant_ids,
        *(c.label for c in t.spec.contestants),
        "verdict",
        "reasoning",
        "agreeing",
        "preferred",
        "stability",
    ]
    with Store.open_for(t, store_path) as store:
        app = make_app(t, store, start_run=False, voter="carol")
        async with app.run_test(size=(100, 40)) as pilot:
            await settle(pilot)
            await press_and_settle(pilot, "v")
            pane = app.query_one(PairsPane)
            app.query_one("#pairs-table", DataTable).focus()
            await press_and_settle(pilot, "B")
            screen = app.screen
            assert isinstance(screen, BlindReviewScreen)
            screen.rng = random.Random(7)
            screen._show_next(None)
            shown_first: list[str] = []
            for key in "abab":
                await settle(pilot)
                text = "\n".join(screen_text(app))
                found = [word for word in hidden if word in text]
                assert not found, [line for line in text.splitlines() if any(w in line for w in found)]
                s = screen.pair
                assert s is not None
                first_shown = s.b if screen.swapped else s.a
                shown_first.append(first_shown)
                body = str(screen.query_one("#blind-1").render())
                want = response_shown(pane.session.shown_response(s.prompt, first_shown))
                assert want.split()[:5] == body.split()[2:7]  # "Response 1" then the text shown first
                await press_and_settle(pilot, key)
            await press_and_settle(pilot, "escape")
            assert not isinstance(app.screen, BlindReviewScreen)
        votes = store.human_votes("carol")
    assert len(votes) == 4 and {v.shown for v in votes} == {"listed", "swapped"}  # both orders were drawn
    for v, key, first_shown in zip(votes, "abab", shown_first, strict=True):
        second_shown = v.second if first_shown == v.first else v.first
        better = first_shown if key == "a" else second_shown
        assert {"first": v.first, "second": v.second}[v.winner] == better
