"""`elotui import mt-bench|arena FILES -o DIR`: the folder it writes opens in every command, and its verdicts are
the files' verdicts; a malformed record is exit 2 naming file:line, or skipped and listed with --skip-bad."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from elotui.cli import main
from elotui.plan.presentations import build_plan
from elotui.tournament.model import load_tournament
from elotui.verdict_log import read_log
from tests.importers.fixtures import arena_battles, mt_bench_records, write_jsonl


def imported(tmp_path: Path, fmt: str, *files: Path, extra: tuple[str, ...] = ()) -> Path:
    out = tmp_path / "out"
    assert main(["import", fmt, *map(str, files), "-o", str(out), *extra]) == 0
    return out


def test_mt_bench_both_games_become_two_verdicts_with_their_judgments(tmp_path: Path) -> None:
    rows = mt_bench_records()
    rows[3]["g2_winner"] = "error"
    out = imported(tmp_path, "mt-bench", write_jsonl(tmp_path / "gpt-4_pair.jsonl", rows))
    log = list(read_log(out / "verdicts.jsonl"))
    assert len(log) == 2 * (len(rows) - 1)  # the record with a game judged `error` is left out whole
    r = rows[0]
    g1, g2 = log[0], log[1]
    assert (g1["prompt"], g1["first"], g1["second"], g1["judge"]) == (
        "81-t1",
        r["model_1"],
        r["model_2"],
        "gpt-4",
    )
    assert g1["winner"] == {"model_1": "first", "model_2": "second", "tie": "tie"}[r["g1_winner"]]
    assert (g2["first"], g2["second"]) == (r["model_2"], r["model_1"])
    assert g2["winner"] == {"model_2": "first", "model_1": "second", "tie": "tie"}[r["g2_winner"]]
    assert (g1["reasoning"], g2["reasoning"]) == (r["g1_judgment"], r["g2_judgment"])
    t = load_tournament(out / "tournament.toml")
    assert t.contestant_ids == ["gpt-4", "claude-v1", "vicuna-13b", "llama-13b"]
    assert t.spec.comparison.pairs == "recorded" and t.judge_ids == ["gpt-4"]
    assert build_plan(t).total == len(log)  # exactly the recorded presentations, nothing more


def test_mt_bench_run_and_export_count_the_files_verdicts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = mt_bench_records()
    out = imported(tmp_path, "mt-bench", write_jsonl(tmp_path / "gpt-4_pair.jsonl", rows))
    toml = str(out / "tournament.toml")
    assert main(["run", toml, "--headless"]) == 0
    capsys.readouterr()
    assert main(["export", toml, "--format", "json", "--threshold", "none"]) == 0
    board = json.loads(capsys.readouterr().out)
    got = {r["contestant"]: (r["wins"], r["losses"], r["draws"]) for r in board["rows"]}
    want: dict[str, Counter[str]] = {}
    for r in rows:  # each game, as elotui's verdict-level record counts it
        for game, first, second in (("g1", "model_1", "model_2"), ("g2", "model_2", "model_1")):
            w = r[f"{game}_winner"]
            for side in (first, second):
                want.setdefault(r[side], Counter())
            if w == "tie":
                want[r[first]]["d"] += 1
                want[r[second]]["d"] += 1
            else:
                want[r[w]]["w"] += 1
                want[r[second if w == first else first]]["l"] += 1
    assert got == {m: (c["w"], c["l"], c["d"]) for m, c in want.items()}


def test_mt_bench_questions_and_answers_attach_texts(tmp_path: Path) -> None:
    rows = mt_bench_records(questions=(81,))
    qfile = write_jsonl(
        tmp_path / "question.jsonl",
        [{"question_id": 81, "category": "writing", "turns": ["Write a travel blog.", "Rewrite it."]}],
    )
    answers = tmp_path / "model_answer"
    answers.mkdir()
    for m in ("gpt-4", "claude-v1", "vicuna-13b", "llama-13b"):
        write_jsonl(
            answers / f"{m}.jsonl",
            [
                {
                    "question_id": 81,
                    "model_id": m,
                    "choices": [{"index": 0, "turns": [f"{m} one", f"{m} two"]}],
                }
            ],
        )
    out = imported(
        tmp_path,
        "mt-bench",
        write_jsonl(tmp_path / "p.jsonl", rows),
        extra=("--questions", str(qfile), "--answers", str(answers)),
    )
    t = load_tournament(out / "tournament.toml")
    assert t.prompt_texts == {"81-t1": "Write a travel blog.", "81-t2": "Rewrite it."}
    assert t.categories == {"81-t1": "writing", "81-t2": "writing"}
    assert t.responses[("81-t2", "claude-v1")] == "claude-v1 two"


def test_arena_battles_one_verdict_each_and_style_counts_kept(tmp_path: Path) -> None:
    battles = arena_battles(n=50)
    src = tmp_path / "clean_battle.json"
    src.write_text(json.dumps(battles, indent=1), encoding="utf-8")
    out = imported(tmp_path, "arena", src)
    log = list(read_log(out / "verdicts.jsonl"))
    assert len(log) == 50
    mapping = {"model_a": "first", "model_b": "second", "tie": "tie", "tie (bothbad)": "tie"}
    for b, v in zip(battles, log, strict=True):
        assert (v["prompt"], v["first"], v["second"], v["judge"]) == (
            b["question_id"],
            b["model_a"],
            b["model_b"],
            "human",
        )
        assert v["winner"] == mapping[b["winner"]]
    style = [json.loads(line) for line in (out / "style.jsonl").read_text().splitlines()]
    first = style[0]
    md = battles[0]["conv_metadata"]
    assert first == {
        "prompt": "q00000",
        "contestant": battles[0]["model_a"],
        "tokens": md["sum_assistant_a_tokens"],
        "headers": sum(md["header_count_a"].values()),
        "lists": sum(md["list_count_a"].values()),
        "bold": sum(md["bold_count_a"].values()),
    }
    t = load_tournament(out / "tournament.toml")
    assert t.spec.ranking.threshold == "none" and not t.spec.comparison.both_orders
    assert t.categories["q00000"] == battles[0]["language"]
    assert build_plan(t).total == 50


def test_arena_jsonl_is_read_too_and_import_is_idempotent(tmp_path: Path) -> None:
    battles = arena_battles(n=30)
    src = write_jsonl(tmp_path / "battles.jsonl", battles)
    out = imported(tmp_path, "arena", src)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    imported(tmp_path, "arena", src)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_malformed_record_exits_2_with_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = mt_bench_records(questions=(81,))
    rows[2]["g1_winner"] = "model_3"
    src = write_jsonl(tmp_path / "p.jsonl", rows)
    with src.open("a") as fh:
        fh.write("{not json\n")
    assert main(["import", "mt-bench", str(src), "-o", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert f"{src}:3: `g1_winner` must be one of model_1, model_2, tie, error" in err
    assert not (tmp_path / "o").exists()
    assert main(["import", "mt-bench", str(src), "-o", str(tmp_path / "o"), "--skip-bad"]) == 0
    err = capsys.readouterr().err
    assert "skipped 1: malformed: `g1_winner` must be one of" in err and f"(first: {src}:3)" in err
    assert f"(first: {src}:{len(rows) + 1})" in err  # the line that is not JSON
    assert len(list(read_log(tmp_path / "o" / "verdicts.jsonl"))) == 2 * (len(rows) - 1)


def test_arena_bad_winner_names_the_line_of_the_json_list(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    battles = arena_battles(n=3)
    battles[1]["winner"] = "model_c"
    src = tmp_path / "clean_battle.json"
    src.write_text(json.dumps(battles, indent=None).replace("}, {", "},\n{"), encoding="utf-8")
    assert main(["import", "arena", str(src), "-o", str(tmp_path / "o")]) == 2
    assert (
        f"{src}:2: `winner` must be one of model_a, model_b, tie, tie (bothbad) (got 'model_c')"
        in capsys.readouterr().err
    )


def fastchat_pairwise_all(rows: list[dict]) -> dict[str, tuple[int, int, int]]:
    """FastChat's show_result.py --mode pairwise-all, row by row: errors dropped, a tie or two different winners
    a tie for both, else one win and one loss."""
    out: dict[str, list[int]] = {}
    for r in rows:
        if "error" in (r["g1_winner"], r["g2_winner"]):
            continue
        m1, m2 = r["model_1"], r["model_2"]
        out.setdefault(m1, [0, 0, 0])
        out.setdefault(m2, [0, 0, 0])
        if r["g1_winner"] == "tie" or r["g1_winner"] != r["g2_winner"]:
            out[m1][2] += 1
            out[m2][2] += 1
        else:
            w, loser = (m1, m2) if r["g1_winner"] == "model_1" else (m2, m1)
            out[w][0] += 1
            out[loser][1] += 1
    return {m: (w, lo, t) for m, (w, lo, t) in out.items()}


def test_mt_bench_win_rates_equal_fastchat_pairwise_all(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = mt_bench_records(seed=4)
    rows[5]["g1_winner"] = "error"
    capsys.readouterr()
    imported(tmp_path, "mt-bench", write_jsonl(tmp_path / "gpt-4_pair.jsonl", rows))
    err = capsys.readouterr().err
    want = fastchat_pairwise_all(rows)
    adjusted = {m: (w + 0.5 * t) / (w + lo + t) for m, (w, lo, t) in want.items()}
    for model, (w, lo, t) in want.items():
        rate = w / (w + lo + t)
        line = f"mapped: {model}: win rate {rate:.4f}, adjusted {adjusted[model]:.4f} ({w} wins, {lo} losses, {t} ties;"
        assert line in err
    order = [line.split(":")[1].strip() for line in err.splitlines() if ": win rate " in line]
    # show_result.py prints the models sorted by win_rate_adjusted
    assert sorted(order) == sorted(want)
    assert [adjusted[m] for m in order] == sorted(adjusted.values(), reverse=True)


def alpaca_rows(seed: int = 3) -> list[dict]:
    import random

    rng = random.Random(seed)
    rows = []
    for model in ("llama-2-70b", "zephyr-7b"):
        for i in range(40):
            rows.append(
                {
                    "instruction": f"Instruction {i}: explain topic {i}.",
                    "output_1": f"baseline answer {i}",
                    "generator_1": "gpt4_turbo",
                    "dataset": "helpful_base",
                    "output_2": f"{model} answer {i}",
                    "generator_2": model,
                    "annotator": "weighted_alpaca_eval_gpt4_turbo",
                    "preference": rng.choice([1, 2, 2, 1.5, 0, 1]),
                    "price_per_example": 0.001,
                    "time_per_example": 1.2,
                }
            )
    rows[7]["preference"] = 1.73  # a soft preference (AlpacaEval 2.0's weighted annotators): nearer output_2
    rows[11]["preference"] = 1.2  # nearer output_1
    rows[9]["preference"] = None
    return rows


def test_alpaca_eval_win_rate_against_the_baseline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = alpaca_rows()
    src = tmp_path / "annotations.json"
    src.write_text(json.dumps(rows, indent=2), encoding="utf-8")
    capsys.readouterr()
    out = imported(tmp_path, "alpaca-eval", src)
    err = capsys.readouterr().err
    for model in ("llama-2-70b", "zephyr-7b"):
        # alpaca_eval's get_winrate on the rows with a preference: `discrete_win_rate` (a soft preference rounded to
        # the nearer of 1 and 2, 1.5 and 0 a draw counted half) and `win_rate` (the mean of preference - 1, 0 as 1.5)
        prefs = [1.5 if r["preference"] == 0 else r["preference"] for r in rows if r["generator_2"] == model]
        prefs = [p for p in prefs if p is not None]
        wins, draws = sum(p > 1.5 for p in prefs), sum(p == 1.5 for p in prefs)
        rate = 100 * (wins + 0.5 * draws) / len(prefs)
        soft = 100 * sum(p - 1 for p in prefs) / len(prefs)
        assert (
            f"mapped: {model} vs gpt4_turbo: win rate {rate:.4f} % over {len(prefs)} rows (discrete_win_rate: ties "
            f"half, as alpaca_eval; its win_rate {soft:.4f} %)"
        ) in err
    assert "2 soft preference(s)" in err and "skipped 1: no preference" in err
    t = load_tournament(out / "tournament.toml")
    assert t.contestant_ids == ["gpt4_turbo", "llama-2-70b", "zephyr-7b"]
    assert t.judge_ids == ["weighted_alpaca_eval_gpt4_turbo"]
    pid = next(p for p, text in t.prompt_texts.items() if text == "Instruction 3: explain topic 3.")
    assert t.responses[(pid, "zephyr-7b")] == "zephyr-7b answer 3"
    assert t.responses[(pid, "gpt4_turbo")] == "baseline answer 3"
    toml = str(out / "tournament.toml")
    assert main(["run", toml, "--headless"]) == 0
    capsys.readouterr()
    assert main(["export", toml, "--format", "json"]) == 0
    board = {r["contestant"]: r for r in json.loads(capsys.readouterr().out)["rows"]}
    for model in (
        "llama-2-70b",
        "zephyr-7b",
    ):  # elotui's win rate (ties half) of the model, its only games vs the baseline: alpaca_eval's discrete one
        prefs = [1.5 if r["preference"] == 0 else r["preference"] for r in rows if r["generator_2"] == model]
        prefs = [p for p in prefs if p is not None]
        wins, draws = sum(p > 1.5 for p in prefs), sum(p == 1.5 for p in prefs)
        assert board[model]["win_rate"] == pytest.approx((wins + 0.5 * draws) / len(prefs))


def test_arena_hard_games_become_verdicts_with_their_strength(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    judge_dir = tmp_path / "model_judgment" / "gpt-4-1106-preview"
    judge_dir.mkdir(parents=True)
    scores = ["A>>B", "A>B", "A=B", "B>A", "B>>A", None]
    files = []
    for m, model in enumerate(("claude-3-opus", "llama-3-70b")):
        rows = [
            {
                "question_id": f"q{i}",
                "model": model,
                "judge": "gpt-4-1106-preview",
                "games": [
                    {"user_prompt": "...", "judgment": f"g1 {i}", "score": scores[(i + m) % 6]},
                    {"user_prompt": "...", "judgment": f"g2 {i}", "score": scores[(i + 2 * m + 1) % 6]},
                ],
            }
            for i in range(12)
        ]
        files.append(write_jsonl(judge_dir / f"{model}.jsonl", rows))
    assert main(["import", "arena-hard", *map(str, files), "-o", str(tmp_path / "o")]) == 2
    assert "give --baseline NAME" in capsys.readouterr().err
    out = imported(tmp_path, "arena-hard", *files, extra=("--baseline", "gpt-4-0314"))
    lines = [json.loads(x) for x in (out / "verdicts.jsonl").read_text().splitlines()]
    first = lines[0]  # claude-3-opus, q0, game 1: A>>B, the baseline shown first
    assert (first["first"], first["second"], first["winner"], first["strength"]) == (
        "gpt-4-0314",
        "claude-3-opus",
        "first",
        2,
    )
    second = lines[1]  # game 2: A>B with the model shown first
    assert (second["first"], second["winner"], second["strength"], second["reasoning"]) == (
        "claude-3-opus",
        "first",
        1,
        "g2 0",
    )
    unscored = sum(scores[(i + m) % 6] is None for m in range(2) for i in range(12)) + sum(
        scores[(i + 2 * m + 1) % 6] is None for m in range(2) for i in range(12)
    )
    assert unscored == 8 and len(lines) == 2 * 24 - unscored  # games without a score are skipped
    assert all("strength" not in x for x in lines if x["winner"] == "tie")
    assert len(list(read_log(out / "verdicts.jsonl"))) == len(lines)  # readers skip the strength field
    t = load_tournament(out / "tournament.toml")
    assert t.spec.ranking.anchor is not None and t.spec.ranking.anchor.contestant == "gpt-4-0314"
    assert main(["run", str(out / "tournament.toml"), "--headless"]) == 0


def test_a_recorded_comparison_without_its_responses_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = imported(tmp_path, "mt-bench", write_jsonl(tmp_path / "p.jsonl", mt_bench_records(questions=(81,))))
    responses = out / "responses.jsonl"
    kept = [
        line
        for line in responses.read_text().splitlines()
        if (json.loads(line)["prompt_id"], json.loads(line)["contestant"]) != ("81-t2", "llama-13b")
    ]
    responses.write_text("\n".join(kept) + "\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["validate", str(out / "tournament.toml")]) == 2
    err = capsys.readouterr().err
    assert "does not give (prompt: contestant): 81-t2: " in err and "llama-13b" in err


def test_arena_jsonl_fast_reading_writes_what_the_general_reading_writes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """JSON Lines battles are decoded typed (msgspec) where they can be; a JSON list is read the general way. Odd
    records (another type in a field, counts of another shape, no question_id, a missing count) give the same
    tournament files and the same skip report both ways."""
    battles = arena_battles(n=40)
    battles[1]["turn"] = True  # another type: read the general way
    battles[2]["question_id"] = 7.5
    del battles[3]["question_id"]  # named after the record's number
    battles[4]["conv_metadata"] = "n/a"  # not a table: no style counts
    battles[5]["conv_metadata"]["bold_count_a"] = {"**": 2, "note": "x"}  # non-numbers are not summed
    battles[6]["conv_metadata"]["list_count_b"] = 3.0
    battles[7]["winner"] = "tie (bothbad)"
    battles[8]["language"] = ""
    del battles[9]["conv_metadata"]["header_count_b"]  # malformed: skipped with --skip-bad
    battles[10]["model_b"] = battles[10]["model_a"]  # malformed
    battles[11]["model_a"] = 12  # malformed
    listed, lines = tmp_path / "list" / "battles.json", tmp_path / "lines" / "battles.json"
    for folder in (listed.parent, lines.parent):
        folder.mkdir()
    listed.write_text("[\n" + ",\n".join(json.dumps(b) for b in battles) + "\n]\n", encoding="utf-8")
    write_jsonl(lines, battles)
    reports = []
    for src in (listed, lines):
        assert main(["import", "arena", str(src), "-o", str(src.parent / "t"), "--skip-bad"]) == 0
        reports.append(capsys.readouterr().err.replace(str(src), "SRC").replace(str(src.parent), "DIR"))
    files = [{p.name: p.read_bytes() for p in (src.parent / "t").iterdir()} for src in (listed, lines)]
    assert files[0] == files[1]
    assert "skipped 1: malformed: conv_metadata.header_count_b must be a count" in reports[1]
    assert (
        "(first: SRC:10)" in reports[1]
        and "(first: SRC:11)" in reports[1]
        and "(first: SRC:12)" in reports[1]
    )
    strip = [re.sub(r"SRC:\d+|-[0-9a-f]{10}\.sqlite", "N", r) for r in reports]  # lines, the stores' names
    assert strip[0] == strip[1]
    log = list(read_log(lines.parent / "t" / "verdicts.jsonl"))
    assert [v["prompt"] for v in log[1:4]] == ["q00001", "7.5", "battle-4"]
    assert main(["import", "arena", str(lines), "-o", str(tmp_path / "o")]) == 2
    assert f"{lines}:10: conv_metadata.header_count_b must be a count" in capsys.readouterr().err


def test_import_refuses_a_folder_holding_another_tournament(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An import overwrites only its own earlier output: a folder with another import's or a hand-written
    tournament.toml is refused (exit 2) and left as it was."""
    arena = write_jsonl(tmp_path / "battles.jsonl", arena_battles(n=30))
    out = imported(tmp_path, "arena", arena)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    mt = write_jsonl(tmp_path / "gpt-4_pair.jsonl", mt_bench_records(questions=(81,)))
    assert main(["import", "mt-bench", str(mt), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{out}: holds another tournament ('arena import: battles.jsonl')" in err
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "tournament.toml").write_text('[tournament]\nname = "my own"\n', encoding="utf-8")
    assert main(["import", "arena", str(arena), "-o", str(mine)]) == 2
    assert "holds another tournament ('my own')" in capsys.readouterr().err
    assert (mine / "tournament.toml").read_text(encoding="utf-8") == '[tournament]\nname = "my own"\n'
    assert sorted(p.name for p in mine.iterdir()) == ["tournament.toml"]


def test_a_json_list_on_one_line_names_each_records_number(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """json.dump without indent writes the whole list on line 1: the line alone would name every record alike."""
    battles = arena_battles(n=6)
    battles[3]["winner"] = "model_c"
    del battles[4]["model_b"]
    src = tmp_path / "clean_battle.json"
    src.write_text(json.dumps(battles), encoding="utf-8")
    assert main(["import", "arena", str(src), "-o", str(tmp_path / "o")]) == 2
    assert f"{src}:1 (record 4): `winner` must be one of" in capsys.readouterr().err
    assert main(["import", "arena", str(src), "-o", str(tmp_path / "o"), "--skip-bad"]) == 0
    err = capsys.readouterr().err
    assert f"(first: {src}:1 (record 4))" in err and f"(first: {src}:1 (record 5))" in err


@pytest.mark.parametrize("skip_bad", [False, True])
def test_a_file_of_another_format_names_the_format_it_looks_like(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], skip_bad: bool
) -> None:
    """An arena log given as mt-bench: every record is malformed; the message says which format it looks like
    instead of suggesting --skip-bad (which would skip every record)."""
    src = write_jsonl(tmp_path / "clean_battle.jsonl", arena_battles(n=5))
    extra = ["--skip-bad"] if skip_bad else []
    assert main(["import", "mt-bench", str(src), "-o", str(tmp_path / "o"), *extra]) == 2
    err = capsys.readouterr().err
    assert "this looks like a Chatbot Arena battle log: `elotui import arena ...`" in err
    assert "give --skip-bad" not in err
    assert not (tmp_path / "o").exists()
    mt = write_jsonl(tmp_path / "gpt-4_pair.jsonl", mt_bench_records(questions=(81,)))
    assert main(["import", "arena", str(mt), "-o", str(tmp_path / "o")]) == 2
    assert "this looks like an MT-bench pairwise judgment file: `elotui import mt-bench ...`" in (
        capsys.readouterr().err
    )


def test_style_control_without_the_responses_texts_says_they_are_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An MT-bench import without --answers has empty responses: style control has nothing to count, and says so
    (every game side without style counts) instead of reporting a length coefficient of exactly 0 as measured."""
    rows = mt_bench_records(questions=(81, 82))
    out = imported(tmp_path, "mt-bench", write_jsonl(tmp_path / "gpt-4_pair.jsonl", rows))
    toml = str(out / "tournament.toml")
    assert main(["export", toml, "--style-control", "--format", "json", "--threshold", "none"]) == 0
    settings = json.loads(capsys.readouterr().out)["settings"]["style_control"]
    assert settings["missing_responses"] == 2 * 2 * len(rows)  # two verdicts a record, two sides a verdict


def test_diagnose_measures_an_arena_imports_length_bias_by_its_token_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An arena log has no texts, only conv_metadata's token counts: the length bias is measured on those (the
    share of decisive battles won by the side with more tokens), not reported as 0 decisive verdicts."""
    battles = arena_battles(n=80)
    out = imported(tmp_path, "arena", write_jsonl(tmp_path / "battles.jsonl", battles))
    assert main(["diagnose", str(out / "tournament.toml"), "--format", "json"]) == 0
    bias = json.loads(capsys.readouterr().out)["judges"]["human"]["length_bias"]
    decisive = [b for b in battles if b["winner"] in ("model_a", "model_b")]
    tokens = [
        (b["conv_metadata"]["sum_assistant_a_tokens"], b["conv_metadata"]["sum_assistant_b_tokens"])
        for b in decisive
    ]
    usable = [(b, ta, tb) for b, (ta, tb) in zip(decisive, tokens, strict=True) if ta != tb]
    longer = sum((ta > tb) == (b["winner"] == "model_a") for b, ta, tb in usable)
    assert bias["decisive_verdicts"] == len(usable) > 40
    assert bias["longer_wins_share"] == pytest.approx(longer / len(usable))


def test_diagnose_style_control_reports_an_arena_imports_coefficients(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An arena import carries style counts but does not set [ranking] style_control: `diagnose --style-control`
    reports each coefficient, as `export --style-control` does, without editing the file."""
    out = imported(tmp_path, "arena", write_jsonl(tmp_path / "battles.jsonl", arena_battles(n=120)))
    toml = str(out / "tournament.toml")
    capsys.readouterr()
    assert main(["diagnose", toml, "--format", "json"]) == 0
    assert "style_control" not in json.loads(capsys.readouterr().out)
    assert main(["export", toml, "--style-control", "--format", "json"]) == 0
    exported = json.loads(capsys.readouterr().out)["settings"]["style_control"]
    assert main(["diagnose", toml, "--style-control", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["style_control"] == exported
    assert main(["diagnose", toml, "--style-control"]) == 0
    text = capsys.readouterr().out
    assert "Style control (length, markdown; counts from style.jsonl" in text
    assert exported["coefficients"][0]["text"] in text


def test_validate_of_an_import_without_texts_does_not_say_empty_responses_are_judged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = imported(tmp_path, "mt-bench", write_jsonl(tmp_path / "gpt-4_pair.jsonl", mt_bench_records()))
    capsys.readouterr()
    assert main(["validate", str(out / "tournament.toml")]) == 0
    captured = capsys.readouterr()
    notes = captured.out + captured.err
    assert "has an empty response to" in notes
    assert "judged as is" not in notes and "(the source gave no text; its recorded verdicts stand)" in notes


def test_an_mt_bench_import_of_two_turns_ranks_each_turn_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The prompts rows carry their turn (`[data.fields] turn`): `export --turn 2` (and the TUI's turn scope) ranks
    turn 2's records alone, as an import of those records alone does."""
    rows = mt_bench_records(seed=4)
    both = imported(tmp_path, "mt-bench", write_jsonl(tmp_path / "gpt-4_pair.jsonl", rows))
    second = tmp_path / "second"
    only = write_jsonl(tmp_path / "turn2.jsonl", [r for r in rows if r["turn"] == 2])
    assert main(["import", "mt-bench", str(only), "-o", str(second)]) == 0
    assert load_tournament(both / "tournament.toml").spec.prompts[1].turn == 2

    def ratings(toml: Path, *extra: str) -> dict[str, float]:
        capsys.readouterr()
        assert main(["export", str(toml), "--format", "json", "--threshold", "none", *extra]) == 0
        return {r["contestant"]: r["rating"] for r in json.loads(capsys.readouterr().out)["rows"]}

    scoped, alone = ratings(both / "tournament.toml", "--turn", "2"), ratings(second / "tournament.toml")
    assert list(scoped) == list(alone)
    assert scoped == pytest.approx(alone, abs=1e-6)
    assert ratings(both / "tournament.toml", "--turn", "1") != scoped
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "p.jsonl").write_text('{"id": "q1", "text": "hi", "turn": "two"}\n', encoding="utf-8")
    toml = (
        (both / "tournament.toml").read_text(encoding="utf-8").replace("prompts.jsonl", str(bad / "p.jsonl"))
    )
    (bad / "t.toml").write_text(toml, encoding="utf-8")
    assert main(["validate", str(bad / "t.toml")]) == 2
    assert (
        f"{bad / 'p.jsonl'}:1: `turn` must be a turn number (1 to 100), got 'two'" in capsys.readouterr().err
    )


@pytest.mark.parametrize("fmt", ["arena", "mt-bench", "alpaca-eval"])
def test_baseline_is_refused_outside_arena_hard(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    src = write_jsonl(tmp_path / "battles.jsonl", arena_battles(n=5))
    assert main(["import", fmt, str(src), "-o", str(tmp_path / "o"), "--baseline", "gpt-4-0613"]) == 2
    assert "--baseline is for the arena-hard format" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_an_output_that_is_a_file_or_cannot_be_made_is_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = write_jsonl(tmp_path / "battles.jsonl", arena_battles(n=5))
    a_file = tmp_path / "afile"
    a_file.write_text("mine", encoding="utf-8")
    assert main(["import", "arena", str(src), "-o", str(a_file)]) == 2
    assert f"{a_file}: not a folder (-o names the folder" in capsys.readouterr().err
    assert a_file.read_text(encoding="utf-8") == "mine"
    assert main(["import", "arena", str(src), "-o", str(a_file / "under")]) == 2
    assert f"{a_file / 'under'}: cannot make the folder:" in capsys.readouterr().err


def test_a_gzipped_log_and_a_byte_order_mark_read_as_the_plain_file(tmp_path: Path) -> None:
    import gzip

    battles = arena_battles(n=20)
    plain = write_jsonl(tmp_path / "battles.jsonl", battles)
    want = (imported(tmp_path, "arena", plain) / "verdicts.jsonl").read_bytes()
    variants = {
        "battles.jsonl.gz": gzip.compress(plain.read_bytes()),
        "bom.jsonl": b"\xef\xbb\xbf" + plain.read_bytes(),
        "bom.json": b"\xef\xbb\xbf" + json.dumps(battles, indent=2).encode(),
        "list.json.gz": gzip.compress(json.dumps(battles).encode()),
    }
    for name, raw in variants.items():
        (tmp_path / name).write_bytes(raw)
        out = tmp_path / f"out-{name}"
        assert main(["import", "arena", str(tmp_path / name), "-o", str(out)]) == 0, name
        assert (out / "verdicts.jsonl").read_bytes() == want, name


def test_a_model_name_holding_a_line_separator_imports_and_exports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """U+2028 and NEL are JSON text (msgspec writes them as they are): the files the import writes read back."""
    battles = [
        {"question_id": f"q{i}", "model_a": "gpt\u2028x" if i % 2 else "m\u0085y", "model_b": "m3",
         "winner": "model_a" if i % 3 else "model_b"}
        for i in range(12)
    ]  # fmt: skip
    log = tmp_path / "log.jsonl"
    log.write_text("".join(json.dumps(b, ensure_ascii=False) + "\n" for b in battles), encoding="utf-8")
    out = tmp_path / "t"
    assert main(["import", "arena", str(log), "-o", str(out)]) == 0
    capsys.readouterr()
    assert main(["export", str(out / "tournament.toml"), "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert {r["contestant"] for r in rows} == {"gpt\u2028x", "m\u0085y", "m3"}


def test_skip_bad_leaves_a_battle_with_a_bad_count_out_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    battles = list(arena_battles(n=20, seed=3))
    battles[4]["conv_metadata"]["list_count_b"] = "many"  # side b's count: side a's was read before it
    log = tmp_path / "log.jsonl"
    write_jsonl(log, battles)
    out = tmp_path / "t"
    assert main(["import", "arena", str(log), "-o", str(out), "--skip-bad"]) == 0
    report = capsys.readouterr().err
    assert "skipped 1: malformed: conv_metadata.list_count_b" in report and f"{log}:5" in report
    verdicts = list(read_log(out / "verdicts.jsonl"))
    assert len(verdicts) == 19 and battles[4]["question_id"] not in {v["prompt"] for v in verdicts}
    style = [json.loads(line) for line in (out / "style.jsonl").read_text(encoding="utf-8").splitlines()]
    assert battles[4]["question_id"] not in {s["prompt"] for s in style} and len(style) == 38
    tally = re.search(r"each battle: [^(]*\(([^)]*)\)", report)
    assert tally and sum(int(n) for n in re.findall(r"(\d+) (?:first|second|tie)", tally.group(1))) == 19
