"""`elotui import` stores its verdicts' columnar snapshot, so that `export` ranks them at once: the same
presentations, in the same order, with the same outcomes as the plan a replaying `elotui run` stores, and the same
exports (ratings, intervals, style coefficients, Elo's order-dependent ratings) before and after that run. A store
that holds a run's plan is left as it is."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from elotui.cli import main
from elotui.store import Store
from elotui.tournament.model import load_tournament
from tests.importers.fixtures import arena_battles, mt_bench_records, write_jsonl
from tests.importers.test_graded import BASELINE, judgments
from tests.importers.test_import_command import alpaca_rows

COLUMNS = ("prompt", "first", "second", "judge", "condition", "sample", "outcome")
BOOKS = ("prompts", "contestants", "judges", "conditions")


def columns_of(toml: Path) -> dict[str, Any]:
    with Store.open_for(load_tournament(toml)) as store:
        c = store.verdict_columns()
        plan_rows = len(store.plan())
    return {**{k: getattr(c, k).tolist() for k in COLUMNS}, **{b: c.book(b[:-1]) for b in ("prompts",)}} | {
        "books": [getattr(c, b) for b in BOOKS],
        "plan_rows": plan_rows,
    }


def exported(toml: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["export", str(toml), "--format", "json", *extra]) == 0
    doc = json.loads(capsys.readouterr().out)
    doc.pop("provenance", None)  # the store's runs and the time of the export
    return doc


def arena_log(tmp_path: Path) -> list[Path]:
    battles = arena_battles(n=400, seed=8)
    rng = random.Random(3)
    for b in battles[200:]:  # repeated questions: units with several battles, samples of one presentation
        b["question_id"] = f"q{rng.randrange(60):05d}"
    return [write_jsonl(tmp_path / "battles.jsonl", battles)]


def alpaca_file(tmp_path: Path) -> list[Path]:
    path = tmp_path / "annotations.json"
    path.write_text(json.dumps(alpaca_rows()), encoding="utf-8")
    return [path]


SOURCES = {
    "arena": arena_log,
    "mt-bench": lambda tmp: [write_jsonl(tmp / "gpt-4_pair.jsonl", mt_bench_records())],
    "arena-hard": judgments,
    "alpaca-eval": alpaca_file,
}


@pytest.mark.parametrize("fmt", list(SOURCES))
def test_import_ranks_at_once_as_the_replaying_run_does(
    fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = SOURCES[fmt](tmp_path)
    out = tmp_path / "t"
    baseline = ["--baseline", BASELINE] if fmt == "arena-hard" else []
    assert main(["import", fmt, *map(str, files), "-o", str(out), "--skip-bad", *baseline]) == 0
    assert "ranked at once" in capsys.readouterr().err
    toml = out / "tournament.toml"
    extra = ["--style-control"] if fmt == "arena" else []
    imported = columns_of(toml)
    assert imported["plan_rows"] == 0 and len(imported["outcome"]) > 0
    before = [exported(toml, capsys, *extra), exported(toml, capsys, "--method", "elo")]
    assert main(["verdicts", str(toml)]) == 0  # each verdict comes with a replaying run: said so
    log = capsys.readouterr()
    assert log.out == "" and "not yet each verdict" in log.err
    assert main(["run", str(toml), "--headless"]) == 0
    replayed = columns_of(toml)
    assert replayed["plan_rows"] == len(replayed["outcome"])
    assert {k: v for k, v in imported.items() if k != "plan_rows"} == {
        k: v for k, v in replayed.items() if k != "plan_rows"
    }
    after = [exported(toml, capsys, *extra), exported(toml, capsys, "--method", "elo")]
    assert before == after
    assert main(["verdicts", str(toml)]) == 0
    log = capsys.readouterr()
    assert len(log.out.splitlines()) == len(replayed["outcome"]) and "not yet each verdict" not in log.err
    if fmt == "arena":
        assert before[0]["settings"]["style_control"]["coefficients"]


def test_a_store_holding_a_runs_plan_is_kept(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = arena_log(tmp_path)
    out = tmp_path / "t"
    assert main(["import", "arena", str(files[0]), "-o", str(out)]) == 0
    toml = out / "tournament.toml"
    assert main(["run", str(toml), "--headless"]) == 0
    ran = columns_of(toml)
    capsys.readouterr()
    assert main(["import", "arena", str(files[0]), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "holds a run's plan, kept: until `elotui run` replays these verdicts" in err
    assert f"next: `elotui run {toml} --headless` replays the verdicts into the store, then" in err
    assert "next: elotui export" not in err  # export would show the earlier run's ranking
    assert columns_of(toml) == ran
    with Store.open_for(load_tournament(toml)) as store:
        assert np.count_nonzero(store.verdict_columns().outcome < 3) == len(ran["outcome"])


def test_recorded_columns_follow_the_recorded_plan_row_for_row(tmp_path: Path) -> None:
    """Against elotui.plan.recorded on the written tournament, and the replay index for the outcomes: two judges
    whose rows interleave, repeated presentations (samples), both orders and both judges in one unit, rows the plan
    leaves out (a contestant against itself, another condition), invalid and failed verdicts."""
    from elotui.importers.common import Imported, write_tournament
    from elotui.importers.recorded_snapshot import recorded_columns
    from elotui.judges.replay_index import index_of, nth
    from elotui.plan.recorded import recorded_comparisons
    from elotui.records import PlanRow
    from elotui.store.columns import code_plan
    from elotui.vocab import outcome_code

    rng = random.Random(12)
    imported = Imported(format="arena", both_orders=True)
    models, prompts = ["m0", "m1", "m2", "m3"], [f"p{i}" for i in range(25)]
    for p in prompts:
        imported.prompts[p] = {"text": p}
    for _ in range(700):
        p, judge = rng.choice(prompts), rng.choice(["jB", "jA", "jA"])
        a, b = rng.choice(models), rng.choice(models)
        condition = "paraphrase" if rng.random() < 0.05 else "clean"
        status = rng.choice(["ok"] * 8 + ["invalid", "error"])
        winner = rng.choice(["first", "second", "tie"]) if status == "ok" else None
        imported.contestants.setdefault(a)
        imported.contestants.setdefault(b)
        imported.judges.setdefault(judge)
        imported.verdicts.append((p, a, b, judge, condition, 0, winner, None, status))  # type: ignore[arg-type]
        imported.respond(p, a, "")
        imported.respond(p, b, "")
    out = tmp_path / "t"
    write_tournament(imported, out, [tmp_path / "src.jsonl"])
    want = recorded_comparisons(load_tournament(out / "tournament.toml"), lambda *row: row)
    plan, outcome = recorded_columns(imported.log_codes())
    names = {c: plan.books[b] for c, b in (("prompt", "prompts"), ("first", "contestants"))}
    names |= {"second": plan.books["contestants"], "judge": plan.books["judges"]}
    names["condition"] = plan.books["conditions"]
    decoded = {c: dict(map(reversed, book.items())) for c, book in names.items()}  # type: ignore[arg-type]
    got = [
        (*(decoded[c][int(plan.columns[c][i])] for c in decoded), int(plan.sample[i]))
        for i in range(len(outcome))
    ]
    assert got == [tuple(r) for r in want] and len(got) < len(imported.verdicts)
    assert max(r[5] for r in want) >= 2  # presentations with several samples
    rows = [PlanRow(i, *r, "key") for i, r in enumerate(want)]  # type: ignore[call-arg]
    reference = code_plan(rows)
    assert reference.books == plan.books
    assert all(np.array_equal(reference.columns[c], plan.columns[c]) for c in reference.columns)
    index = index_of(out / "verdicts.jsonl")
    replayed = [outcome_code(*nth(index[j][(p, f, s, c)], n)[:2]) for p, f, s, j, c, n in want]  # type: ignore[index]
    assert outcome.tolist() == replayed and {3, 4} <= set(replayed)


def test_a_copied_import_folder_says_how_to_rank_it_and_ranks_the_same_after_its_replay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A folder `elotui import` wrote, copied elsewhere: its store there is empty (a store belongs to a file's
    place), so export says how to fill it (exit 2, naming the replay); after `elotui run --headless` it ranks as
    the original folder does."""
    import shutil

    src = tmp_path / "first"
    assert main(["import", "arena", *map(str, arena_log(tmp_path)), "-o", str(src)]) == 0
    want = exported(src / "tournament.toml", capsys)
    copy = tmp_path / "moved"
    shutil.copytree(src, copy)
    toml = copy / "tournament.toml"
    capsys.readouterr()
    assert main(["export", str(toml), "--format", "json"]) == 2
    err = capsys.readouterr().err
    assert f"elotui run {toml} --headless" in err and "without a model call" in err
    assert main(["run", str(toml), "--headless", "--no-delay"]) == 0
    got = exported(toml, capsys)
    assert [r["contestant"] for r in got["rows"]] == [r["contestant"] for r in want["rows"]]
    assert [r["rating"] for r in got["rows"]] == pytest.approx([r["rating"] for r in want["rows"]], abs=1e-9)


def test_a_replay_stopped_before_it_stored_its_plan_says_the_imported_verdicts_stand(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ctrl-C while the replay of an import plans: the summary says the imported verdicts rank as they are and the
    replay starts over, not that every call was answered (no call was made)."""
    from elotui.run.summary import exit_summary

    out = tmp_path / "t"
    assert main(["import", "arena", str(arena_log(tmp_path)[0]), "-o", str(out)]) == 0
    toml = out / "tournament.toml"
    t = load_tournament(toml)
    with Store.open_for(t) as store:
        lines = exit_summary(t, store, None, "Ctrl-C")
    n = len(columns_of(toml)["outcome"])
    assert lines[0] == (
        f"elotui: stopped (Ctrl-C) before the replay stored its plan · the {n} imported verdicts rank as they"
        " are; the replay (each verdict's details) starts over"
    )
    assert lines[-1].endswith(f"writes the ranking · `elotui run {toml} --headless` replays")
    assert main(["run", str(toml), "--headless"]) == 0
    with Store.open_for(t) as store:
        lines = exit_summary(t, store, None, "Ctrl-C")
    assert lines[0].startswith(f"elotui: stopped (Ctrl-C) · {n}/{n} calls answered (tournament)")
    assert lines[-1] == f"  next: `elotui export {toml}` writes the ranking"


def test_the_next_step_names_style_control_where_the_import_wrote_style_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "t"
    assert main(["import", "arena", str(arena_log(tmp_path)[0]), "-o", str(out)]) == 0
    toml = out / "tournament.toml"
    assert f"`elotui export {toml} --style-control` (style-controlled)" in capsys.readouterr().err
    src = write_jsonl(tmp_path / "gpt-4_pair.jsonl", mt_bench_records())
    assert main(["import", "mt-bench", str(src), "-o", str(tmp_path / "m")]) == 0
    err = capsys.readouterr().err
    assert "next: elotui export" in err and "--style-control" not in err
