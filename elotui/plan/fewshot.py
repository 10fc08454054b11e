"""Few-shot by retrieval (Braun and Forell 2026, bias mitigation): the most similar past judged comparison as a worked example.

`comparison.examples_file` is JSON Lines, one past judged comparison per line:

    {"prompt": "...", "response_a": "...", "response_b": "...", "better": "A" | "B" | "tie",
     "reasoning": "..."}

(`better` also accepts "first"/"second"; blank lines and lines starting with `#` are skipped.)

Similarity is TF-IDF cosine over prompt + both responses, computed locally with numpy: tokens are lowercase
runs of letters/digits, term frequency is the raw count, idf = ln((1 + N) / (1 + df)) + 1 (smoothed), and
every vector is L2-normalised. Ties go to the example that comes first in the file. The query is built from the
clean prompt and responses, so every order and condition of a comparison gets the same example.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from elotui.errors import UserError
from elotui.tournament.user_files import lone_surrogate, may_hold_surrogate, read_text_file, surrogate_message

_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
_BETTER = {"a": "A", "b": "B", "tie": "tie", "first": "A", "second": "B", "1": "A", "2": "B"}
_BETTER.update({g.lower(): g for g in ("A>>B", "A>B", "A=B", "B>A", "B>>A")})  # graded (arena-hard's scale)


@dataclass(frozen=True)
class Example:
    prompt: str
    response_a: str
    response_b: str
    better: str  # "A" | "B" | "tie", or a grade "A>>B" | "A>B" | "A=B" | "B>A" | "B>>A"
    reasoning: str

    @property
    def text(self) -> str:
        return f"{self.prompt}\n{self.response_a}\n{self.response_b}"


def tokenize(text: str) -> list[str]:
    return [t.lower() for t in _TOKEN.findall(text)]


def load_examples(path: Path) -> list[Example]:
    """The examples of a file (read through elotui.tournament.user_files: a regular file, bounded, UTF-8); UserError naming the
    file and line of the first bad one."""
    text = read_text_file(path)
    escapes = may_hold_surrogate(text)
    out: list[Example] = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        row = _row(path, n, line, escapes)
        missing = [
            k for k in ("prompt", "response_a", "response_b", "better") if not isinstance(row.get(k), str)
        ]
        if missing:
            raise UserError(f"{path}:{n}: missing or non-text field(s): {', '.join(missing)}")
        better = _BETTER.get(str(row["better"]).strip().lower())
        if better is None:
            raise UserError(
                f'{path}:{n}: better must be "A", "B" or "tie" (or a grade: "A>>B", "A>B", "A=B", "B>A", '
                f'"B>>A"), not {row["better"]!r}'
            )
        reasoning = row.get("reasoning") or ""
        out.append(Example(row["prompt"], row["response_a"], row["response_b"], better, str(reasoning)))
    if not out:
        raise UserError(f"{path}: the examples file holds no example")
    return out


def _row(path: Path, n: int, line: str, escapes: bool) -> dict[str, Any]:
    try:
        row = json.loads(line)
    except json.JSONDecodeError as exc:
        raise UserError(f"{path}:{n}: not a JSON object ({exc.msg})") from None
    except RecursionError:
        raise UserError(f"{path}:{n}: JSON nested too deeply") from None
    if not isinstance(row, dict):
        raise UserError(f"{path}:{n}: not a JSON object")
    if escapes and (escape := lone_surrogate(row)) is not None:
        raise UserError(f"{path}:{n}: {surrogate_message(escape)}")
    return row


class ExampleIndex:
    """TF-IDF vectors of the examples, stored sparsely (term ids and weights per example)."""

    def __init__(self, examples: list[Example]) -> None:
        if not examples:
            raise ValueError("an ExampleIndex needs at least one example")
        self.examples = examples
        counts = [Counter(tokenize(e.text)) for e in examples]
        vocab: dict[str, int] = {}
        for c in counts:
            for term in c:
                vocab.setdefault(term, len(vocab))
        self.vocab = vocab
        df = np.zeros(len(vocab), dtype=np.float64)
        for c in counts:
            df[[vocab[t] for t in c]] += 1
        n = len(examples)
        self.idf = np.log((1.0 + n) / (1.0 + df)) + 1.0
        doc_ids: list[np.ndarray] = []
        term_ids: list[np.ndarray] = []
        weights: list[np.ndarray] = []
        for i, c in enumerate(counts):
            ids = np.fromiter((vocab[t] for t in c), dtype=np.int64, count=len(c))
            w = np.fromiter(c.values(), dtype=np.float64, count=len(c)) * self.idf[ids]
            norm = float(np.sqrt(np.dot(w, w)))
            doc_ids.append(np.full(len(c), i, dtype=np.int64))
            term_ids.append(ids)
            weights.append(w / norm if norm > 0 else w)
        self._doc = np.concatenate(doc_ids) if doc_ids else np.zeros(0, dtype=np.int64)
        self._term = np.concatenate(term_ids) if term_ids else np.zeros(0, dtype=np.int64)
        self._weight = np.concatenate(weights) if weights else np.zeros(0)

    def query_vector(self, text: str) -> np.ndarray:
        q = np.zeros(len(self.vocab), dtype=np.float64)
        for term, count in Counter(tokenize(text)).items():
            j = self.vocab.get(term)
            if j is not None:
                q[j] = count * self.idf[j]
        norm = float(np.sqrt(np.dot(q, q)))
        return q / norm if norm > 0 else q

    def similarities(self, text: str) -> np.ndarray:
        """Cosine similarity of `text` to every example (in file order)."""
        q = self.query_vector(text)
        return np.bincount(self._doc, weights=self._weight * q[self._term], minlength=len(self.examples))

    def most_similar(self, prompt: str, response_a: str, response_b: str) -> tuple[Example, float]:
        sims = self.similarities(f"{prompt}\n{response_a}\n{response_b}")
        best = int(np.argmax(sims))  # argmax returns the first of equal maxima
        return self.examples[best], float(sims[best])
