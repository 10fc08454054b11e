"""Ratings the data do not determine are said to be so, everywhere: a contestant with no games is unranked, two
groups never compared are ranked apart with no gap across, one that won every game is listed above those it beat
(Bradley–Terry's penalised estimate, with the separation named; Elo's finite rating) and barely moves the
others. Checked in rank(), the JSON and CSV exports, the headless leaderboard and the TUI."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import numpy as np
import pytest

from elotui.cli import main
from elotui.commands.run_tournament import print_leaderboard
from elotui.rating import VerdictTable, rank
from elotui.rating.games import Games
from elotui.rating.identify import components, lowest_members
from elotui.rating.leaderboard import RatingOptions
from elotui.store import CallRecord, PlanRow, Store
from elotui.tournament.model import load_tournament
from tests.rating.rating_builders import row

OPTIONS = RatingOptions(permutations=20, bootstrap=50)
GROUP_1 = ["A", "B", "C"]
GROUP_2 = ["D", "E"]


def scenario_rows() -> list[tuple]:
    """A, B, C play each other (A best), D and E only each other, U beats A, B and C every time (40-0 in all),
    Z plays nobody."""
    rows = []
    rng = np.random.default_rng(3)
    strength = {"A": 1.0, "B": 0.6, "C": 0.3, "D": 0.7, "E": 0.4}
    for group in (GROUP_1, GROUP_2):
        for i, x in enumerate(group):
            for y in group[i + 1 :]:
                for p in range(6):
                    for first, second in ((x, y), (y, x)):
                        p_first = strength[first] / (strength[first] + strength[second])
                        rows.append(
                            row(f"p{p}", first, second, "j", "first" if rng.random() < p_first else "second")
                        )
    for k in range(40):
        opponent = GROUP_1[k % 3]
        first, second = ("U", opponent) if k % 2 else (opponent, "U")
        rows.append(row(f"p{k % 6}", first, second, "j", "first" if first == "U" else "second"))
    return rows


CONTESTANTS = ["A", "B", "C", "U", "D", "E", "Z"]


@pytest.mark.parametrize("method", ["elo", "bt"])
def test_rank_says_what_the_games_do_not_determine(method: str) -> None:
    table = VerdictTable.from_rows(scenario_rows(), contestants=CONTESTANTS)
    board = rank(table, threshold="none", method=method, options=OPTIONS)
    by = {r.contestant: r for r in board.rows}
    kinds = {w["kind"] for w in board.warnings}
    # identifiability warnings are Bradley–Terry's; Elo carries a note that the data are thin
    assert kinds - {"small_sample"} == (  # few prompts: noted too
        {"no_games", "disconnected", "unbeaten", "separated"}
        if method == "bt"
        else {"no_games", "disconnected", "thin"}
    )
    # no games: unranked, no rating, no interval, no band, last
    z = by["Z"]
    assert (z.rank, z.rating, z.ci_low, z.ci_high, z.band, z.group) == (None, None, None, None, None, None)
    assert board.rows[-1].contestant == "Z"
    # two groups: each ranked on its own (ranks restart), no gap or band across
    assert [r.contestant for r in board.rows if r.group == 1] == ["U", "A", "B", "C"]
    assert [r.contestant for r in board.rows if r.group == 2] == ["D", "E"]
    assert [r.rank for r in board.rows if r.group == 2] == [1, 2]
    assert by["C"].gap_to_next is None and by["C"].band is None  # last of group 1: nothing drawn to group 2
    assert by["D"].gap_to_next is not None and by["E"].gap_to_next is None
    # unbeaten: a finite rating above everyone it beat, with an interval; never a bound
    u = by["U"]
    assert u.bound is None and u.rating is not None and u.ci_low is not None and u.ci_high is not None
    assert u.rating > by["A"].rating and u.gap_to_next is not None and (u.wins, u.losses) == (40, 0)
    assert u.order_basis == ("wins" if method == "bt" else None) and u.order_uncertain is None
    without_u = rank(
        VerdictTable.from_rows(
            [r for r in scenario_rows() if "U" not in (r[1], r[2])], contestants=CONTESTANTS
        ),
        threshold="none",
        method=method,
        options=OPTIONS,
    )
    others = {r.contestant: r.rating for r in without_u.rows}
    if method == "bt":
        # U barely moves the others: the group is centred on its linked core, not on U's prior-set rating
        for c in ["A", "B", "C", "D", "E"]:
            assert by[c].rating == pytest.approx(others[c], abs=5)
        assert by["A"].rating is not None and by["A"].rating < 1200
    else:
        # Elo is zero-sum over a group: U's 40 wins take points from A, B and C alike, their differences stay
        for x, y in [("A", "B"), ("B", "C")]:
            assert by[x].rating - by[y].rating == pytest.approx(others[x] - others[y], abs=40)
        assert by["D"].rating == pytest.approx(
            others["D"], abs=5
        )  # the other group (only the shuffles differ)


def _store(tmp_path: Path) -> tuple[Path, Store]:
    lines = ["[tournament]", 'name = "Identify"', ""]
    lines += [f'[[contestants]]\nid = "{c}"\n' for c in CONTESTANTS]
    lines += [
        f'[[prompts]]\nid = "p{p}"\ntext = "Q{p}?"\n[prompts.responses]\n'
        + "\n".join(f'{c} = "{c} answers"' for c in CONTESTANTS)
        + "\n"
        for p in range(6)
    ]
    lines += [
        '[[judges]]\nid = "j"\nprovider = "replay"\npath = "log.jsonl"\n',
        '[ranking]\nthreshold = "none"\nmethod = "bt"\nbootstrap = 50\npermutations = 20\n',
    ]
    path = tmp_path / "t.toml"
    path.write_text("\n".join(lines), encoding="utf-8")
    (tmp_path / "log.jsonl").write_text("", encoding="utf-8")
    store = Store(tmp_path / "s.sqlite")
    plan = []
    for seq, (prompt, first, second, judge, condition, sample, status, winner) in enumerate(scenario_rows()):
        key = f"k{seq}"
        plan.append(PlanRow(seq, prompt, first, second, judge, condition, sample + seq, key))
        store.record_call(
            CallRecord(
                key=key,
                kind="verdict",
                status=status,
                judge=judge,
                prompt=prompt,
                first=first,
                second=second,
                condition=condition,
                sample=sample + seq,
                winner=winner,
            )
        )
    store.set_plan(plan)
    return path, store


def test_exports_and_headless_say_it_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, store = _store(tmp_path)
    store.close()
    args = ["export", str(path), "--store", str(tmp_path / "s.sqlite")]
    assert main([*args, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert {w["kind"] for w in doc["warnings"]} - {"small_sample"} == {
        "no_games",
        "disconnected",
        "unbeaten",
        "separated",
    }
    assert all(w["message"] and w["contestants"] for w in doc["warnings"])
    unbeaten = next(w for w in doc["warnings"] if w["kind"] == "unbeaten")
    assert unbeaten["contestants"] == ["U"] and unbeaten["records"] == {"U": "40-0"}
    rows = {r["contestant"]: r for r in doc["rows"]}
    assert (rows["Z"]["rank"], rows["Z"]["rating"], rows["Z"]["ci_low"], rows["Z"]["ci_high"]) == (None,) * 4
    assert rows["U"]["bound"] is None and rows["U"]["rating"] > rows["A"]["rating"]
    assert rows["U"]["order_basis"] == "wins" and rows["C"]["gap_to_next"] is None
    assert rows["A"]["order_confidence"] is not None and rows["A"]["band_range"]
    interval = doc["settings"]["interval"]
    assert {k: interval[k] for k in ("kind", "unit", "level", "rounds")} == {
        "kind": "bootstrap",
        "unit": "prompt",
        "level": 0.95,
        "rounds": 50,
    }
    assert (
        interval["separation"]["display"] == "penalised estimate" and interval["separation"]["prior"] == 0.01
    )
    assert main(args) == 0
    table = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    z = next(r for r in table if r["contestant"] == "Z")
    assert z["rank"] == z["rating"] == z["ci_low"] == z["ci_high"] == ""
    with Store(tmp_path / "s.sqlite") as store2:
        out = io.StringIO()
        print_leaderboard(load_tournament(path), store2, out)
    text = out.getvalue()
    assert "interval: 95 % bootstrap interval by prompt, 50 rounds" in text
    assert (
        "≥" not in text and "note: 1 contestant(s) have no games" in text and "groups that never meet" in text
    )
    assert "U (40-0) lost no game" in text and "U (40-0) > A (19-19)" in text


async def test_the_tui_shows_it(tmp_path: Path) -> None:
    from elotui.tui.launch import make_app
    from elotui.tui.widgets.leaderboard_table import LeaderboardTable
    from tests.tui.conftest import settle

    path, store = _store(tmp_path)
    app = make_app(load_tournament(path), store, start_run=False)
    async with app.run_test(size=(150, 50)) as pilot:
        await settle(pilot)
        table = app.query_one(LeaderboardTable)
        cells = {str(table.get_row(key)[1]): [str(c) for c in table.get_row(key)] for key in table.rows}
        assert cells["U"][0] == "1.1" and cells["U"][2][0].isdigit()  # group.rank; a finite rating
        assert cells["D"][0] == "2.1" and cells["Z"][0] == "—" and cells["Z"][2] == "—"
        counts = str(app.query_one("#counts").content)
        assert "95 % bootstrap interval by prompt" in counts and "groups that never meet" in counts
    store.close()


def _lowest_by_search(x: np.ndarray, y: np.ndarray, n: int) -> list[int]:
    """The reference: each node's lowest reachable node, by breadth-first search."""
    neighbours: list[set[int]] = [set() for _ in range(n)]
    for a, b in zip(x.tolist(), y.tolist(), strict=True):
        neighbours[a].add(b)
        neighbours[b].add(a)
    out = list(range(n))
    for start in range(n):
        seen, frontier = {start}, [start]
        while frontier:
            frontier = [m for v in frontier for m in neighbours[v] if m not in seen]
            seen.update(frontier)
        out[start] = min(seen)
    return out


@pytest.mark.parametrize("seed", range(40))
def test_lowest_members_equal_a_search(seed: int) -> None:
    # sparse and dense random graphs, and chains and stars with shuffled labels (many hooking rounds)
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    shape = seed % 4
    if shape == 0:  # a shuffled chain
        order = rng.permutation(n)
        x, y = order[:-1], order[1:]
    elif shape == 1:  # a star around a random centre, and some isolated nodes
        centre, leaves = int(rng.integers(n)), rng.choice(n, size=n // 2)
        x, y = np.full(len(leaves), centre), leaves
    else:
        m = int(rng.integers(0, n * (2 if shape == 2 else 8)))
        x, y = rng.integers(0, n, size=m), rng.integers(0, n, size=m)
    x, y = np.asarray(x, dtype=np.int64), np.asarray(y, dtype=np.int64)
    assert lowest_members(x, y, n).tolist() == _lowest_by_search(x, y, n)


def test_components_numbered_by_size_then_lowest_code() -> None:
    # groups {1, 4, 6} (3 members), {0, 5} and {2, 7} (2 each: the one with code 0 first), 3 never plays
    a, b = [4, 6, 5, 7], [1, 4, 0, 2]
    g = Games(np.array(a, dtype=np.int32), np.array(b, dtype=np.int32), np.ones(4), 8, {})
    assert components(g.a, g.b, g.n_contestants).tolist() == [1, 0, 2, -1, 0, 1, 0, 2]


def _reaches_by_search(g: Games) -> list[set[int]]:
    """The reference: everyone each contestant reaches through games it scored in (a win, or a draw), by
    breadth-first search over the games one by one."""
    n = g.n_contestants
    beat: list[set[int]] = [set() for _ in range(n)]
    for p, q, s in zip(g.a.tolist(), g.b.tolist(), g.score_a.tolist(), strict=True):
        if s > 0:
            beat[p].add(q)
        if s < 1:
            beat[q].add(p)
    out = []
    for start in range(n):
        seen, frontier = set(), [start]
        while frontier:
            frontier = [m for v in frontier for m in beat[v] if m not in seen]
            seen.update(frontier)
        out.append(seen)
    return out


@pytest.mark.parametrize("seed", range(30))
def test_win_components_and_records_equal_a_search_game_by_game(seed: int) -> None:
    # random games between up to 12 contestants, some never playing, some winning (or losing) every game they
    # play, several groups; both orientations
    from elotui.rating.elo import canonical
    from elotui.rating.identify import identify

    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 13))
    m = int(rng.integers(1, 80))
    a = rng.integers(0, n, size=m)
    b = (a + rng.integers(1, n, size=m)) % n  # never a against itself
    s = rng.choice([0.0, 0.5, 1.0], size=m)
    strong = rng.choice(n, size=int(rng.integers(0, 3)), replace=False)  # win every game they play
    for k in strong:
        s[a == k], s[b == k] = 1.0, 0.0
    g = Games(a.astype(np.int32), b.astype(np.int32), s, n, {})
    got = identify(canonical(g), [f"c{k}" for k in range(n)])
    reach = _reaches_by_search(g)
    played = set(a.tolist()) | set(b.tolist())
    assert got.wins is not None
    for x in range(n):
        assert (got.wins.label[x] >= 0) == (x in played)
        for y in range(n):
            if x == y or x not in played or y not in played:
                continue
            same = y in reach[x] and x in reach[y]
            assert (got.wins.label[x] == got.wins.label[y]) == same
            assert got.wins.above(x, y) == (y in reach[x] and x not in reach[y])
    for k in range(n):
        wins = sum((p == k and v == 1.0) or (q == k and v == 0.0) for p, q, v in zip(a, b, s, strict=True))
        losses = sum((p == k and v == 0.0) or (q == k and v == 1.0) for p, q, v in zip(a, b, s, strict=True))
        draws = sum(v == 0.5 and k in (p, q) for p, q, v in zip(a, b, s, strict=True))
        assert got.record[k].tolist() == [wins, losses, draws]
