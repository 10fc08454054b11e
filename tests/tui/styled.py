"""A tournament whose judges favour long, markdown-heavy answers: the weaker contestants write them, so the raw
ranking rewards verbosity and the style-controlled one (`[ranking] style_control`, counted from the responses'
texts) ranks by quality. Three simulated judges (both orders, noise, ties), so that every agreement threshold makes
different games. What tests/tui/test_style_toggle.py looks at."""

from __future__ import annotations

import json
from pathlib import Path

from elotui.run.runner import Runner
from elotui.store import Store
from elotui.tournament.model import Tournament, load_tournament

# quality (Elo points), and how each contestant writes: characters of prose, list items, bold spans
WRITERS = {
    "terse-strong": (300.0, 60, 0, 0),
    "plain-good": (220.0, 160, 0, 0),
    "steady-mid": (150.0, 300, 1, 0),
    "verbose-weak": (0.0, 900, 4, 3),
    "bullet-spam": (-40.0, 700, 8, 6),
    "rambling-poor": (-80.0, 1200, 2, 1),
}
PROMPTS = 10


def response(contestant: str, prompt: int) -> str:
    _, prose, items, bold = WRITERS[contestant]
    words = f"{contestant} answers question {prompt} " * (1 + prose // 32)
    text = words[: prose + 7 * (prompt % 3)]
    text += "".join(f"\n- point {i} of {prompt}" for i in range(items))
    text += "".join(f" **key {i}**" for i in range(bold))
    return text


def judges(length_bias: float) -> str:
    qualities = ", ".join(f'"{c}" = {q}' for c, (q, *_) in WRITERS.items())
    return "".join(
        f"""
[[judges]]
id = "j{i}"
provider = "simulated"
[judges.simulation]
qualities = {{ {qualities} }}
noise = 120
tie_margin = 25
length_bias = {length_bias}
seed = {i}
"""
        for i in (1, 2, 3)
    )


def write_styled(folder: Path, *, style_control: bool = True, method: str | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    prompts = [{"id": f"q{i}", "text": f"Question {i}?"} for i in range(1, PROMPTS + 1)]
    responses = [
        {"prompt_id": p["id"], "contestant": c, "response": response(c, i)}
        for i, p in enumerate(prompts, start=1)
        for c in WRITERS
    ]
    (folder / "prompts.jsonl").write_text("".join(json.dumps(p) + "\n" for p in prompts), encoding="utf-8")
    (folder / "responses.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in responses), encoding="utf-8"
    )
    ranking = "\n".join(
        filter(
            None,
            [
                "threshold = 0.5",
                f'method = "{method}"' if method else "",
                'style_control = ["length", "markdown"]' if style_control else "",
                "permutations = 10",
                "bootstrap = 30",
                "seed = 4",
            ],
        )
    )
    contestants = "".join(f'\n[[contestants]]\nid = "{c}"\n' for c in WRITERS)
    path = folder / "tournament.toml"
    path.write_text(
        f"""
[tournament]
name = "verbose judges"

[data]
prompts = "prompts.jsonl"
responses = "responses.jsonl"
{contestants}
{judges(450.0)}
[ranking]
{ranking}
""",
        encoding="utf-8",
    )
    return path


async def run_styled(
    folder: Path, *, style_control: bool = True, method: str | None = None
) -> tuple[Tournament, Store]:
    """The tournament judged to its end, in `folder`'s own store."""
    tournament = load_tournament(write_styled(folder, style_control=style_control, method=method))
    store = Store.open_for(tournament, folder / "store.sqlite")
    assert (await Runner(tournament, store, no_delay=True).run()).state == "finished"
    return tournament, store
