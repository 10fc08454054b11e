"""The HTML report's file: one self-contained page whose data block holds every threshold × method's leaderboard
(equal to `elotui export`), the pairs and verdicts of the store, with no text able to break out of the block."""

from __future__ import annotations

import csv
import io
import json
import re
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from elotui.cli import main
from elotui.report.page import data_block, write_page
from tests.report.conftest import METHODS, THRESHOLDS, TOURNAMENT, export_rows

HOSTILE = '</script><img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script> & <b>'


def read_data(html: str) -> dict[str, Any]:
    m = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', html, re.DOTALL)
    assert m is not None
    return json.loads(m.group(1))  # type: ignore[no-any-return]


def test_data_block_escapes_markup_and_reads_back_exactly() -> None:
    doc = {"text": HOSTILE, "more": ["<!--", "&amp;", "\u2028"]}
    block = data_block(doc)
    assert "<" not in block and ">" not in block and "&" not in block
    assert json.loads(block) == doc


def test_page_is_self_contained(vicuna_report: Path) -> None:
    html = vicuna_report.read_text(encoding="utf-8")
    # no address of any other host, no external script, style, image or font
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert "@import" not in html and "url(" not in html
    assert "default-src 'none'" in html  # the page may not fetch anything
    # exactly two script elements: the data (never run) and the page's script
    assert html.count("<script") == 2


def test_every_view_equals_the_export(vicuna_store: Path, vicuna_report: Path) -> None:
    doc = read_data(vicuna_report.read_text(encoding="utf-8"))
    assert set(doc["boards"]) == {f"{m}|{t}" for m in METHODS for t in THRESHOLDS}
    for method in METHODS:
        for threshold in THRESHOLDS:
            rows = doc["boards"][f"{method}|{threshold}"]["rows"]
            exported = export_rows(vicuna_store, threshold, method)
            assert [r["contestant"] for r in rows] == [e["contestant"] for e in exported]
            assert [str(r["rank"]) for r in rows] == [e["rank"] for e in exported]
            assert [r["rating"] for r in rows] == pytest.approx([float(e["rating"]) for e in exported])


def test_pairs_and_verdicts_cover_the_store(vicuna_doc: dict[str, Any]) -> None:
    assert len(vicuna_doc["pairs"]) == 800
    verdicts = vicuna_doc["verdicts"]
    assert sum(len(v) for v in verdicts.values()) == 8000
    cols = vicuna_doc["pair_columns"]
    for p in vicuna_doc["pairs"]:
        r = dict(zip(cols, p, strict=True))
        mine = verdicts[f"{r['prompt']}\x1f{r['a']}\x1f{r['b']}"]
        assert len(mine) == r["verdicts"] == 10  # 5 judges x both orders
        assert {v[3] for v in mine} == {r["a"], r["b"]}  # each order shown


def test_hostile_texts_stay_inside_the_data_block(vicuna_doc: dict[str, Any], tmp_path: Path) -> None:
    doc = json.loads(json.dumps(vicuna_doc))
    doc["meta"]["tournament"] = HOSTILE
    doc["responses"]["q1"]["gpt-4"] = HOSTILE
    out = tmp_path / "hostile.html"
    with out.open("w", encoding="utf-8") as fh:
        write_page(doc, fh)
    html = out.read_text(encoding="utf-8")
    assert "<img" not in html and "__pwned=2</script>" not in html
    assert html.count("<script") == 2
    assert read_data(html)["responses"]["q1"]["gpt-4"] == HOSTILE


def test_bad_reasoning_limit_is_exit_2(vicuna_store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["report", str(TOURNAMENT), "--store", str(vicuna_store), "--max-reasoning", "0"]
    assert main(args) == 2
    assert "--max-reasoning" in capsys.readouterr().err


def test_reasoning_limit_cuts_and_says_so(vicuna_store: Path, tmp_path: Path) -> None:
    out = tmp_path / "short.html"
    args = ["report", str(TOURNAMENT), "--store", str(vicuna_store), "--max-reasoning", "40", "-o", str(out)]
    assert main(args) == 0
    doc = read_data(out.read_text(encoding="utf-8"))
    assert doc["meta"]["reasoning_limit"] == 40
    texts = [v[6] for vs in doc["verdicts"].values() for v in vs]
    assert max(len(t) for t in texts) == 40 + len(" […]")
    assert any(t.endswith(" […]") for t in texts)


def test_a_category_scope_ranks_as_the_export(vicuna_store: Path, tmp_path: Path) -> None:
    out = tmp_path / "coding.html"
    args = ["report", str(TOURNAMENT), "--store", str(vicuna_store), "--category", "coding", "-o", str(out)]
    assert main(args) == 0
    doc = read_data(out.read_text(encoding="utf-8"))
    assert doc["meta"]["scope"] == "category coding"
    buf = io.StringIO()
    export = [
        "export",
        str(TOURNAMENT),
        "--store",
        str(vicuna_store),
        "--category",
        "coding",
        "--method",
        "bt",
    ]
    with redirect_stdout(buf):
        assert main([*export, "--threshold", "0.75"]) == 0
    exported = list(csv.DictReader(io.StringIO(buf.getvalue())))
    rows = doc["boards"]["bt|0.75"]["rows"]
    assert [(str(r["rank"]), r["contestant"]) for r in rows] == [
        (e["rank"], e["contestant"]) for e in exported
    ]
    assert [r["rating"] for r in rows] == pytest.approx([float(e["rating"]) for e in exported])


def test_unknown_category_is_exit_2(vicuna_store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["report", str(TOURNAMENT), "--store", str(vicuna_store), "--category", "nope", "-o", "-"]
    assert main(args) == 2
    assert "category 'nope'" in capsys.readouterr().err


def test_max_pairs_keeps_the_contested_first_with_their_texts_and_verdicts(
    vicuna_store: Path, vicuna_doc: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--max-pairs 50` of 800: the page keeps 50 pairs, every contested one first (a position-bias or inconclusive
    class, judges on both sides), listed in the pairs' order, with their prompts, texts and verdicts alone; the
    leaderboards and the per-prompt τ (as its values) still cover everything; it says so; 0 is exit 2."""
    out = tmp_path / "kept.html"
    args = ["report", str(TOURNAMENT), "--store", str(vicuna_store), "-o", str(out)]
    assert main([*args, "--max-pairs", "50"]) == 0
    assert "50 of 800 pairs, the contested first (--max-pairs)" in capsys.readouterr().err
    doc = read_data(out.read_text(encoding="utf-8"))
    cols = vicuna_doc["pair_columns"]
    every = [dict(zip(cols, p, strict=True)) for p in vicuna_doc["pairs"]]

    def contested(r: dict[str, Any]) -> bool:
        return (
            r["class"] in ("position bias", "inconclusive")
            or r["any_flip"]
            or (r["judges_for_a"] > 0 and r["judges_for_b"] > 0)
        )

    wanted = [r for r in every if contested(r)][:50]
    wanted += [r for r in every if not contested(r)][: 50 - len(wanted)]
    keys = [(r["prompt"], r["a"], r["b"]) for r in every if r in wanted]  # in the pairs' order
    kept = [dict(zip(cols, p, strict=True)) for p in doc["pairs"]]
    assert [(r["prompt"], r["a"], r["b"]) for r in kept] == keys and 0 < sum(map(contested, every)) < 800
    assert doc["meta"]["pairs"] == {"all": 800, "kept": 50}
    prompts = {r["prompt"] for r in kept}
    assert set(doc["prompt_texts"]) == set(doc["responses"]) == set(doc["meta"]["prompts"]) == prompts
    assert set(doc["verdicts"]) == {f"{p}\x1f{a}\x1f{b}" for p, a, b in keys}
    assert doc["verdicts"] == {k: v for k, v in vicuna_doc["verdicts"].items() if k in doc["verdicts"]}
    assert doc["boards"] == json.loads(json.dumps(vicuna_doc["boards"]))
    tau = doc["diagnose"]["per_prompt_tau"]
    assert tau["by_prompt"] == {} and tau["values"] == list(
        vicuna_doc["diagnose"]["per_prompt_tau"]["by_prompt"].values()
    )
    assert (
        vicuna_doc["meta"]["pairs"] == {"all": 800, "kept": 800}
        and "values" not in vicuna_doc["diagnose"]["per_prompt_tau"]
    )
    assert main([*args, "--max-pairs", "0"]) == 2
    assert "--max-pairs must be at least 1, not 0" in capsys.readouterr().err


def test_a_limit_that_cuts_no_reasoning_is_not_said(vicuna_store: Path, tmp_path: Path) -> None:
    """The page says it cut reasoning only where it did (an arena import has none: no banner about it)."""
    out = tmp_path / "long.html"
    args = [
        "report",
        str(TOURNAMENT),
        "--store",
        str(vicuna_store),
        "--max-reasoning",
        "1000000",
        "-o",
        str(out),
    ]
    assert main(args) == 0
    doc = read_data(out.read_text(encoding="utf-8"))
    assert doc["meta"]["reasoning_limit"] is None
    assert not any(v[6].endswith(" […]") for vs in doc["verdicts"].values() for v in vs)
