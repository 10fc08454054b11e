"""A tournament name as a file-name stem (its default store's name): a module of its own, so that what names a
store (an import's snapshot: elotui.importers.recorded_snapshot) does not load the tournament model."""

from __future__ import annotations

import re


def slug_of(name: str) -> str:
    """A tournament name as a file-name stem: lowercase words joined by '-', cut at a word boundary (≤ 40
    chars)."""
    words = re.findall(r"[a-z0-9]+", name.lower())
    out = ""
    for word in words:
        candidate = f"{out}-{word}" if out else word
        if len(candidate) > 40:
            break
        out = candidate
    return out or (words[0][:40] if words else "tournament")
