"""A run's `VerdictRecorded` events carry each graded verdict's strength as the store records it (simulated judges
on the graded scale); on the binary scale every event's strength is None."""

from __future__ import annotations

from pathlib import Path

import pytest

from elotui.run.events import Event, VerdictRecorded
from elotui.run.runner import Runner
from elotui.store import Store
from elotui.tournament.model import load_tournament

QUALITIES = {"top": 1400, "mid": 1150, "low": 1000}


def tournament(tmp_path: Path, scale: str) -> Path:
    contestants = "".join(f'[[contestants]]\nid = "{c}"\n' for c in QUALITIES)
    responses = ", ".join(f'{c} = "answer of {c}"' for c in QUALITIES)
    prompts = "".join(
        f'[[prompts]]\nid = "p{i}"\ntext = "Q{i}?"\nresponses = {{ {responses} }}\n' for i in range(4)
    )
    qualities = ", ".join(f"{c} = {q}" for c, q in QUALITIES.items())
    path = tmp_path / "t.toml"
    path.write_text(
        f'[tournament]\nname = "events"\n{contestants}{prompts}'
        f'[[judges]]\nid = "sim"\nprovider = "simulated"\nsimulation = {{ qualities = {{ {qualities} }}, noise = 60 }}\n'
        f'[judge_prompt]\nscale = "{scale}"\n',
        encoding="utf-8",
    )
    return path


@pytest.mark.parametrize("scale", ["graded", "binary"])
async def test_each_verdict_event_carries_the_stored_strength(tmp_path: Path, scale: str) -> None:
    events: list[Event] = []
    with Store(tmp_path / "s.sqlite") as store:
        result = await Runner(
            load_tournament(tournament(tmp_path, scale)), store, on_event=events.append, no_delay=True
        ).run()
        assert result.state == "finished"
        stored = {c.key: c.strength for c in store.calls() if c.kind == "verdict"}
    told = {e.key: e.strength for e in events if isinstance(e, VerdictRecorded)}
    assert told == stored and len(told) == 4 * 3 * 2
    if scale == "graded":
        assert {1, 2} <= set(told.values())
    else:
        assert set(told.values()) == {None}
