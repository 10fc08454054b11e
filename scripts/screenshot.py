"""Export an SVG screenshot of the TUI's leaderboard on the vicuna80 sample (recorded verdicts, replayed offline)
for the README: `python scripts/screenshot.py [--output docs/screenshot.svg] [--size 140x42]`.

The replay runs headlessly into a temporary store first (no network, no delays), then the app is driven
headlessly on that store and the screen is saved; nothing is written outside the temporary folder but the SVG.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_tournaments" / "vicuna80" / "tournament.toml"


async def capture(output: Path, size: tuple[int, int], keys: list[str]) -> None:
    from elotui.run.runner import Runner
    from elotui.store import Store
    from elotui.tournament.model import load_tournament
    from elotui.tui.launch import make_app

    tournament = load_tournament(SAMPLE)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["ELOTUI_HOME"] = tmp  # no user theme, no user store
        store = Store(Path(tmp) / "vicuna80.sqlite")
        try:
            result = await Runner(tournament, store, no_delay=True).run()
            if result.state != "finished":
                raise SystemExit(f"the replay did not finish: {result.state}")
            app = make_app(tournament, store, start_run=False)
            async with app.run_test(size=size) as pilot:
                for _ in range(3):
                    await app.workers.wait_for_complete()
                    await pilot.pause()
                for key in keys:
                    await pilot.press(key)
                    await app.workers.wait_for_complete()
                    await pilot.pause()
                app.screen.set_focus(None)
                await pilot.pause()
                output.parent.mkdir(parents=True, exist_ok=True)
                output.write_text(app.export_screenshot(title="elotui — vicuna80 sample"), encoding="utf-8")
        finally:
            store.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=ROOT / "docs" / "screenshot.svg")
    parser.add_argument("--size", default="140x40", help="terminal size, COLUMNSxROWS")
    parser.add_argument("--keys", default="", help="keys to press first, comma-separated (e.g. 1,m)")
    args = parser.parse_args(argv)
    cols, rows = (int(v) for v in args.size.lower().split("x"))
    asyncio.run(capture(args.output, (cols, rows), [k for k in args.keys.split(",") if k]))
    print(args.output)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
