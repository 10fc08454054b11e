"""Benchmark of `elotui report` on a 100,700-verdict tournament (the export benchmark's: 20 contestants, 53
prompts, 5 simulated judges, both orders; 10,070 pairs).

Run as `python -m tests.benchmarks.bench_report` (from the repository root). It
1. runs the tournament with `elotui run T --headless --no-delay` into a fresh store;
2. times the whole `elotui report T -o report.html` process (every threshold × method's leaderboard, the diagnose
   report, the pairs and verdicts), and prints the file's size;
3. opens the file in headless Chromium (the system's, through Playwright; skipped without them) and times the
   first view: from the navigation's start to the page's script having drawn every section (`body[data-ready]`),
   as the page's own clock (performance.now()) reads it; and one search over every pair's texts.

The machine's load average is printed: other processes share the cores.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.benchmarks.bench_export import tournament_toml

CHROMIUM = "/usr/bin/chromium"


def run(argv: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "elotui.cli", *argv], check=True, capture_output=True)
    return time.perf_counter() - started


def open_in_chromium(page_file: Path) -> tuple[float, float] | None:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    if not Path(CHROMIUM).exists():
        return None
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page()
        page.goto(page_file.as_uri())
        page.wait_for_selector("body[data-ready]", timeout=60_000)
        first_view = page.evaluate("performance.now()") / 1000
        started = page.evaluate("performance.now()")
        page.fill("#pair-search", "answer words")
        page.wait_for_function("document.getElementById('pair-count').textContent.indexOf(' of ') > 0")
        search = (page.evaluate("performance.now()") - started) / 1000
        browser.close()
    return first_view, search


def main() -> None:
    print(f"load average before: {os.getloadavg()}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        t = folder / "bench.toml"
        t.write_text(tournament_toml(), encoding="utf-8")
        store = folder / "store.sqlite"
        built = run(["run", str(t), "--headless", "--no-delay", "--store", str(store)])
        print(f"store: 100,700 planned verdicts run in {built:.1f} s")
        out = folder / "report.html"
        seconds = run(["report", str(t), "--store", str(store), "-o", str(out)])
        size = out.stat().st_size
        print(f"elotui report: {seconds:.1f} s (whole process), report.html {size / 1e6:.1f} MB")
        opened = open_in_chromium(out)
        if opened is None:
            print("Chromium or Playwright not found: the first view is not timed")
        else:
            print(
                f"Chromium: first view drawn at {opened[0]:.2f} s; a search over every pair: {opened[1]:.2f} s"
            )
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
