"""The data of the HTML report: one JSON-able document, gathered from what elotui already computes.

- `boards`: the leaderboard of every threshold × method (`TournamentSession.leaderboard`, as `elotui export`'s
  JSON document: its rows, settings, counts and warnings), keyed `"<method>|<threshold>"`, so the page switches
  between them without computing anything;
- `diagnose`: the parts of `elotui diagnose`'s report the page charts (position bias and human agreement per
  judge, agreement between judges, the head-to-head matrix, per-prompt τ, self-preference, learned weights, gold);
- `pairs`: one record per (prompt, pair) (`elotui.export.pairs.pair_records`, as the pairs pane's review export);
- `verdicts`: per pair, every recorded verdict (judge, condition, sample, which contestant was shown first, the
  winner, the status, the judge's reasoning and a graded verdict's strength, 2 strong or 1 clear: the AB/BA grid);
- `prompts`, `responses`: the texts; `conversations`: a conversation's turns before the judged one (prompt ->
  [{user, answers: {contestant: answer}}], for the prompts that have some: the pairs browser shows them turn by
  turn); `provenance`: as the JSON export's.

A tournament of more than `max_pairs` pairs (a Chatbot Arena import: a pair a battle) keeps that many in the page,
the contested first (a position-bias or inconclusive class, judges on both sides), then the others in the pairs'
order; their prompts, texts and verdicts alone, and the per-prompt τ as its values (the histogram's), so that a
10^6-battle report stays a page a browser opens. `meta.pairs` says how many pairs there are and how many are kept.

Texts are kept exact here; the page inserts every one of them as text, never as markup.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet
from typing import Any

from elotui.export.pairs import PAIR_COLUMNS, pair_records
from elotui.export.ranking import leaderboard_document
from elotui.jsonable import jsonable
from elotui.rating.pair_summary import INCONCLUSIVE, POSITION_BIAS, PairSummary
from elotui.session import TournamentSession
from elotui.tournament.model import Tournament
from elotui.vocab import THRESHOLDS, threshold_label

METHODS = ("elo", "bt")
# the diagnose report's parts that the page shows (the others are large and have no chart)
DIAGNOSE_KEYS = (
    "counts",
    "position",
    "judges",
    "agreement",
    "head_to_head",
    "per_prompt_tau",
    "human",
    "gold",
    "self_preference",
    "judge_weights",
    "position_effect",
    "length_bias",
    "reference",
)
# one verdict in `verdicts`: these fields, by position
VERDICT_FIELDS = ("judge", "condition", "sample", "first", "winner", "status", "reasoning", "strength")


def board_key(method: str, threshold: Any) -> str:
    return f"{method}|{threshold_label(threshold)}"


def boards(session: TournamentSession, scope: Mapping[str, str | None]) -> dict[str, dict[str, Any]]:
    """Every threshold × method's leaderboard of the scope (`prompt`, `category`, `judge`, `turn`, as `elotui export`
    takes them), as the JSON export's document (without provenance)."""
    turn = scope.get("turn")
    return {
        board_key(method, threshold): leaderboard_document(
            session.leaderboard(
                threshold=threshold,
                method=method,
                prompt=scope.get("prompt"),
                category=scope.get("category"),
                judge=scope.get("judge"),
                turn=None if turn is None else int(turn),
            )
        )
        for method in METHODS
        for threshold in THRESHOLDS
    }


def pair_key(prompt: str, a: str, b: str) -> str:
    return f"{prompt}\x1f{a}\x1f{b}"


def verdicts_by_pair(
    rows: Iterable[tuple[Any, ...]],
    order: dict[str, int],
    reasoning_limit: int | None,
    keys: AbstractSet[str] | None = None,
    cut: list[int] | None = None,
) -> dict[str, list[list[Any]]]:
    """Pair key -> its verdicts (`VERDICT_FIELDS`), a and b in declaration order as in the pair summaries; `rows`
    as `Store.each_recorded_verdict(strength=True)` gives them; `keys`: only these pairs' (None: every pair's);
    `cut`: gets an entry for each reasoning cut at `reasoning_limit`."""
    out: dict[str, list[list[Any]]] = {}
    for prompt, first, second, judge, condition, sample, winner, reasoning, status, _, strength in rows:
        a, b = (first, second) if order.get(first, 0) <= order.get(second, 0) else (second, first)
        key = pair_key(prompt, a, b)
        if keys is not None and key not in keys:
            continue
        text = reasoning or ""
        if reasoning_limit is not None and len(text) > reasoning_limit:
            text = text[:reasoning_limit] + " […]"
            if cut is not None:
                cut.append(len(cut))
        out.setdefault(key, []).append([judge, condition, sample, first, winner, status, text, strength])
    return out


def meta(
    tournament: Tournament,
    scope: Mapping[str, str],
    reasoning_limit: int | None,
    prompts: AbstractSet[str] | None = None,
) -> dict[str, Any]:
    """What the page needs to label and order everything: names, labels, the views and the first one shown;
    `prompts`: the prompts of the pairs kept (None: every prompt)."""
    spec = tournament.spec
    ids = tournament.prompt_ids if prompts is None else [p for p in tournament.prompt_ids if p in prompts]
    categories = tournament.categories
    if prompts is not None:
        categories = {p: c for p, c in categories.items() if p in prompts}
    return {
        "tournament": tournament.name,
        "criterion": spec.tournament.criterion,
        "description": spec.tournament.description,
        "contestants": [{"id": c.id, "label": c.label or c.id} for c in spec.contestants],
        "judges": [{"id": j.id, "label": j.label or j.id} for j in spec.judges],
        "prompts": ids,
        "categories": categories,
        "thresholds": [threshold_label(th) for th in THRESHOLDS],
        "methods": list(METHODS),
        "threshold": threshold_label(spec.ranking.threshold),
        "method": spec.ranking.method if spec.ranking.method in METHODS else "elo",
        "reasoning_limit": reasoning_limit,
        "scope": ", ".join(f"{k} {v}" for k, v in scope.items()) or None,
    }


MAX_PAIRS = 20_000  # pairs a page holds unless told otherwise: ~10 MB of data; 10^6 would be ~300 MB


def pair_rows(summaries: list[PairSummary], categories: Mapping[str, str]) -> list[list[Any]]:
    """Each (prompt, pair)'s record (`PAIR_COLUMNS` but the prompt text), as a list."""
    names = [c for c in PAIR_COLUMNS if c != "prompt_text"]
    return [[r[c] for c in names] for r in pair_records(summaries, categories, {})]


def kept_pairs(summaries: list[PairSummary], limit: int | None) -> list[PairSummary]:
    """Every pair when there are at most `limit` (None: no limit); else `limit` of them: the contested first (a
    position-bias or inconclusive class, judges on both sides), then the others, each in the pairs' order, and
    the kept ones listed in the pairs' order."""
    if limit is None or len(summaries) <= limit:
        return summaries
    contested = [_contested(s) for s in summaries]
    first = [i for i, c in enumerate(contested) if c][:limit]
    rest = [i for i, c in enumerate(contested) if not c][: limit - len(first)]
    return [summaries[i] for i in sorted(first + rest)]


def _contested(s: PairSummary) -> bool:
    return s.klass in (POSITION_BIAS, INCONCLUSIVE) or s.any_flip or s.judges_split


def response_map(
    session: TournamentSession, prompts: AbstractSet[str] | None = None
) -> dict[str, dict[str, str | None]]:
    """prompt -> contestant -> its response (None: not produced yet), for `prompts` (None: every prompt)."""
    out: dict[str, dict[str, str | None]] = {}
    for (prompt, contestant), text in session.response_texts().items():
        if prompts is None or prompt in prompts:
            out.setdefault(prompt, {})[contestant] = text
    return out


def conversation_map(
    tournament: Tournament, prompts: AbstractSet[str] | None = None
) -> dict[str, list[dict[str, Any]]]:
    """prompt -> its turns before the judged one, each {"user": its text, "answers": {contestant: answer}}, for
    `prompts` (None: every prompt)."""
    from elotui.plan.context_blocks import conversations

    return {
        prompt: [{"user": e.user, "answers": dict(e.answers)} for e in exchanges]
        for prompt, exchanges in conversations(tournament).items()
        if prompts is None or prompt in prompts
    }


def report_document(
    session: TournamentSession,
    *,
    reasoning_limit: int | None = None,
    scope: Mapping[str, str | None] | None = None,
    max_pairs: int | None = MAX_PAIRS,
) -> dict[str, Any]:
    """Everything the page shows, as one JSON-able document (see the module's docstring). `scope` restricts the
    leaderboards (`prompt`, `category`, `judge`, `turn`); the other parts cover the whole tournament. `max_pairs`:
    the pairs kept (None: all)."""
    chosen = {k: v for k, v in (scope or {}).items() if v is not None}
    t = session.tournament
    diagnose = session.diagnose_report()
    order = {c: i for i, c in enumerate(t.contestant_ids)}
    summaries = session.pair_summaries()
    kept = kept_pairs(summaries, max_pairs)
    cut = len(kept) < len(summaries)
    prompts = {s.prompt for s in kept} if cut else None
    keys = {s.key for s in kept} if cut else None
    reasons_cut: list[int] = []
    verdicts = verdicts_by_pair(
        session.store.each_recorded_verdict(strength=True), order, reasoning_limit, keys, reasons_cut
    )
    shown_limit = reasoning_limit if reasons_cut else None  # the page says it cut reasoning only where it did
    doc = {
        "meta": meta(t, chosen, shown_limit, prompts) | {"pairs": {"all": len(summaries), "kept": len(kept)}},
        "provenance": session.provenance(),
        "boards": boards(session, chosen),
        "diagnose": _diagnose_part(diagnose, values_only=cut),
        "pair_columns": [c for c in PAIR_COLUMNS if c != "prompt_text"],
        "pairs": pair_rows(kept, t.categories),
        "verdict_fields": list(VERDICT_FIELDS),
        "verdicts": verdicts,
        "prompt_texts": {p: text for p, text in t.prompt_texts.items() if prompts is None or p in prompts},
        "responses": response_map(session, prompts),
        "conversations": conversation_map(t, prompts),
    }
    return jsonable(doc)  # type: ignore[no-any-return]


def _diagnose_part(diagnose: Mapping[str, Any], *, values_only: bool) -> dict[str, Any]:
    """The diagnose report's parts the page shows; `values_only`: the per-prompt τ as its values alone (the
    histogram's), not keyed by prompt."""
    part = {key: diagnose.get(key) for key in DIAGNOSE_KEYS}
    tau = part.get("per_prompt_tau")
    if values_only and tau:
        part["per_prompt_tau"] = {**tau, "by_prompt": {}, "values": list(tau["by_prompt"].values())}
    return part
