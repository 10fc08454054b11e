"""A small tournament with long contestant and judge names, simulated judges, an empty response (allow_empty), run
to its end in a store: what the tests of the narrow layouts (80x24, 100x30, 160x45) look at. And `screen_text`,
the screen as the terminal shows it, line by line."""

from __future__ import annotations

from pathlib import Path

from textual.app import App

from elotui.run.runner import Runner
from elotui.store import Store
from elotui.tournament.model import Tournament, load_tournament

FOURTEEN = "claude-3-haiku"  # a contestant's name of 14 characters: shown whole at 80 columns
LONG = "mixtral-8x7b-instruct-v0.1"  # 26 characters: cut, with an ellipsis
SHORT = "gpt-4o"
EMPTY_PROMPT = "p2"  # SHORT's response to it is empty

TOURNAMENT = f"""
[tournament]
name = "A tournament whose name is far too long for the first line of an eighty-column terminal"

[data]
prompts = "prompts.jsonl"
responses = "responses.jsonl"
allow_empty = true

[[contestants]]
id = "{FOURTEEN}"
[[contestants]]
id = "{LONG}"
[[contestants]]
id = "{SHORT}"

[[judges]]
id = "judge-with-a-rather-long-name"
provider = "simulated"
[judges.simulation]
qualities = {{ "{FOURTEEN}" = 2.0, "{LONG}" = 1.0, "{SHORT}" = 0.0 }}

[[judges]]
id = "j2"
provider = "simulated"
[judges.simulation]
qualities = {{ "{FOURTEEN}" = 1.5, "{LONG}" = 1.0, "{SHORT}" = 0.2 }}

[ranking]
threshold = 0.5
permutations = 20
bootstrap = 20
seed = 3
"""


def write_small(folder: Path) -> Path:
    import json

    folder.mkdir(parents=True, exist_ok=True)
    prompts = [{"id": f"p{i}", "text": f"Question {i}?"} for i in range(1, 5)]
    responses = [
        {
            "prompt_id": p["id"],
            "contestant": c,
            "response": "" if (p["id"], c) == (EMPTY_PROMPT, SHORT) else f"{c} on {p['id']}",
        }
        for p in prompts
        for c in (FOURTEEN, LONG, SHORT)
    ]
    (folder / "prompts.jsonl").write_text("".join(json.dumps(p) + "\n" for p in prompts), encoding="utf-8")
    (folder / "responses.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in responses), encoding="utf-8"
    )
    path = folder / "tournament.toml"
    path.write_text(TOURNAMENT, encoding="utf-8")
    return path


async def run_small(tmp_path: Path) -> tuple[Tournament, Store]:
    """The small tournament, judged to its end (simulated judges: no network, no delay)."""
    tournament = load_tournament(write_small(tmp_path / "small"))
    store = Store.open_for(tournament, tmp_path / "small.sqlite")
    assert (await Runner(tournament, store, no_delay=True).run()).state == "finished"
    return tournament, store


def screen_text(app: App[object]) -> list[str]:
    """The lines of the screen on top, as the terminal shows them."""
    return [strip.text for strip in app.screen._compositor.render_strips()]
