"""Pairs-pane benchmark (a script, not a test): `python -m tests.benchmarks.bench_pairs`.

A store with 100,350 cached verdicts (223 prompts × 10 contestants, every ordered pair, 5 judges: 10,035 pairs),
each with a ~500-character reasoning; prompts ~200 characters and responses ~1,500 (data files). Under Textual's
Pilot (the real app, headless):

1. typing a search into the pairs pane key by key: time from the key press until the list shows the matches
   (Input.Changed handled, the table refilled, the screen refreshed), per keystroke;
2. moving to the next pair: time until its detail (both responses, the AB/BA grid, every verdict) is shown.

Reference, measured in the same run: the plain search a pane without an index would run per keystroke — every
pair's texts lowercased and scanned from scratch (`all(word in text)`) — and the store read the detail needs.

3. Listing the pairs (what the pane loads, in its worker): `session.pair_summaries()` against the row-by-row
   summary the columnar one replaced (kept in tests/rating/test_pair_summary_columns.py as the reference), on the
   same store; and the whole list in each sort (what the pane's worker makes when no filter is set) against
   sorting by the tuple each sort's key stands for (tests/tui/test_pair_sorts.py). With `bench_pairs T STORE`:
   only this, on that tournament's store (e.g. bench_fastchat's 1M).
"""

from __future__ import annotations

import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from elotui.session import TournamentSession
from elotui.store import Store
from elotui.tournament.model import Tournament, load_tournament
from elotui.tui.launch import make_app
from elotui.tui.screens.pairs import WORKER_FROM, PairsPane
from elotui.tui.widgets.pair_detail import PairDetailView
from tests.benchmarks.bench_tui import CONTESTANTS, JUDGES
from tests.benchmarks.bench_tui import fill as fill_store

N_PROMPTS = 223
VOCAB = [
    "accuracy", "helpful", "detailed", "concise", "relevant", "examples", "structure", "clarity", "depth", "tone",
    "correct", "mistake", "assistant", "response", "question", "explains", "overall", "better", "slightly", "lacks",
    "covers", "steps", "summary", "context", "reasoning", "evidence", "format", "length", "style", "précis",
]  # fmt: skip


def words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(VOCAB) for _ in range(n))


def write_files(folder: Path) -> Path:
    rng = random.Random(1)
    (folder / "q.jsonl").write_text(
        "".join(
            json.dumps({"id": f"q{p}", "text": f"Question {p}: " + words(rng, 28)}) + "\n"
            for p in range(N_PROMPTS)
        ),
        encoding="utf-8",
    )
    rows = [
        {"prompt_id": f"q{p}", "model": c, "response": words(rng, 190) + f" marker{p}x{c}"}
        for p in range(N_PROMPTS)
        for c in CONTESTANTS
    ]
    (folder / "a.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    lines = ['[tournament]\nname = "bench pairs"\n[data]\nprompts = "q.jsonl"\nresponses = "a.jsonl"\n']
    lines += [f'[[contestants]]\nid = "{c}"\n' for c in CONTESTANTS]
    qualities = ", ".join(f'"{c}" = {i * 20}' for i, c in enumerate(CONTESTANTS))
    lines += [
        f'[[judges]]\nid = "{j}"\nprovider = "simulated"\n[judges.simulation]\nqualities = {{ {qualities} }}\n'
        for j in JUDGES
    ]
    path = folder / "bench.toml"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def fill(store: Store, prompts: list[str]) -> int:
    """bench_tui's store (every ordered pair, 5 judges), each verdict with a ~500-character reasoning."""
    return fill_store(store, prompts, reasoning=lambda rng: words(rng, 70))


def plain_search(texts: dict[str, list[str]], query: str) -> set[str]:
    terms = query.lower().split()
    return {k for k, parts in texts.items() if all(any(t in p.lower() for p in parts) for t in terms)}


async def measure(tournament, store) -> None:  # type: ignore[no-untyped-def]
    app = make_app(tournament, store, start_run=False)
    async with app.run_test(size=(160, 50)) as pilot:
        await app.workers.wait_for_complete()
        t0 = time.perf_counter()
        await pilot.press("v")
        pane = app.query_one(PairsPane)
        while not pane.shown_pairs:
            await app.workers.wait_for_complete()
            await pilot.pause()
        print(f"pairs pane first filled ({len(pane.shown_pairs):,} pairs): {time.perf_counter() - t0:.2f} s")
        t0 = time.perf_counter()
        app.query_one("#f-search").value = "x"  # type: ignore[attr-defined]  # the index is built on the first search
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        print(f"search index built (in a worker, on the first search): {time.perf_counter() - t0:.2f} s")
        app.query_one("#f-search").value = ""  # type: ignore[attr-defined]
        await pilot.pause()
        idle = []
        for _ in range(10):  # the harness itself: a key nothing is bound to, on the same screen
            start = time.perf_counter()
            await pilot.press("f12")
            await pilot.pause()
            idle.append(time.perf_counter() - start)
        await pilot.press("slash")
        # Input.Changed -> search, filters, sort, table refilled: the pane's work (in _fill below WORKER_FROM pairs)
        handled: list[float] = []
        original = pane._fill

        def timed_fill() -> None:
            start = time.perf_counter()
            original()
            handled.append(time.perf_counter() - start)

        pane._fill = timed_fill  # type: ignore[method-assign]
        per_key = []
        query = "marker17xmodel-3 clarity"
        for ch in query:
            start = time.perf_counter()
            await pilot.press("space" if ch == " " else ch)
            while not pane.settled:
                await asyncio.sleep(0.0005)
            await pilot.pause()
            per_key.append(time.perf_counter() - start)
        pane._fill = original  # type: ignore[method-assign]
        print(f"search {query!r}: {len(pane.shown_pairs)} matches")
        print(
            f"keystroke -> list updated (the pane's handler: search + filters + sort + table; {len(pane._summaries):,} "
            f"pairs, below the {WORKER_FROM:,} from which the list is made in a worker): median "
            f"{1000 * statistics.median(handled):.1f} ms, max {1000 * max(handled):.1f} ms "
            "(target <= 100 ms); per key: " + " ".join(f"{1000 * h:.0f}" for h in handled)
        )
        print(
            f"keystroke -> list updated and the screen redrawn (Pilot press + pause, incl. its frame waits): median "
            f"{1000 * statistics.median(per_key):.1f} ms, max {1000 * max(per_key):.1f} ms; Pilot press + pause of a "
            f"key bound to nothing: median {1000 * statistics.median(idle):.1f} ms"
        )
        session = TournamentSession(tournament, store)
        texts_by = session.response_texts()
        reasoning = session.pair_reasoning()
        texts = {
            s.key: [tournament.prompt_texts[s.prompt], texts_by[(s.prompt, s.a)] or "", texts_by[(s.prompt, s.b)] or "", reasoning.get(s.key, "")]
            for s in session.pair_summaries()
        }  # fmt: skip
        ref = []
        for n in range(1, len(query) + 1):
            start = time.perf_counter()
            plain_search(texts, query[:n])
            ref.append(time.perf_counter() - start)
        print(
            f"reference, plain search per keystroke (no index, no narrowing): median {1000 * statistics.median(ref):.1f} ms, "
            f"max {1000 * max(ref):.1f} ms -> ratio to the pane's handler {statistics.median(ref) / statistics.median(handled):.1f}x"
        )
        await pilot.press("escape")
        app.query_one("#f-search").value = ""  # type: ignore[attr-defined]
        await pilot.pause()
        app.query_one("#pairs-table").focus()
        shown: list[float] = []
        original_show = PairDetailView.show

        def timed_show(view, *args, **kwargs):  # type: ignore[no-untyped-def]
            start = time.perf_counter()
            original_show(view, *args, **kwargs)
            shown.append(time.perf_counter() - start)

        PairDetailView.show = timed_show  # type: ignore[method-assign]
        detail = []
        for _ in range(10):
            before = pane._detail_key
            start = time.perf_counter()
            await pilot.press("down")
            while pane._detail_key == before:
                await asyncio.sleep(0.001)
            await pilot.pause()
            detail.append(time.perf_counter() - start)
        s = pane.selected()
        assert s is not None
        start = time.perf_counter()
        session.pair_details(s.prompt, s.a, s.b)
        read = time.perf_counter() - start
        print(
            f"next pair -> its detail on screen (key, store read in a worker, render, redraw; Pilot): median "
            f"{1000 * statistics.median(detail):.1f} ms, max {1000 * max(detail):.1f} ms (target <= 100 ms); "
            f"of which the pane's handler {1000 * statistics.median(shown):.1f} ms and the store read "
            f"{1000 * read:.1f} ms"
        )


def listing(tournament: Tournament, store: Store, runs: int = 3) -> None:
    """Time the pairs' listing against the row-by-row reference, each from a store read of its own."""
    from tests.rating.test_pair_summary_columns import reference

    session = TournamentSession(tournament, store)
    ours, theirs = [], []
    for _ in range(runs):
        start = time.perf_counter()
        n = len(session.pair_summaries())
        ours.append(time.perf_counter() - start)
        start = time.perf_counter()
        reference(store.plan_verdicts(), tournament.contestant_ids)
        theirs.append(time.perf_counter() - start)
    a, b = statistics.median(ours), statistics.median(theirs)
    print(f"listing {n:,} pairs: {a:.2f} s median of {runs} (row by row: {b:.2f} s, {b / a:.1f}x)")
    from elotui.tui.state.pair_query import SORTS, PairQuery, SortContext, select_pairs
    from tests.tui.test_pair_sorts import reference_key

    pairs = session.pair_summaries()
    ids = tournament.contestant_ids
    ctx = SortContext(
        {p: i for i, p in enumerate(tournament.prompt_ids)},
        {c: i for i, c in enumerate(ids)},
        {c: 1000.0 + 10 * (i % 13) for i, c in enumerate(ids)},
        {k: len(v or "") for k, v in session.response_texts().items()},
    )
    for sort in SORTS:
        ours, theirs = [], []
        for _ in range(runs):
            start = time.perf_counter()
            select_pairs(pairs, PairQuery(sort=sort), tournament.categories, ctx)
            ours.append(time.perf_counter() - start)
            start = time.perf_counter()
            sorted(pairs, key=reference_key(sort, ctx))
            theirs.append(time.perf_counter() - start)
        a, b = statistics.median(ours), statistics.median(theirs)
        print(
            f"  the list, sorted {sort!r}: {1000 * a:.0f} ms (by the tuple key: {1000 * b:.0f} ms, {b / a:.1f}x)"
        )


def main() -> None:
    if len(sys.argv) == 3:
        tournament = load_tournament(sys.argv[1])
        with Store(sys.argv[2]) as store:
            listing(tournament, store)
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        tournament = load_tournament(write_files(folder))
        store = Store(folder / "store.sqlite")
        n = fill(store, tournament.prompt_ids)
        print(f"{n:,} cached verdicts, {N_PROMPTS * 45:,} pairs")
        asyncio.run(measure(tournament, store))
        listing(tournament, store)
        store.close()


if __name__ == "__main__":
    main()
