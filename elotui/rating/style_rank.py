"""`[ranking] style_control`: Bradley–Terry with style covariates (elotui.rating.style_bt) on a leaderboard's games.

A game's style comes from a `StyleLookup`: per (prompt, contestant) the counts of the response's tokens, markdown
headers, list items and bold spans — from `[data] style` (Chatbot Arena's `conv_metadata`, written by `elotui
import arena`) or counted in the responses' texts (tokens: elotui's estimate, characters / 4). The ratings say who
wins when style is equal; each coefficient is reported in Elo points per standard deviation of its feature, with
its bootstrap interval, in the leaderboard's settings (`style_control`). A JSON Lines `[data] style` file is read
once: what its reading gives is kept on disk by the file's SHA-256 and the tournament's ids
(elotui.tournament.style_cache) and read back by every later command.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from itertools import repeat
from typing import Any

import msgspec
import numpy as np
from numpy.typing import NDArray

from elotui.rating import style_bt
from elotui.rating.board import Rated
from elotui.rating.games import Games
from elotui.rating.labels import signed_points
from elotui.runtime.heap import collector_off
from elotui.tournament import style_cache
from elotui.tournament.style_cache import first_of_each

LEVEL = 0.95


@dataclass(frozen=True, eq=False)
class StyleLookup:
    """Style counts (tokens, headers, lists, bold) by prompt code * contestants + contestant code."""

    keys: NDArray[np.int64]  # sorted
    counts: NDArray[np.float64]  # (len(keys), 4)
    n_contestants: int
    source: str
    # the SHA-256 of the `[data] style` file read, where its reading hashed it (the cache names it so)
    sha256: str | None = None

    @classmethod
    def build(
        cls,
        rows: Iterable[tuple[str, str, tuple[float, float, float, float]]],
        prompts: list[str],
        contestants: list[str],
        source: str,
    ) -> StyleLookup:
        """From (prompt, contestant, counts) rows; rows naming what the tournament does not declare are left out."""
        listed = list(rows)
        counts = np.array([r[2] for r in listed], dtype=np.float64).reshape(-1, 4)
        named = [r[0] for r in listed], [r[1] for r in listed]
        return cls.from_columns(*named, counts, prompts, contestants, source)

    @classmethod
    def from_columns(
        cls,
        row_prompts: list[str],
        row_contestants: list[str],
        counts: NDArray[np.float64],
        prompts: list[str],
        contestants: list[str],
        source: str,
    ) -> StyleLookup:
        """From the rows as columns (the prompt and contestant of each, its (rows, 4) counts); of rows naming the
        same response the first is kept, rows naming what the tournament does not declare are left out."""
        p_code = {p: i for i, p in enumerate(prompts)}
        c_code = {c: i for i, c in enumerate(contestants)}
        n = len(row_prompts)
        pc = np.fromiter(map(p_code.get, row_prompts, repeat(-1)), dtype=np.int64, count=n)
        cc = np.fromiter(map(c_code.get, row_contestants, repeat(-1)), dtype=np.int64, count=n)
        known = (pc >= 0) & (cc >= 0)
        return cls.from_codes(pc[known], cc[known], counts[known], len(contestants), source)

    @classmethod
    def from_codes(
        cls,
        prompt: NDArray[np.int64],
        contestant: NDArray[np.int64],
        counts: NDArray[np.float64],
        n_contestants: int,
        source: str,
    ) -> StyleLookup:
        """From the rows as codes (each a declared prompt's and contestant's), as `from_columns` keeps them: of rows
        naming the same response the first."""
        return cls(*first_of_each(prompt, contestant, counts, n_contestants), n_contestants, source)

    @classmethod
    def from_texts(
        cls, responses: Mapping[tuple[str, str], str], prompts: list[str], contestants: list[str]
    ) -> StyleLookup:
        # an empty response (an import without the texts) has no counts: reported as missing, counted as 0
        rows = ((p, c, style_bt.text_counts(text)) for (p, c), text in responses.items() if text.strip())
        return cls.build(rows, prompts, contestants, "the responses' texts (tokens: characters / 4)")

    def of(
        self, prompt: NDArray[np.integer], contestant: NDArray[np.integer]
    ) -> tuple[NDArray[np.float64], int]:
        """(games, 4) counts, and how many games' responses have none (counted as 0)."""
        want = prompt.astype(np.int64) * self.n_contestants + contestant
        at = np.searchsorted(self.keys, want)
        at = np.minimum(at, max(len(self.keys) - 1, 0))
        hit = self.keys[at] == want if len(self.keys) else np.zeros(len(want), dtype=bool)
        if hit.all():  # every response has its counts (an import's): one gather
            return self.counts[at], 0
        out = np.zeros((len(want), 4))
        out[hit] = self.counts[at[hit]]
        return out, int((~hit).sum())


def style_rated(
    g: Games, groups: tuple[str, ...], lookup: StyleLookup, *, bootstrap: int, seed: int, unit: str
) -> tuple[Rated, dict[str, Any]]:
    """The style-controlled ratings (Elo scale, not centred) and what the settings report about the fit."""
    names = style_bt.features_of(groups)
    columns = [style_bt.FEATURES.index(f) for f in names]
    first, missing_a = lookup.of(g.prompt, g.a)
    second, missing_b = lookup.of(g.prompt, g.b)
    x = style_bt.covariates(first[:, columns], second[:, columns])
    clusters = g.prompt if unit == "prompt" and len(g.prompt) == len(g.a) else None
    fit = style_bt.style_ranking(
        g.a, g.b, g.score_a, x, g.n_contestants, clusters=clusters, bootstrap=bootstrap, seed=seed
    )
    point = fit.point.rating
    if len(fit.rounds):
        low, high = np.percentile(fit.rounds, [100 * (1 - LEVEL) / 2, 100 * (1 + LEVEL) / 2], axis=0)
    else:
        low, high = point.copy(), point.copy()
    info = {
        "features": list(groups),
        "source": lookup.source,
        "reg": style_bt.REG,
        "missing_responses": missing_a + missing_b,
        "coefficients": [
            _coefficient(f, fit.point.coef[i], fit.coef_rounds[:, i]) for i, f in enumerate(names)
        ],
    }
    return Rated(point, low, high, fit.rounds), info


def _coefficient(feature: str, coef: float, rounds: NDArray[np.float64]) -> dict[str, Any]:
    elo = float(coef) * style_bt.ELO_PER_LOGIT
    if len(rounds):
        lo, hi = (float(v) * style_bt.ELO_PER_LOGIT for v in np.percentile(rounds, [2.5, 97.5]))
    else:
        lo = hi = elo
    return {
        "feature": feature,
        "label": style_bt.LABELS[feature],
        "logit_per_sd": float(coef),
        "elo_per_sd": elo,
        "interval": [lo, hi],
        "text": f"+1 SD of {style_bt.LABELS[feature]}: {signed_points(elo)} [{signed_points(lo)}, "
        f"{signed_points(hi)}] Elo points",
    }


class _StyleRow(msgspec.Struct):
    """A row of `[data] style` as the fast reading takes it (`_typed_rows`)."""

    prompt: str
    contestant: str
    tokens: float
    headers: float
    lists: float
    bold: float


def style_lookup(tournament: Any, prompts: list[str] | None = None) -> StyleLookup:
    """The tournament's style counts: `[data] style` (rows of prompt, contestant, tokens, headers, lists, bold),
    else its responses' texts. UserError naming the file and line of a bad row. `prompts`: its prompt ids, where
    the caller has listed them."""
    prompts = tournament.prompt_ids if prompts is None else prompts
    contestants = tournament.contestant_ids
    data = tournament.spec.data
    if data is None or data.style is None:
        return StyleLookup.from_texts(tournament.responses, prompts, contestants)
    path = tournament.resolve(data.style)
    source = f"{path.name} (conv_metadata counts)"
    if str(path).endswith(".jsonl"):
        entry = style_cache.Entry(path, prompts, contestants)
        kept = entry.read()
        if kept is not None:
            return StyleLookup(*kept, len(contestants), source, entry.file_sha256)
        raw = _read_bytes(path)  # read once for both fast readings
        with _hashing(raw) as digest:
            found = _fast_lookup(path, raw, prompts, contestants, source)
        if found is not None:
            entry.keep(digest[0], found.keys, found.counts)
            return replace(found, sha256=digest[0].hex())
    return StyleLookup.build(_read_style(path), prompts, contestants, source)


def _fast_lookup(
    path: Any, raw: bytes, prompts: list[str], contestants: list[str], source: str
) -> StyleLookup | None:
    """The lookup of a JSON Lines style file by one of the fast readings (column-wise, else typed); None where
    neither takes it (the general reading then says which line is wrong)."""
    coded = _importer_rows(raw, prompts, contestants)
    if coded is not None:
        return StyleLookup.from_codes(*coded, len(contestants), source)
    with collector_off():  # 2 * 10^6 rows without cycles (elotui.runtime.heap)
        typed = _typed_rows(path, raw)
    if typed is not None:
        return StyleLookup.from_columns(*typed, prompts, contestants, source)
    return None


@contextmanager
def _hashing(raw: bytes) -> Iterator[list[bytes]]:
    """The SHA-256 of `raw`, taken in a thread while the block runs (hashlib lets go of the interpreter): the name
    the lookup read from exactly these bytes is kept under."""
    digest: list[bytes] = []
    thread = threading.Thread(target=lambda: digest.append(hashlib.sha256(raw).digest()), daemon=True)
    thread.start()
    try:
        yield digest
    finally:
        thread.join()


def _jsonl_bytes(path: Any) -> bytes | None:
    """A JSON Lines style file's bytes (None for another format: only the general reading takes it)."""
    return _read_bytes(path) if str(path).endswith(".jsonl") else None


def _read_bytes(path: Any) -> bytes:
    from elotui.tournament.user_files import read_regular_file

    return read_regular_file(path)


def _importer_rows(
    raw: bytes | None, prompts: list[str], contestants: list[str]
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.float64]] | None:
    """The rows of a style file in `elotui import arena`'s layout, read column-wise (elotui.rating.style_file);
    None for any other file (`raw`: its bytes, None where it is not JSON Lines)."""
    from elotui.rating.style_file import importer_rows

    return None if raw is None else importer_rows(raw, prompts, contestants)


def _typed_rows(
    path: Any, raw: bytes | None = None
) -> tuple[list[str], list[str], NDArray[np.float64]] | None:
    """A JSON Lines style file decoded typed by msgspec, as columns (`elotui import arena`'s 2 * 10^6 rows: ~2 s
    instead of ~30 through the general reading); None where that does not take it all (another format, a field of
    another type, a negative count): the general reading then says which line is wrong."""
    if raw is None:
        raw = _jsonl_bytes(path)
    if raw is None:
        return None
    try:
        rows = msgspec.json.Decoder(_StyleRow).decode_lines(raw)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    counts = np.array([(r.tokens, r.headers, r.lists, r.bold) for r in rows], dtype=np.float64).reshape(-1, 4)
    if len(counts) and counts.min() < 0:
        return None
    return [r.prompt for r in rows], [r.contestant for r in rows], counts


def _read_style(path: Any) -> list[tuple[str, str, tuple[float, float, float, float]]]:
    from elotui.errors import UserError
    from elotui.tournament.data_rows import read_rows

    problems: list[str] = []
    rows = []
    for row in read_rows(path, problems):
        v = row.values
        counts = [v.get(f) for f in style_bt.FEATURES]
        if not all(isinstance(c, (int, float)) and not isinstance(c, bool) and c >= 0 for c in counts):
            problems.append(f"{path}:{row.line}: needs counts {', '.join(style_bt.FEATURES)} (numbers ≥ 0)")
            continue
        rows.append((str(v.get("prompt")), str(v.get("contestant")), tuple(float(c) for c in counts)))  # type: ignore[arg-type]
    if problems:
        raise UserError(f"{path}: {len(problems)} bad style row(s)", details=problems[:10])
    return rows  # type: ignore[return-value]
