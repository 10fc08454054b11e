"""One tournament and its store, as every front end reads them: the query layer of elotui.

`TournamentSession(tournament, store)` answers what `elotui export`, `elotui diagnose`, the graph export and the
TUI ask: the verdict table of the current plan, a leaderboard for a view, the diagnose report and its inputs, one
pair's details, the last invalid reply, judge statistics and response texts. Each is defined here once; callers
never write SQL or assemble the table themselves. No Textual here.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from elotui.errors import UserError
from elotui.rating.leaderboard import Leaderboard, RatingOptions, Scope, rank_games, scoped_games
from elotui.rating.pair_summary import PairSummary, summarise_columns
from elotui.rating.table import VerdictTable
from elotui.records import DiagnoseReport, JudgeStats, PairDetail
from elotui.runtime.heap import collector_off
from elotui.store import Store, VerdictColumns
from elotui.store.human_votes import HumanVotesTable
from elotui.tournament.data_files import listing
from elotui.tournament.model import Tournament
from elotui.verdict_log import FIELDS, VerdictRow, read_log
from elotui.vocab import SCREEN_METHODS, Threshold, parse_threshold

if TYPE_CHECKING:
    from elotui.plan.context_blocks import Exchange
    from elotui.rating.style_rank import StyleLookup


@dataclass
class DiagnoseInputs:
    """Everything `rating.diagnostics.diagnose()` takes besides the verdict table."""

    human_votes: list[VerdictRow] | None  # the verdict log of [reference] votes
    reference_ranking: list[str] | None
    prompt_references: dict[str, list[str]]
    lengths: dict[tuple[str, str], int]
    method: str
    options: RatingOptions
    problems: list[UserError] = field(default_factory=list)
    gold: list[dict[str, Any]] | None = (
        None  # the rows of [reference] gold  # inputs that could not be read (left out)
    )


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The rows of a JSONL file (gzipped or not); UserError naming the file and line for a broken one."""
    from elotui.tournament.data_rows import read_rows

    problems: list[str] = []
    rows = [r.values for r in read_rows(path, problems)]
    if problems:
        raise UserError(f"{path}: {len(problems)} unreadable row(s)", details=problems)
    return rows


class TournamentSession:
    def __init__(self, tournament: Tournament, store: Store) -> None:
        self.tournament = tournament
        self.store = store
        self.options = RatingOptions.from_config(tournament.spec.ranking)
        self._prompt_ids: list[str] | None = None
        self._style: StyleLookup | None = None
        self._ranked: tuple[VerdictColumns, VerdictTable] | None = None
        # the last judge_stats read: (its cost, its end); None while one is going on
        self._stats_read: tuple[float, float] | None = (0.0, 0.0)
        if tournament.spec.ranking.style_control:
            self.control_style(tuple(tournament.spec.ranking.style_control))
        # the strong verdicts (`strong_weight`): the replay logs' read once, the store's again with each new read
        self._logged_strong: set[int] | None = None
        self._strong_of: VerdictColumns | None = None
        if tournament.spec.ranking.strong_weight > 1:
            self._count_strong(None)
        if tournament.spec.ranking.exclude_self:
            self.options = self.options.replace(
                excluded=tuple((j, c) for j, (c, _) in sorted(tournament.selves().items()))
            )

    def _count_strong(self, columns: VerdictColumns | None) -> None:
        """Refresh the strong verdicts the ranking counts `strong_weight` times (elotui.rating.graded): those of
        the replay logs (read once) and the store's graded ones (read again when `columns` is a new read)."""
        if self.tournament.spec.ranking.strong_weight <= 1 or (
            columns is not None and columns is self._strong_of
        ):
            return
        from elotui.rating.graded import logged_strong, strong_verdicts

        if self._logged_strong is None:
            self._logged_strong = logged_strong(self.tournament)
        strong = strong_verdicts(self.tournament, self.store.strong_verdicts(), logged=self._logged_strong)
        self.options = self.options.replace(strong=strong)
        self._strong_of = columns

    def options_now(self) -> RatingOptions:
        """The rating options with the store's strong verdicts read again (the TUI's live ranking, while a run
        stores graded verdicts); the same options when `strong_weight` counts nothing."""
        self._strong_of = None
        self._count_strong(None)
        return self.options

    def control_style(self, groups: tuple[str, ...]) -> None:
        """Rank Bradley–Terry with these style covariates (elotui.rating.style_rank), from `[data] style` or the
        responses' texts."""
        self.options = self.options.replace(style_control=groups, style=self._style_counts())

    def _style_counts(self) -> StyleLookup:
        """The tournament's style counts (elotui.rating.style_rank.style_lookup), read once per session: style control
        and the response lengths of `diagnose --style-control` both take them (2 * 10^6 rows at 10^6 battles)."""
        if self._style is None:
            from elotui.rating.style_rank import style_lookup

            self._style = style_lookup(self.tournament, self.prompt_ids)
        return self._style

    @property
    def votes(self) -> HumanVotesTable:
        """The human votes cast in the pairs pane (cast, undo, read: elotui.store.human_votes)."""
        return self.store

    # --- the verdict table ---------------------------------------------------------------------------------------

    @property
    def prompt_ids(self) -> list[str]:
        """The tournament's prompt ids, listed once per session (10^6 of an import: the style lookup and every plan
        table take them)."""
        if self._prompt_ids is None:
            self._prompt_ids = self.tournament.prompt_ids
        return self._prompt_ids

    def empty_table(self) -> VerdictTable:
        t = self.tournament
        return VerdictTable.of_distinct(  # the ids are checked distinct when the tournament is read
            t.contestant_ids, self.prompt_ids, t.judge_ids, list(dict.fromkeys(t.spec.comparison.conditions))
        )

    def plan_table(
        self, columns: VerdictColumns | None = None, *, include_missing: bool = True
    ) -> VerdictTable:
        """The verdict table of the current plan, coded in the file's declared order. `include_missing=False`
        leaves out the presentations with no recorded call (the TUI appends them as they are answered).
        `columns`: `store.verdict_columns()` when the caller has read them."""
        table = self.empty_table()
        columns = self.store.verdict_columns() if columns is None else columns
        self._count_strong(columns)
        table.extend_columns(columns, include_missing)
        return table

    def _ranked_table(self, columns: VerdictColumns) -> VerdictTable:
        """The plan table the leaderboards rank, built once per read of the store (the store returns the same
        columns while nothing was committed; rankings never modify the table)."""
        if self._ranked is None or self._ranked[0] is not columns:
            self._ranked = (columns, self.plan_table(columns))
        return self._ranked[1]

    # --- leaderboards --------------------------------------------------------------------------------------------

    def scope_prompts(
        self, prompt: str | None = None, category: str | None = None, turn: int | None = None
    ) -> list[str] | None:
        """The prompts of a scope: one prompt, one category's prompts, one turn's (`[data] turn = [1, 2]`), or
        None (every prompt). Raises UserError for an unknown prompt, category or turn."""
        if turn is None:
            return self._scope_prompts(prompt, category)
        turns = self.tournament.prompt_turns
        if turn not in turns.values():
            known = self.judged_turns()
            raise UserError(
                f"turn {turn} is not judged in {self.tournament.path.name} "
                f"({'turns: ' + ', '.join(map(str, known)) if known else 'give [data] turn = [1, 2] to judge several'})"
            )
        chosen = self._scope_prompts(prompt, category)
        return [p for p in (chosen if chosen is not None else turns) if turns[p] == turn]

    def judged_turns(self) -> list[int]:
        """The turns judged as their own prompts (`[data] turn = [1, 2]`), in order; a turn scope takes one."""
        return sorted({t for t in self.tournament.prompt_turns.values() if t is not None})

    def _scope_prompts(self, prompt: str | None, category: str | None) -> list[str] | None:
        t = self.tournament
        if prompt is not None and prompt not in self.prompt_ids:
            raise UserError(
                f"prompt '{prompt}' is not in {t.path.name} (prompts: {listing(self.prompt_ids)})"
            )
        if category is None:
            return [prompt] if prompt is not None else None
        by_category = t.categories
        if category not in by_category.values():
            known = sorted(set(by_category.values()))
            raise UserError(
                f"category '{category}' is not in {t.path.name} "
                f"({'categories: ' + ', '.join(known) if known else 'its prompts have no category'})"
            )
        chosen = [p for p in self.prompt_ids if by_category.get(p) == category]
        return [p for p in chosen if p == prompt] if prompt is not None else chosen

    def leaderboard(
        self,
        *,
        threshold: Threshold | str | None = None,
        method: str | None = None,
        prompt: str | None = None,
        category: str | None = None,
        judge: str | None = None,
        once: bool = False,
        drop_to_flip: bool = False,
        turn: int | None = None,
    ) -> Leaderboard:
        """The leaderboard of the current plan (no judge calls). `threshold` / `method` override `[ranking]`;
        `prompt`, `category`, `turn` and `judge` restrict the scope (to one prompt, one category's prompts, one
        turn's prompts, one judge's verdicts). Raises UserError for an unknown prompt, category or judge, a bad threshold or
        method, or a store without a plan.

        `drop_to_flip`: fill in each adjacent row's `drop_to_flip` and `fragile` (elotui.rating.drop_to_flip).

        `once`: the session's last use of the verdicts (`elotui export`). Neither the store nor the session keeps
        them, and they are let go as soon as the games are made, so the ranking's arrays reuse their memory: at
        10^7 verdicts the export's peak 746 MiB instead of 982, 199k page faults instead of 259k."""
        t = self.tournament
        settings = t.spec.ranking
        try:
            chosen = settings.threshold if threshold is None else parse_threshold(threshold)
        except ValueError as exc:
            raise UserError(str(exc)) from None
        chosen_method = settings.method if method is None else method
        if chosen_method not in SCREEN_METHODS:
            raise UserError(f"method must be one of {', '.join(SCREEN_METHODS)}, not {chosen_method!r}")
        prompts = self.scope_prompts(prompt, category, turn)
        if judge is not None and judge not in t.judge_ids:
            raise UserError(f"judge '{judge}' is not in {t.path.name} (judges: {', '.join(t.judge_ids)})")
        columns = self.store.verdict_columns(keep=not once)
        if not len(columns):
            recorded = t.spec.comparison.pairs == "recorded"  # an import (or a file of recorded pairs)
            raise UserError(
                f"{self.store.path}: no comparison plan recorded for this tournament yet "
                + (
                    f"(its verdicts are in its logs: `elotui run {t.path} --headless` replays them into this store "
                    "without a model call; a folder `elotui import` wrote, then moved or copied, has its store "
                    "here, not the one the import filled)"
                    if recorded
                    else "(run `elotui run` first)"
                )
            )
        table = self.plan_table(columns) if once else self._ranked_table(columns)
        del columns
        contestants = table.contestants
        scope: Scope = {"prompts": prompts, "judges": [judge] if judge is not None else None}
        g = scoped_games(table, threshold=chosen, options=self.options, scope=scope)
        del table  # once: the verdicts' memory is the process's again, for the ranking's arrays
        board = rank_games(
            contestants, g, threshold=chosen, method=chosen_method, options=self.options, scope=scope
        )
        if drop_to_flip:  # the fewest verdicts each adjacent order rests on (refits: the export and diagnose)
            from elotui.rating.drop_to_flip import with_drop_to_flip

            board = with_drop_to_flip(board, contestants, g, self.options)
        return self.note_design(board)

    def note_design(self, board: Leaderboard) -> Leaderboard:
        """The comparison design in the settings, and what a baseline design cannot tell as a warning."""
        baseline = self.tournament.baseline
        pairs = self.tournament.spec.comparison.pairs
        board.settings["design"] = (
            {"pairs": pairs if isinstance(pairs, str) else "all"}
            if baseline is None
            else {"pairs": "baseline", "baseline": baseline}
        )
        if baseline is not None:
            board.warnings.append(
                {
                    "kind": "baseline_design",
                    "contestants": [baseline],
                    "message": f"baseline design: every contestant met only {baseline}; win rates are against "
                    f"{baseline}, and the order of two others is inferred through {baseline} alone "
                    "(they never met)",
                }
            )
        return board

    # --- provenance ----------------------------------------------------------------------------------------------

    def provenance(self) -> dict[str, Any]:
        """What an exported ranking came from: the elotui version, the tournament file and data files (content
        hashes; the `[data] style` file's too, and each replay judge's log as its `path_sha256`), each judge's provider, model and settings (variable names for keys, never a key; no userinfo in
        URLs), the store, its runs and its human votes by voter, and when it was exported."""
        from collections import Counter
        from datetime import UTC, datetime

        from elotui import __version__
        from elotui.judges.secrets import redact_url
        from elotui.store.runs import run_summaries

        t, votes = self.tournament, dict(sorted(Counter(v.voter for v in self.store.human_votes()).items()))
        judges = {}
        for j in t.spec.judges:
            settings = j.model_dump(mode="json", exclude_none=True)
            if isinstance(settings.get("base_url"), str):
                settings["base_url"] = redact_url(settings["base_url"])
            if j.provider == "replay" and j.path:  # the verdicts a replay judge answers from
                settings["path_sha256"] = _sha256_of(t.resolve(j.path))
            judges[j.id] = settings
        data = t.data
        files: dict[str, str | None] = dict(data.files) if data else {}
        style = t.spec.data.style if t.spec.data is not None else None
        if style is not None:  # the style counts style control reads (not part of the data merge)
            read = self._style.sha256 if self._style is not None else None  # hashed when read: not again
            files[style] = read or _sha256_of(t.resolve(style))
        return {
            "elotui_version": __version__,
            "tournament_file": {"path": str(t.path), "sha256": t.content_hash},
            "data_files": files,
            "skipped_prompts": dict(data.skipped) if data else {},
            "judges": judges,
            "store": {"path": str(self.store.path), "runs": run_summaries(self.store), "human_votes": votes},
            "exported_at": datetime.now(UTC).isoformat(timespec="seconds"),
        }

    # --- diagnostics ---------------------------------------------------------------------------------------------

    def response_lengths(self) -> dict[tuple[str, str], int]:
        """(prompt, contestant) -> length of the response: its `[data] style` tokens where that file gives them (an
        arena import has the battles' token counts, not their texts), else its length in characters, from the file
        or generated texts."""
        lengths = {key: len(text) for key, text in self.tournament.responses.items()}
        for row in self.store.texts():
            if row.kind not in ("generation", "response") or row.condition not in (None, "clean"):
                continue
            if row.prompt is not None and row.contestant is not None:
                lengths.setdefault((row.prompt, row.contestant), len(row.text or ""))
        data = self.tournament.spec.data
        if data is not None and data.style is not None:
            lookup = self._style_counts()
            prompts, contestants, n = (
                self.prompt_ids,
                self.tournament.contestant_ids,
                lookup.n_contestants,
            )
            for key, tokens in zip(lookup.keys.tolist(), lookup.counts[:, 0].tolist(), strict=True):
                lengths[(prompts[key // n], contestants[key % n])] = round(tokens)
        return lengths

    def diagnose_inputs(self) -> DiagnoseInputs:
        """Human votes, the reference rankings, response lengths and the `[ranking]` settings. A votes log that
        cannot be read is reported in `problems` and left out."""
        spec = self.tournament.spec
        votes, problems = None, list[UserError]()
        if spec.reference is not None and spec.reference.votes:
            try:
                votes = list(read_log(self.tournament.resolve(spec.reference.votes)))
            except UserError as exc:
                problems.append(exc)
        votes = self._with_stored_votes(votes)
        gold = None
        if spec.reference is not None and spec.reference.gold:
            try:
                gold = _read_jsonl(self.tournament.resolve(spec.reference.gold))
            except UserError as exc:
                problems.append(exc)
        return DiagnoseInputs(
            gold=gold,
            human_votes=votes,
            reference_ranking=list(spec.reference.ranking)
            if spec.reference and spec.reference.ranking
            else None,
            prompt_references={
                p.id: list(p.reference_ranking)
                for p in self.tournament.prompts_with_context()
                if p.reference_ranking
            },
            lengths=self.response_lengths(),
            method=spec.ranking.method,
            options=self.options.replace(bootstrap=0),
            problems=problems,
        )

    def _with_stored_votes(self, votes: list[VerdictRow] | None) -> list[VerdictRow] | None:
        """The file's votes and the store's (cast from the pairs pane), each vote once: a stored vote exported to
        the votes file (`elotui verdicts --judge human`) is the same row there, and counts once."""
        stored = [
            cast(VerdictRow, dict(zip(FIELDS, v.log_row(), strict=True))) for v in self.store.human_votes()
        ]
        if not stored:
            return votes
        seen = {tuple(v.values()) for v in stored}
        return stored + [v for v in votes or [] if tuple(v.get(k) for k in FIELDS) not in seen]

    def diagnose_report(
        self,
        table: VerdictTable | None = None,
        *,
        method: str | None = None,
        max_permutations: int | None = None,
        inputs: DiagnoseInputs | None = None,
        pairs: bool = False,
        flips: bool | None = None,
        turn: int | None = None,
    ) -> DiagnoseReport:
        """The diagnose report (docs/diagnose.md) of `table` (default: the current plan's). `method` rates the
        reference comparison (default `[ranking] method`); `max_permutations` caps the Elo orders (the TUI);
        `turn`: only the prompts of that turn (`[data] turn = [1, 2]`). `pairs`: each pair's record (`pairs`);
        `flips` (default: as `pairs`): how few verdicts each adjacent order rests on (`drop_to_flip`)."""
        from elotui.rating.diagnostics import diagnose  # lazy: keeps `elotui --help` fast
        from elotui.rating.human import voter_agreement

        inputs = inputs or self.diagnose_inputs()
        options = inputs.options
        if max_permutations is not None:
            options = options.replace(permutations=min(options.permutations, max_permutations))
        columns = self.store.verdict_columns() if table is None or pairs else None  # read once for both
        table, in_turn = self._turn_table(self.plan_table(columns) if table is None else table, turn)
        report = diagnose(
            table,
            human_votes=cast("list[Mapping[str, Any]] | None", inputs.human_votes),
            reference_ranking=inputs.reference_ranking,
            prompt_references=inputs.prompt_references,
            lengths=inputs.lengths,
            method=method or inputs.method,
            options=options,
            categories=self.tournament.categories,
            threshold=self.tournament.spec.ranking.threshold,
            gold=inputs.gold,
            selves={j: c for j, (c, _) in self.tournament.selves().items()},
        )
        report["tournament"] = self.tournament.name
        report["voters"] = voter_agreement((v.voter, *v.pair_key, v.winner) for v in self.store.human_votes())
        if (
            pairs
        ):  # one row per (prompt, pair): its majority class and how the judges split (rating.pair_summary)
            assert columns is not None
            report["pairs"] = self._pair_records(columns, in_turn)
        if pairs if flips is None else flips:
            report["drop_to_flip"] = self._drop_to_flip_report(table)
        return cast(DiagnoseReport, report)

    def _pair_records(self, columns: VerdictColumns, in_turn: set[str] | None) -> list[dict[str, Any]]:
        """Each (prompt, pair)'s summary as a record, of the turn's prompts where `in_turn` names them."""
        summaries = self.pair_summaries(columns=columns)
        return [s.as_record() for s in summaries if in_turn is None or s.prompt in in_turn]

    def _drop_to_flip_report(self, table: VerdictTable) -> list[dict[str, Any]]:
        """The leaderboard's adjacent orders and how few verdicts each rests on (elotui.rating.drop_to_flip), over
        the diagnosed table (one turn's prompts with a turn scope): the raw ranking's, whose fit the refits are
        (a style-controlled ranking's orders would need the style terms refitted too)."""
        from elotui.rating.drop_to_flip import flip_records

        threshold = self.tournament.spec.ranking.threshold
        options = self.options.replace(style_control=())
        g = scoped_games(table, threshold=threshold, options=options)
        board = rank_games(
            table.contestants,
            g,
            threshold=threshold,
            method=self.tournament.spec.ranking.method,
            options=options,
        )
        return flip_records(board, table.contestants, g, options)

    def _turn_table(self, table: VerdictTable, turn: int | None) -> tuple[VerdictTable, set[str] | None]:
        """(the table of one turn's prompts, those prompts), or (`table`, None) without a turn."""
        if turn is None:
            return table, None
        chosen = self.scope_prompts(turn=turn) or []
        return table.of_prompts(chosen), set(chosen)

    # --- pairs, judges and texts ---------------------------------------------------------------------------------

    def pair_details(self, prompt: str, a: str, b: str) -> list[PairDetail]:
        return self.store.pair_details(prompt, a, b)

    def last_invalid(self, key: str | None = None) -> PairDetail | None:
        """The latest invalid reply of the plan (or the presentation answered by call `key`)."""
        found = self.store.detail_for_call(key) if key is not None else None
        return found or self.store.last_invalid()

    def judge_stats(self) -> dict[str, JudgeStats]:
        """Per-judge totals over the plan, read on a connection of their own, opened for the read (a few ms): at
        10^6 verdicts the join takes ~1-2 s, and on the store's connection it held the lock that a run's writes
        wait for (the TUI reads them every 2 s while a run goes on: a 10^6-verdict run took 59 s in the TUI against
        37 s headless). SQLite's WAL lets a reader and the writer go on together."""
        self._stats_read, started = None, time.monotonic()
        try:
            with Store(self.store.path) as reader:
                return reader.judge_stats()
        finally:
            self._stats_read = (time.monotonic() - started, time.monotonic())

    def judge_stats_rested(self, rest: float) -> bool:
        """No judge_stats read is going on, and the last ended at least `rest` times its own cost ago: a caller that
        reads again and again (the TUI's judges panel, while a run goes on) spends at most 1 / (1 + rest) of one
        core on them, however large the store (a read at 10^6 verdicts takes ~1-2 s)."""
        read = self._stats_read
        return read is not None and time.monotonic() - read[1] >= rest * read[0]

    def pair_summaries(
        self,
        *,
        judge: str | None = None,
        condition: str | None = None,
        columns: VerdictColumns | None = None,
    ) -> list[PairSummary]:
        """Every (prompt, pair) of the plan summarised (elotui.rating.pair_summary), from one judge's or one
        condition's verdicts when given; `columns`: `store.verdict_columns()` when the caller has read them."""
        cols = self.store.verdict_columns() if columns is None else columns
        keep = None
        for value, names, codes in (
            (judge, cols.judges, cols.judge),
            (condition, cols.conditions, cols.condition),
        ):
            if value is not None:
                match = codes == (names.index(value) if value in names else -1)
                keep = match if keep is None else keep & match
        # 10^5-10^6 summaries, each with its sets: the collector's passes over them would halve the speed
        with collector_off():
            return summarise_columns(cols, self.tournament.contestant_ids, keep)

    def pair_reasoning(self) -> dict[str, str]:
        """Pair key (PairSummary.key) -> the reasoning of every verdict on the pair, one per line."""
        order = {c: i for i, c in enumerate(self.tournament.contestant_ids)}
        out: dict[str, list[str]] = {}
        for prompt, first, second, reasoning in self.store.plan_reasoning():
            a, b = (first, second) if order.get(first, 0) <= order.get(second, 0) else (second, first)
            out.setdefault(f"{prompt}\x1f{a}\x1f{b}", []).append(reasoning)
        return {k: "\n".join(v) for k, v in out.items()}

    def response_texts(self) -> dict[tuple[str, str], str | None]:
        """(prompt, contestant) -> its response (the file's, else the generated one; None: not produced yet)."""
        out: dict[tuple[str, str], str | None] = dict(self.tournament.responses.items())
        for row in self.store.texts("generation"):
            if row.prompt is not None and row.contestant is not None:
                out.setdefault((row.prompt, row.contestant), row.text)
        return out

    def response_text(self, prompt: str, contestant: str) -> str | None:
        """The response as the file gives it, else the stored generation (None: not produced yet)."""
        text = self.tournament.responses.get((prompt, contestant))
        return text if text is not None else self.store.generated_text(prompt, contestant)

    def shown_response(self, prompt: str, contestant: str) -> str | None:
        """`response_text` as the pairs pane shows it: in a conversation, every turn, user and answer, in order."""
        from elotui.plan.context_blocks import readable_conversation

        text = self.response_text(prompt, contestant)
        return None if text is None else readable_conversation(self.tournament, prompt, contestant, text)

    def earlier_exchanges(self, prompt: str) -> list[Exchange]:
        """A conversation's turns before the judged one (user message, each contestant's answer), in order; none
        for a single-turn prompt."""
        from elotui.plan.context_blocks import earlier_exchanges

        return earlier_exchanges(self.tournament, prompt)

    def judge_kinds(self) -> Mapping[str, str]:
        """judge id -> "live", "replay" or "simulated" (what the screen labels)."""
        return {
            j.id: j.provider if j.provider in ("replay", "simulated") else "live"
            for j in self.tournament.spec.judges
        }


def _sha256_of(path: Path) -> str | None:
    """The file's SHA-256 (hex), read a chunk at a time; None where it cannot be read."""
    from elotui.tournament.style_cache import file_digest

    digest = file_digest(path)
    return digest.hex() if digest is not None else None
