"""A fuzz test of bad input: seeded mutations of the bundled and documented tournament files (lines dropped,
duplicated or swapped, numbers made huge, negative, fractional or text, strings emptied, bytes flipped, the file cut
short). `elotui validate` must answer each with exit 0, or exit 2 and a message naming the file and a line —
never a traceback, exit 1 or a hang. Bounded: a fixed number of cases."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from elotui.cli import main
from tests.foundation.test_docs_examples import toml_blocks

ROOT = Path(__file__).resolve().parents[2]
CASES = 320
NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])")
WEIRD_NUMBERS = [
    "1e308",
    "-1",
    "0",
    "1000000000000",
    "1.5",
    '"7"',
    "inf",
    "nan",
    "-0",
    "99999999999999999999999",
]


def sources() -> list[str]:
    texts = [(ROOT / "sample_tournaments/competency_profiles/tournament.toml").read_text(encoding="utf-8")]
    texts += [
        b
        for doc in ("README.md", "docs/tournament-file.md")
        for b in toml_blocks(ROOT / doc)
        if "[tournament]" in b
    ]
    return texts


def mutate(text: str, rng: random.Random) -> str:
    lines = text.splitlines() or [""]  # an earlier mutation may have cut the file to nothing
    kind = rng.randrange(8)
    i = rng.randrange(len(lines))
    if kind == 0:
        del lines[i]
    elif kind == 1:
        lines.insert(i, lines[rng.randrange(len(lines))])
    elif kind == 2:
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    elif kind == 3 and NUMBER.search(lines[i]):
        lines[i] = NUMBER.sub(lambda m: rng.choice(WEIRD_NUMBERS), lines[i], count=1)
    elif kind == 4:
        lines[i] = re.sub(r'"[^"]*"', '""', lines[i], count=1)
    elif kind == 5:
        cut = "\n".join(lines)
        return cut[: rng.randrange(len(cut))]
    elif kind == 6:
        chars = list(lines[i]) or [" "]
        chars[rng.randrange(len(chars))] = rng.choice(["[", "]", "=", '"', "\x00", "\\", "{", "#"])
        lines[i] = "".join(chars)
    else:
        lines.insert(
            i,
            rng.choice(
                [
                    "[[judges]]",
                    "[ranking]",
                    "samples = 100000000",
                    "permutations = 1e12",
                    "max_concurrency = 100000000",
                    "timeout_s = 1e300",
                    "k = [[[[[[1]]]]]]",
                ]
            ),
        )
    return "\n".join(lines)


def test_mutated_files_are_answered_with_a_location(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = random.Random(20261201)
    texts = sources()
    for case in range(CASES):
        text = texts[case % len(texts)]
        for _ in range(rng.randrange(1, 4)):
            text = mutate(text, rng)
        path = tmp_path / f"case{case}.toml"
        path.write_text(text, encoding="utf-8")
        code = main(["validate", str(path)])
        out = capsys.readouterr()
        assert code in (0, 2), (case, code, out.err[-1500:], text[:2000])
        assert "Traceback" not in out.err and "unexpected error" not in out.err, (case, out.err[-1500:])
        if code == 2:
            assert re.search(rf"{re.escape(str(path))}(:\d+)?", out.err), (case, out.err[-800:])
