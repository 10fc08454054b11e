"""The HTML report in a real browser: headless Chromium (the system's, /usr/bin/chromium; `.ci/run` installs it
with apt-get) driven by Playwright for Python. The page is served from 127.0.0.1 and every other request is
counted and refused; console errors are counted; the leaderboard shown for each threshold × method is compared
with `elotui export`'s CSV; the pair search and the escaping of hostile texts are checked in the rendered page.

Set ELOTUI_REPORT_SCREENSHOT=1 to write docs/report.png from the vicuna80 report."""

from __future__ import annotations

import json
import os
import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from elotui.report.page import write_page
from tests.report.conftest import METHODS, THRESHOLDS, export_rows
from tests.report.test_report_page import HOSTILE

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed")
CHROMIUM = next(
    (p for p in ("/usr/bin/chromium", shutil.which("chromium") or "") if p and Path(p).exists()), None
)
pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="no Chromium found (/usr/bin/chromium; `.ci/run` installs it as root with apt-get)",
)
DOCS = Path(__file__).resolve().parents[2] / "docs"


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


@contextmanager
def served(folder: Path) -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


class Browser:
    """One page of headless Chromium on `url`: every request but the page's own is counted and aborted."""

    def __init__(self, page: Any, url: str) -> None:
        self.page, self.url = page, url
        self.errors: list[str] = []
        self.requests: list[str] = []
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("request", lambda r: self.requests.append(r.url))
        page.route("**/*", self._route)
        page.goto(url)
        page.wait_for_selector("body[data-ready]")

    def _route(self, route: Any) -> None:
        if route.request.url == self.url:
            route.continue_()
        else:
            route.abort()

    def others(self) -> list[str]:
        return [u for u in self.requests if u != self.url]


@contextmanager
def browser_on(html: Path) -> Iterator[Browser]:
    with served(html.parent) as base, sync_api.sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = chromium.new_page(viewport={"width": 1280, "height": 1000})
            yield Browser(page, base + html.name)
        finally:
            chromium.close()


def shown_board(page: Any) -> list[tuple[str, str, str]]:
    return page.eval_on_selector_all(
        "#leaderboard tbody tr",
        "rows => rows.map(r => [r.querySelector('.rank').textContent, r.querySelector('.contestant').textContent,"
        " r.children[2].textContent])",
    )


def shown_pairs(page: Any) -> set[tuple[str, str, str]]:
    rows = page.eval_on_selector_all(
        "#pairs tbody tr", "rows => rows.map(r => [r.dataset.prompt, r.dataset.a, r.dataset.b])"
    )
    return {tuple(r) for r in rows}


def test_the_report_in_chromium(vicuna_report: Path, vicuna_store: Path, vicuna_doc: dict[str, Any]) -> None:
    with browser_on(vicuna_report) as b:
        page = b.page
        for method in METHODS:
            for threshold in THRESHOLDS:
                page.select_option("#method", method)
                page.select_option("#threshold", threshold)
                exported = export_rows(vicuna_store, threshold, method)
                expected = [
                    (e["rank"] or "–", e["contestant"], f"{float(e['rating']):.1f}") for e in exported
                ]
                assert [tuple(r) for r in shown_board(page)] == expected, (method, threshold)
        assert page.inner_text("#pair-count") == "800 of 800 pairs"
        page.fill("#pair-search", "black death")
        cols = vicuna_doc["pair_columns"]
        q53 = {
            (p[cols.index("prompt")], p[cols.index("a")], p[cols.index("b")])
            for p in vicuna_doc["pairs"]
            if p[cols.index("prompt")] == "q53"
        }
        assert len(q53) == 10
        assert shown_pairs(page) == q53
        assert page.inner_text("#pair-count") == "10 of 800 pairs"
        page.fill("#pair-search", "")
        page.select_option("#f-contestant", "bard")
        page.check("#f-flip")
        narrowed = shown_pairs(page)
        assert narrowed and all("bard" in (a, b) for _, a, b in narrowed)
        page.focus("#pairs tbody tr:first-child button")
        page.keyboard.press("Enter")  # the keyboard opens a pair
        assert page.locator("#grid tbody tr").count() == 5  # one row per judge, AB and BA columns
        if os.environ.get("ELOTUI_REPORT_SCREENSHOT"):
            page.uncheck("#f-flip")
            page.select_option("#f-contestant", "")
            page.select_option("#method", vicuna_doc["meta"]["method"])
            page.select_option("#threshold", vicuna_doc["meta"]["threshold"])
            page.evaluate("window.scrollTo(0, 0)")
            page.screenshot(path=str(DOCS / "report.png"))
        assert b.errors == []
        assert b.others() == []


def test_hostile_texts_render_as_text(vicuna_doc: dict[str, Any], tmp_path: Path) -> None:
    doc = json.loads(json.dumps(vicuna_doc))
    doc["meta"]["tournament"] = HOSTILE
    doc["responses"]["q1"]["gpt-4"] = HOSTILE
    doc["prompt_texts"]["q1"] = HOSTILE
    key = next(k for k in doc["verdicts"] if k.startswith("q1\x1fgpt-4\x1f"))
    doc["verdicts"][key][0][6] = HOSTILE
    page_file = tmp_path / "hostile.html"
    with page_file.open("w", encoding="utf-8") as fh:
        write_page(doc, fh)
    with browser_on(page_file) as b:
        page = b.page
        assert page.inner_text("h1") == HOSTILE
        page.fill("#pair-search", "onerror")
        _, a, other = key.split("\x1f")
        page.click(f'#pairs tbody tr[data-a="{a}"][data-b="{other}"] button')
        assert page.text_content('#pair-detail pre[data-contestant="gpt-4"]') == HOSTILE
        assert page.text_content("#pair-detail pre.prompt") == HOSTILE
        assert HOSTILE in page.eval_on_selector_all(
            "#pair-detail details pre", "p => p.map(x => x.textContent)"
        )
        assert page.locator("img").count() == 0
        assert page.locator("#app b").count() == 0
        assert page.evaluate("window.__pwned") is None
        assert b.errors == []
        assert b.others() == []


def test_gold_labels_in_chromium(tmp_path: Path) -> None:
    """LLMBar's sample: its judges against the gold labels, as `elotui diagnose` reports them."""
    import io
    from contextlib import redirect_stdout

    from elotui.cli import main
    from tests.report.conftest import SAMPLES

    t = SAMPLES / "llmbar" / "tournament.toml"
    store, out = tmp_path / "store.sqlite", tmp_path / "llmbar.html"
    assert main(["run", str(t), "--headless", "--no-delay", "--store", str(store)]) == 0
    assert main(["report", str(t), "--store", str(store), "-o", str(out)]) == 0
    buf = io.StringIO()
    with redirect_stdout(buf):
        assert main(["diagnose", str(t), "--store", str(store), "--format", "json"]) == 0
    gold = json.loads(buf.getvalue())["gold"]["by_judge"]
    with browser_on(out) as b:
        shown = b.page.eval_on_selector_all(
            "#gold tbody tr", "rows => rows.map(r => [...r.children].map(c => c.textContent))"
        )
        assert [(r[0], r[2]) for r in shown] == [
            (j, f"{100 * g['accuracy_all']:.1f} %") for j, g in gold.items()
        ]
        assert b.errors == [] and b.others() == []


def test_opens_from_disk_with_the_network_off(vicuna_report: Path) -> None:
    with sync_api.sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            context = chromium.new_context(offline=True)
            page = context.new_page()
            errors: list[str] = []
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(vicuna_report.as_uri())
            page.wait_for_selector("body[data-ready]")
            assert page.locator("#leaderboard tbody tr").count() == 5
            assert page.locator("#h2h tbody tr").count() == 5
            assert page.inner_text("#pair-count") == "800 of 800 pairs"
            assert errors == []
        finally:
            chromium.close()


def test_pair_sorts_as_the_pairs_pane(vicuna_report: Path, vicuna_doc: dict[str, Any]) -> None:
    cols = {c: i for i, c in enumerate(vicuna_doc["pair_columns"])}
    meta = vicuna_doc["meta"]
    prompt_at = {p: i for i, p in enumerate(meta["prompts"])}
    contestant_at = {c["id"]: i for i, c in enumerate(meta["contestants"])}

    def base(p: list[Any]) -> tuple[int, int, int]:
        return prompt_at[p[cols["prompt"]]], contestant_at[p[cols["a"]]], contestant_at[p[cols["b"]]]

    def split(p: list[Any]) -> float:
        a, b = p[cols["judges_for_a"]], p[cols["judges_for_b"]]
        return min(a, b) / (a + b) if a + b else 0.0

    def agreement(p: list[Any]) -> float:
        return 1.0 if p[cols["agreement"]] is None else p[cols["agreement"]]

    references = {
        "prompt": base,
        "flips": lambda p: (-p[cols["position_bias"]], *base(p)),
        "disagreement": lambda p: (-split(p), agreement(p), *base(p)),
    }
    with browser_on(vicuna_report) as b:
        for sort, key in references.items():
            b.page.select_option("#f-sort", sort)
            shown = b.page.eval_on_selector_all(
                "#pairs tbody tr", "rows => rows.map(r => [r.dataset.prompt, r.dataset.a, r.dataset.b])"
            )
            expected = sorted(vicuna_doc["pairs"], key=key)[:50]
            assert shown == [[p[cols["prompt"]], p[cols["a"]], p[cols["b"]]] for p in expected], sort
        assert b.errors == []


def test_hostile_responses_of_a_run_render_as_text(tmp_path: Path) -> None:
    """End to end: a tournament whose prompt and responses are hostile markup, run and reported by the CLI."""
    import tomli_w

    from elotui.cli import main

    spec = {
        "tournament": {"name": "hostile " + HOSTILE},
        "comparison": {"both_orders": True, "samples": 1, "conditions": ["clean"]},
        "ranking": {"method": "bt", "threshold": "none", "seed": 0},
        "contestants": [{"id": "x"}, {"id": "y"}, {"id": "z"}],
        "judges": [
            {
                "id": "sim",
                "provider": "simulated",
                "simulation": {"noise": 50.0, "seed": 1, "qualities": {"x": 1100.0, "y": 1000.0, "z": 900.0}},
            }
        ],
        "prompts": [
            {
                "id": "p1",
                "text": HOSTILE,
                "responses": {"x": HOSTILE, "y": "<i>plain</i>", "z": "z's answer"},
            },
            {"id": "p2", "text": "Second?", "responses": {"x": "a", "y": "b", "z": "c"}},
        ],
    }
    t = tmp_path / "hostile.toml"
    t.write_text(tomli_w.dumps(spec), encoding="utf-8")
    store, out = tmp_path / "store.sqlite", tmp_path / "hostile.html"
    assert main(["run", str(t), "--headless", "--no-delay", "--store", str(store)]) == 0
    assert main(["report", str(t), "--store", str(store), "-o", str(out)]) == 0
    with browser_on(out) as b:
        page = b.page
        assert page.inner_text("h1") == "hostile " + HOSTILE
        page.fill("#pair-search", "window.__pwned")
        assert page.locator("#pairs tbody tr").count() == 3  # p1 (its prompt), not p2
        page.click('#pairs tbody tr[data-a="x"][data-b="y"] button')
        assert page.text_content('#pair-detail pre[data-contestant="x"]') == HOSTILE
        assert page.text_content('#pair-detail pre[data-contestant="y"]') == "<i>plain</i>"
        assert page.locator("img").count() == 0 and page.locator("#app i").count() == 0
        assert page.evaluate("window.__pwned") is None
        assert b.errors == [] and b.others() == []


def test_a_conversation_is_shown_turn_by_turn_and_its_hostile_turns_as_text(tmp_path: Path) -> None:
    """A two-turn conversation whose earlier user turn and answer are hostile markup: the pair's detail shows user
    turn 1, both answers to it, then the judged turn and its answers, each text as text; nothing runs."""
    import tomli_w

    from elotui.cli import main

    spec = {
        "tournament": {"name": "conversation"},
        "contestants": [{"id": "x"}, {"id": "y"}],
        "judges": [
            {"id": "sim", "provider": "simulated", "simulation": {"qualities": {"x": 1100.0, "y": 1000.0}}}
        ],
        "prompts": [
            {
                "id": "p1",
                "text": "And the second question?",
                "earlier_turns": [HOSTILE],
                "earlier_answers": {"x": [HOSTILE], "y": ["y's first answer"]},
                "responses": {"x": "x's last answer", "y": "y's last answer"},
            },
            {"id": "p2", "text": "One question.", "responses": {"x": "x alone", "y": "y alone"}},
        ],
    }
    t = tmp_path / "conversation.toml"
    t.write_text(tomli_w.dumps(spec), encoding="utf-8")
    store, out = tmp_path / "store.sqlite", tmp_path / "conversation.html"
    assert main(["run", str(t), "--headless", "--no-delay", "--store", str(store)]) == 0
    assert main(["report", str(t), "--store", str(store), "-o", str(out)]) == 0
    with browser_on(out) as b:
        page = b.page
        page.click('#pairs tbody tr[data-prompt="p1"] button')
        shown = page.eval_on_selector_all(
            "#pair-detail h4, #pair-detail pre.text", "e => e.map(x => x.textContent)"
        )
        assert shown[:10] == [
            "User, turn 1",
            HOSTILE,
            "A: x, turn 1",
            HOSTILE,
            "B: y, turn 1",
            "y's first answer",
            "User, turn 2 (judged)",
            "And the second question?",
            "A: x, turn 2 (judged)",
            "x's last answer",
        ]
        assert page.text_content('#pair-detail pre[data-contestant="y"]') == "y's last answer"
        assert page.locator("img").count() == 0 and page.locator("#app b").count() == 0
        assert page.evaluate("window.__pwned") is None
        page.click('#pairs tbody tr[data-prompt="p2"] button')  # a single-turn prompt: no turns
        assert page.locator("#pair-detail pre.turn-user").count() == 0
        assert page.text_content("#pair-detail pre.prompt") == "One question."
        assert b.errors == [] and b.others() == []


def test_a_view_without_ratings_draws_without_errors(vicuna_doc: dict[str, Any], tmp_path: Path) -> None:
    doc = json.loads(json.dumps(vicuna_doc))
    board = doc["boards"][f"{doc['meta']['method']}|{doc['meta']['threshold']}"]
    for row in board["rows"]:  # as before any game: every contestant unranked
        row.update(rank=None, rating=None, ci_low=None, ci_high=None, gap_to_next=None, band=None)
    page_file = tmp_path / "unrated.html"
    with page_file.open("w", encoding="utf-8") as fh:
        write_page(doc, fh)
    with browser_on(page_file) as b:
        assert (
            b.page.eval_on_selector_all("#leaderboard tbody .rank", "c => c.map(x => x.textContent)")
            == ["–"] * 5
        )
        assert b.page.locator("#forest").count() == 0
        assert b.errors == [] and b.others() == []


def test_a_report_keeping_some_pairs_in_chromium(
    vicuna_store: Path, vicuna_doc: dict[str, Any], tmp_path: Path
) -> None:
    """`--max-pairs 50`: the page lists the 50 pairs kept, says how many of how many, and draws the per-prompt τ
    histogram over every prompt from its values."""
    from elotui.cli import main
    from tests.report.conftest import TOURNAMENT

    out = tmp_path / "kept.html"
    assert (
        main(["report", str(TOURNAMENT), "--store", str(vicuna_store), "-o", str(out), "--max-pairs", "50"])
        == 0
    )
    taus = [v for v in vicuna_doc["diagnose"]["per_prompt_tau"]["by_prompt"].values() if v is not None]
    with browser_on(out) as b:
        page = b.page
        assert page.inner_text("#pair-count") == "50 of 50 pairs kept (800 in all)"
        assert len(shown_pairs(page)) == 50
        assert "50 of the 800 pairs are in this report: the contested first" in page.inner_text("#warnings")
        assert page.text_content("#tau title").startswith(f"Histogram of per-prompt τ: {len(taus)} prompts")
        assert b.errors == [] and b.others() == []


def test_a_style_controlled_report_says_so_in_chromium(tmp_path: Path) -> None:
    """A tournament that sets style control: its Bradley–Terry boards are style-controlled, and the page says so
    in the caption and with each style coefficient (who wins when style is equal)."""
    from elotui.cli import main
    from tests.importers.fixtures import arena_battles
    from tests.importers.test_style_control import imported_and_run

    toml = imported_and_run(
        tmp_path, arena_battles(n=200, length_effect=1.5), 'style_control = ["length"]\nbootstrap = 20'
    )
    out = tmp_path / "styled.html"
    assert main(["report", str(toml), "-o", str(out), "--method", "bt"]) == 0
    with browser_on(out) as b:
        page = b.page
        assert "Bradley-Terry, style-controlled (length), threshold" in page.inner_text(
            "#leaderboard caption"
        )
        assert page.inner_text("#style-control").startswith(
            "Style control: the ratings say who wins when style is equal. +1 SD of relative length (tokens): "
        )
        page.select_option("#method", "elo")  # Elo is never style-controlled: no such line
        assert "style-controlled" not in page.inner_text("#leaderboard caption")
        assert page.locator("#style-control").count() == 0
        assert b.errors == [] and b.others() == []
