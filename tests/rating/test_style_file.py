"""`[data] style` read column-wise (elotui.rating.style_file) where the file is in `elotui import arena`'s layout:
the lookup equals the one the typed and general readings build (elotui.rating.style_rank, written out here as it
was before the column-wise reading), and every file out of that layout — a bad row among them — goes the general way
with the same result or the same message (file, line, key)."""

from __future__ import annotations

import random
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import msgspec
import numpy as np
import pytest

from elotui.errors import UserError
from elotui.rating.style_file import importer_rows
from elotui.rating.style_rank import StyleLookup, _read_style, _typed_rows, style_lookup

CONTESTANTS = [
    "gpt-4-0613",
    "claude-2.1",
    "mixtral-8x7b-instruct-v0.1",
    "llama-2-70b-chat",
    "vicuna-33b",
    "ünï",
]


def _tournament(path: Path, prompts: list[str], contestants: list[str] = CONTESTANTS) -> Any:
    data = SimpleNamespace(style=path.name)
    return SimpleNamespace(
        prompt_ids=prompts,
        contestant_ids=contestants,
        spec=SimpleNamespace(data=data),
        resolve=lambda name: path.parent / name,
    )


def _reference(path: Path, prompts: list[str], contestants: list[str]) -> StyleLookup:
    """The lookup as `style_lookup` built it before the column-wise reading: typed, else general."""
    source = f"{path.name} (conv_metadata counts)"
    typed = _typed_rows(path)
    if typed is not None:
        return StyleLookup.from_columns(*typed, prompts, contestants, source)
    return StyleLookup.build(_read_style(path), prompts, contestants, source)


def _rows(seed: int, prompts: list[str]) -> list[dict[str, Any]]:
    """Rows as the importer writes them: each prompt's responses together, the prompts in order."""
    rng = random.Random(seed)
    rows = []
    for p in prompts:
        for c in rng.sample(CONTESTANTS, rng.choice([1, 2, 2, 3])):
            digits = rng.choice([1, 2, 3, 4, 6, 15])
            rows.append(
                {
                    "prompt": p,
                    "contestant": c,
                    "tokens": rng.randint(0, 10**digits - 1),
                    "headers": rng.randint(0, 3),
                    "lists": rng.choice([0, 7, 10, 100]),
                    "bold": rng.randint(0, 12),
                }
            )
    return rows


def _prompts(seed: int, n: int) -> list[str]:
    """Ids of many shapes (seed 0: all as long as each other, as an import's often are)."""
    rng = random.Random(seed)
    shapes = ["q{:05d}", "{:032x}", "p:{},x", "{{id {}}}", "é{}", "a b {}", "{}"]
    return [(shapes[0] if seed == 0 else rng.choice(shapes)).format(i) for i in range(n)]


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_bytes(msgspec.json.Encoder().encode_lines(rows))  # the importer's writer
    return path


def _same(got: StyleLookup, want: StyleLookup) -> None:
    assert np.array_equal(got.keys, want.keys) and got.keys.dtype == want.keys.dtype
    assert np.array_equal(got.counts, want.counts) and got.counts.dtype == want.counts.dtype
    assert (got.n_contestants, got.source) == (want.n_contestants, want.source)


@pytest.mark.parametrize("seed", range(5))
def test_the_importers_layout_is_read_column_wise_to_the_same_lookup(tmp_path: Path, seed: int) -> None:
    prompts = _prompts(seed, 300)
    rows = _rows(seed, prompts)
    rows.append(dict(rows[-1], tokens=5))  # a response named twice: the first row kept
    path = _write(tmp_path / "style.jsonl", rows)
    coded = importer_rows(path.read_bytes(), prompts, CONTESTANTS)
    assert coded is not None  # the column-wise reading took it
    assert coded[0].tolist() == [prompts.index(r["prompt"]) for r in rows]
    assert coded[1].tolist() == [CONTESTANTS.index(r["contestant"]) for r in rows]
    assert coded[2].tolist() == [[r["tokens"], r["headers"], r["lists"], r["bold"]] for r in rows]
    _same(style_lookup(_tournament(path, prompts)), _reference(path, prompts, CONTESTANTS))


def _variants(text: str) -> dict[str, str]:
    lines = text.splitlines(keepends=True)
    line = lines[5]
    return {
        "spaces": text.replace('","', '", "'),
        "another key order": text.replace('"headers"', '"h"')
        .replace('"lists"', '"headers"')
        .replace('"h"', '"lists"'),
        "a float count": "".join(lines[:5]) + line.replace('"bold":', '"bold":1.5,"x":') + "".join(lines[6:]),
        "a negative count": "".join(lines[:5]) + line.replace('"lists":', '"lists":-') + "".join(lines[6:]),
        "a leading zero": "".join(lines[:5]) + line.replace('"lists":', '"lists":0') + "".join(lines[6:]),
        "sixteen digits": "".join(lines[:5])
        + line.replace('"tokens":', '"tokens":1234567890123456')
        + "".join(lines[6:]),
        "a missing key": "".join(lines[:5]) + line.replace(',"bold":', ',"bolt":') + "".join(lines[6:]),
        "a key left out": "".join(lines[:5]) + line.split(',"bold"')[0] + "}\n" + "".join(lines[6:]),
        "an extra key": "".join(lines[:5]) + line.replace("}", ',"more":1}') + "".join(lines[6:]),
        "an escape": text.replace('"prompt":"', '"prompt":"\\u0071', 1),
        "a string count": "".join(lines[:5])
        + line.replace('"headers":', '"headers":"').replace(',"lists"', '","lists"')
        + "".join(lines[6:]),
        "an undeclared contestant": text.replace('"vicuna-33b"', '"vicuna-13b"'),
        "an undeclared prompt": "".join(lines[:5])
        + line.replace('"prompt":"', '"prompt":"zz', 1)
        + "".join(lines[6:]),
        "prompts out of order": "".join(lines[::-1]),
        "a blank line": "".join(lines[:5]) + "\n" + "".join(lines[5:]),
        "no last newline": text.rstrip("\n"),
        "windows line ends": text.replace("\n", "\r\n"),
        "a byte order mark": "\ufeff" + text,
        "a tab in a string": text.replace('"prompt":"', '"prompt":"\t', 1),
        "not an object": "".join(lines[:5]) + "[1, 2]\n" + "".join(lines[6:]),
        "broken json": "".join(lines[:5]) + line[:30] + "\n" + "".join(lines[6:]),
        "a brace in place of the end": "".join(lines[:5]) + line.replace("}", "]") + "".join(lines[6:]),
    }


@pytest.mark.parametrize("variant", list(_variants("a\nb\nc\nd\ne\nf\ng\n")))
def test_anything_else_is_read_the_general_way_with_the_same_result_or_message(
    tmp_path: Path, variant: str
) -> None:
    prompts = _prompts(7, 40)
    text = _write(tmp_path / "base.jsonl", _rows(7, prompts)).read_text(encoding="utf-8")
    path = tmp_path / "style.jsonl"
    path.write_bytes(_variants(text)[variant].encode("utf-8"))
    assert importer_rows(path.read_bytes(), prompts, CONTESTANTS) is None
    try:
        want = _reference(path, prompts, CONTESTANTS)
    except UserError as exc:
        with pytest.raises(UserError) as err:
            style_lookup(_tournament(path, prompts))
        assert (str(err.value), err.value.details) == (str(exc), exc.details)
        assert f"{path}:" in "\n".join([str(exc), *exc.details])  # names the file (and the line)
        return
    _same(style_lookup(_tournament(path, prompts)), want)


def test_ids_it_cannot_tell_apart_by_their_bytes_go_the_general_way(tmp_path: Path) -> None:
    prompts = _prompts(3, 20)
    path = _write(tmp_path / "style.jsonl", _rows(3, prompts))
    raw = path.read_bytes()
    assert importer_rows(raw, prompts, CONTESTANTS) is not None
    assert importer_rows(raw, [*prompts[:-1], prompts[-1] + "\x00"], CONTESTANTS) is None
    assert importer_rows(raw, [*prompts[:-1], "x" * 65], CONTESTANTS) is None
    assert importer_rows(raw, prompts, [*CONTESTANTS[:-1], "\ud800"]) is None
    assert importer_rows(b"", prompts, CONTESTANTS) is None
