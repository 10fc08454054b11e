"""What a run starts from: the calls the plan needs, the plan stored, and which of them the store answered.

Planning a million presentations (rendering each prompt, hashing each call key) takes seconds, so a plan is stored
with its *fingerprint*: a hash of everything it was computed from (the tournament's settings, prompts and
responses, the templates and few-shot examples, each judge's identity, the generated and paraphrased texts and
elotui's version). A run whose fingerprint matches the stored plan's does not plan again: it reads which
presentations are unanswered from the store's columns and renders only those.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from contextlib import ExitStack
from dataclasses import dataclass

import numpy as np

from elotui.judges.base import Judge
from elotui.judges.replay_index import reading_ahead
from elotui.plan.calls import Call, Texts, prerequisite_calls
from elotui.plan.keys import canonical_json
from elotui.plan.presentations import Plan
from elotui.plan.prompts import PromptBuilder
from elotui.plan.verdict_calls import VerdictCalls, verdict_calls
from elotui.run.setup import logs_read, ready_now
from elotui.store import Store
from elotui.tournament.model import Tournament
from elotui.tournament.user_files import read_regular_file
from elotui.vocab import OUTCOME_INVALID

PLAN_FORMAT = 1  # bump when planning or keying changes in a way the version number would not tell


def plan_fingerprint(
    tournament: Tournament, builder: PromptBuilder, judges: Mapping[str, Judge], texts: Texts
) -> str:
    """A hash of everything the plan and its call keys are computed from."""
    from elotui import __version__

    t = tournament
    examples = t.spec.comparison.examples_file
    parts = {
        "elotui": [__version__, PLAN_FORMAT],
        "spec": t.spec.model_dump(mode="json"),
        "prompts": t.prompt_texts,
        "responses": sorted([p, c, text] for (p, c), text in t.responses.items()),
        "templates": [
            builder.system_template,
            builder.user_template,
            builder.example_template,
            builder.injection,
            builder.paraphrase_system,
            builder.paraphrase_user,
            # references and conversations: their templates (absent otherwise, so earlier plans stay reusable)
            *(
                [builder.reference_template, builder.conversation_system, builder.conversation_user]
                if builder.contexts
                else []
            ),
        ],
        "examples": hashlib.sha256(read_regular_file(t.resolve(examples))).hexdigest() if examples else None,
        "judges": {jid: judges[jid].identity() for jid in sorted(judges)},
        "generated": sorted([p, c, text] for (p, c), text in texts.generated.items()),
        "paraphrased": sorted(texts.paraphrased.items()),
    }
    return hashlib.sha256(canonical_json(parts).encode("utf-8")).hexdigest()


@dataclass
class Prepared:
    prereqs: list[Call]
    verdicts: VerdictCalls  # with a reused plan: the unanswered presentations' calls only
    answered: set[str]  # keys of `prereqs` and `verdicts.calls` answered in the store or the shared cache
    cached: int  # plan rows (and prerequisite calls) already answered


def prepare(
    tournament: Tournament,
    plan: Plan,
    builder: PromptBuilder,
    judges: Mapping[str, Judge],
    store: Store,
    *,
    read_ahead: bool = False,
) -> Prepared:
    """The calls, the plan stored, which calls are answered. `read_ahead` (a run that `sends_all`): the plan rows go
    once stored (10^6 rows: ~150 MB), and the judges with calls to answer read what they read before their first
    call (a replay judge its log: elotui.run.setup.ready_now) while the plan's end (its key index, snapshot and
    commit: ~5 s of SQLite work at 10^6 rows, without Python's lock) is written behind (Store.set_plan), instead
    of after it; what they read is read ahead by child processes while the plan is made (a replay judge's log:
    elotui.judges.replay_index.reading_ahead), and a child whose judge has nothing to answer is stopped. Which calls the
    store answered is asked before the plan is stored, so that no judge whose calls are all answered reads
    anything."""
    prereqs = prerequisite_calls(tournament, plan, builder, judges)
    texts = Texts.load(tournament, store, prereqs)
    with ExitStack() as ahead:

        def read_logs_ahead() -> None:  # while the plan is made, on another core (elotui.judges.replay_index)
            if read_ahead:
                ahead.enter_context(reading_ahead(logs_read(judges.values())))

        verdicts, reused, fingerprint = _planned(
            tournament, plan, builder, judges, store, texts, read_logs_ahead
        )
        answered = store.cached_keys([c.key for c in prereqs] + [c.key for c in verdicts.calls])
        _store(store, verdicts, fingerprint, behind=True)
        if read_ahead:
            verdicts.rows.clear()
            ready_now(
                judges[jid] for jid in sorted({c.judge for c in verdicts.calls if c.key not in answered})
            )
    cached = sum(1 for c in prereqs if c.key in answered)
    cached += sum(c.rows for c in verdicts.calls if c.key in answered) + reused
    if not any(c.key not in answered for c in prereqs):
        texts.store_derived(store, plan)
    return Prepared(prereqs, verdicts, answered, cached)


def sends_all(tournament: Tournament) -> bool:
    """Whether a run sends every call of the plan: not an adaptive or screened one, which choose as they go (from
    the plan rows: elotui.run.screening)."""
    comparison = tournament.spec.comparison
    return not (comparison.plan == "adaptive" or comparison.screen)


def _store(store: Store, verdicts: VerdictCalls, fingerprint: str | None, *, behind: bool = False) -> None:
    """The plan stored (Store.set_plan), unless the stored one is reused (`fingerprint` None)."""
    if fingerprint is not None:
        store.set_plan(verdicts.rows, None if verdicts.blocked else fingerprint, behind=behind)


def _planned(
    tournament: Tournament,
    plan: Plan,
    builder: PromptBuilder,
    judges: Mapping[str, Judge],
    store: Store,
    texts: Texts,
    about_to_plan: Callable[[], None] = lambda: None,
) -> tuple[VerdictCalls, int, str | None]:
    """The verdict calls; how many plan rows were answered already when the stored plan is reused (their calls
    are left out); and the fingerprint to store the plan with (None: the stored plan is reused).
    `about_to_plan` is called before planning rows some of which may still be unanswered."""
    fingerprint = plan_fingerprint(tournament, builder, judges, texts)
    if fingerprint == store.plan_fingerprint():
        outcome = store.verdict_columns().outcome
        unanswered = np.flatnonzero(outcome > OUTCOME_INVALID)
        if len(outcome) == len(plan.comparisons):
            if len(unanswered):
                about_to_plan()
            calls = verdict_calls(plan, builder, texts, judges, only=set(unanswered.tolist()))
            return calls, len(outcome) - len(unanswered), None
    about_to_plan()
    return verdict_calls(plan, builder, texts, judges), 0, fingerprint


def replan(
    tournament: Tournament,
    plan: Plan,
    builder: PromptBuilder,
    judges: Mapping[str, Judge],
    store: Store,
    prereqs: list[Call],
) -> tuple[VerdictCalls, set[str], int]:
    """After the generation and paraphrase calls: the plan stored again with every key resolved. The verdict
    calls, which of them are answered, and how many plan rows those answer."""
    texts = Texts.load(tournament, store, prereqs)
    verdicts, reused, fingerprint = _planned(tournament, plan, builder, judges, store, texts)
    answered = store.cached_keys(c.key for c in verdicts.calls)
    _store(store, verdicts, fingerprint)
    texts.store_derived(store, plan)
    return verdicts, answered, reused + sum(c.rows for c in verdicts.calls if c.key in answered)
