"""`elotui import mt-bench`: FastChat's pairwise judgment files (`data/mt_bench/model_judgment/*_pair.jsonl`).

A record: `question_id`, `model_1`, `model_2`, `g1_winner` and `g2_winner` (each `model_1`, `model_2`, `tie` or
`error`), `g1_judgment` and `g2_judgment` (the judge's text), `judge` = [judge model, prompt name] and `turn`.
Game 1 showed model_1's answer first, game 2 the swapped order; both become verdicts of judge `judge[0]`, each
with its judgment as reasoning. A record with a game judged `error` is skipped whole, as FastChat's
`show_result.py` drops it. Prompt ids: the question id, or `81-t2` for turn 2 when the files judge turn 2.

`--questions question.jsonl` gives the prompts' texts and categories (`question_id`, `category`, `turns`);
`--answers model_answer/` (a folder of `MODEL.jsonl`, or files: `question_id`, `model_id`, `choices[0].turns`)
the responses. Without them, a prompt's text names the question and turn, and responses are empty.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from elotui.importers.common import BadRecord, Imported, need_object, need_text, read_each, records
from elotui.tournament.data_turns import turn_id

WINNERS = ("model_1", "model_2", "tie", "error")
_FIRST = {"model_1": "first", "model_2": "second", "tie": "tie"}  # game 1: model_1 shown first
_SECOND = {"model_2": "first", "model_1": "second", "tie": "tie"}  # game 2: model_2 shown first


class Game(NamedTuple):
    """One record: a question's turn judged in both orders by one judge."""

    question: str
    turn: int
    judge: str
    model_1: str
    model_2: str
    g1_winner: str
    g2_winner: str
    g1_judgment: str | None
    g2_judgment: str | None


def import_files(
    paths: list[Path], *, skip_bad: bool, questions: Path | None = None, answers: Path | None = None
) -> Imported:
    imported = Imported(format="mt-bench", both_orders=True)
    games: list[Game] = []

    def one(imp: Imported, where: str, record: Any) -> None:
        game = _game(need_object(record))
        if "error" in (game.g1_winner, game.g2_winner):
            imp.report.skip("a game judged `error` (FastChat's show_result drops the record)", where)
        else:
            games.append(game)

    read_each(imported, paths, one, skip_bad=skip_bad)
    several_turns = any(g.turn != 1 for g in games)
    imported.turns = several_turns
    texts = _question_texts(questions) if questions is not None else {}
    answer_texts = _answer_texts(answers) if answers is not None else {}
    for g in games:
        pid = turn_id(g.question, g.turn) if several_turns else g.question
        if pid not in imported.prompts:
            text, category = texts.get(
                (g.question, g.turn), (f"MT-bench question {g.question}, turn {g.turn}", None)
            )
            imported.prompts[pid] = (
                {"text": text}
                | ({"category": category} if category else {})
                | ({"turn": g.turn} if several_turns else {})  # `export --turn N`, the TUI's turn scope
            )
        imported.verdict(pid, g.model_1, g.model_2, g.judge, _FIRST[g.g1_winner], g.g1_judgment)
        imported.verdict(pid, g.model_2, g.model_1, g.judge, _SECOND[g.g2_winner], g.g2_judgment)
        for model in (g.model_1, g.model_2):
            imported.respond(pid, model, answer_texts.get((g.question, model, g.turn)))
    imported.report.mapped.append(
        "g1 (model_1 shown first) and g2 (model_2 shown first): two verdicts a record"
    )
    if several_turns:
        imported.report.mapped.append("turn N of question Q: prompt Q-tN")
    imported.report.mapped += [
        f"{model}: win rate {rate:.4f}, adjusted {(w + t / 2) / (w + lost + t):.4f} ({w} wins, {lost} losses, "
        f"{t} ties; both orders, an inconsistent pair a tie; adjusted: a tie half a win)"
        for model, (w, lost, t, rate) in pairwise_win_rates(games).items()
    ]
    return imported


def pairwise_win_rates(games: list[Game]) -> dict[str, tuple[int, int, int, float]]:
    """model → (wins, losses, ties, win rate) with both orders of a record as one game that a model wins only
    where both orders say so (FastChat's `show_result.py --mode pairwise-all`); win rate = wins / games, the
    models in the order show_result.py prints them: by adjusted win rate (a tie half a win), highest first."""
    tally: dict[str, list[int]] = {}
    for g in games:
        for model in (g.model_1, g.model_2):
            tally.setdefault(model, [0, 0, 0])
        if g.g1_winner == "tie" or g.g1_winner != g.g2_winner:
            tally[g.model_1][2] += 1
            tally[g.model_2][2] += 1
            continue
        winner, loser = (g.model_1, g.model_2) if g.g1_winner == "model_1" else (g.model_2, g.model_1)
        tally[winner][0] += 1
        tally[loser][1] += 1
    rates = {m: (w, lost, t, w / (w + lost + t)) for m, (w, lost, t) in tally.items()}
    return dict(sorted(rates.items(), key=lambda item: -(item[1][0] + item[1][2] / 2) / sum(item[1][:3])))


def _game(record: dict[str, Any]) -> Game:
    qid = need_text(record, "question_id")
    m1, m2 = need_text(record, "model_1"), need_text(record, "model_2")
    if m1 == m2:
        raise BadRecord(f"model_1 and model_2 are the same model ({m1!r})")
    w1, w2 = record.get("g1_winner"), record.get("g2_winner")
    for key, value in (("g1_winner", w1), ("g2_winner", w2)):
        if value not in WINNERS:
            raise BadRecord(f"`{key}` must be one of {', '.join(WINNERS)} (got {value!r})")
    turn = record.get("turn", 1)
    if isinstance(turn, bool) or not isinstance(turn, int) or not 1 <= turn <= 100:
        raise BadRecord(f"`turn` must be a turn number (got {turn!r})")
    judge = record.get("judge")
    name = judge[0] if isinstance(judge, list) and judge else judge
    if not isinstance(name, str) or not name:
        raise BadRecord(f"`judge` must be [model, prompt name] (got {judge!r})")
    j1, j2 = (record.get(k) for k in ("g1_judgment", "g2_judgment"))
    return Game(
        qid,
        turn,
        name,
        m1,
        m2,
        str(w1),
        str(w2),
        j1 if isinstance(j1, str) else None,
        j2 if isinstance(j2, str) else None,
    )


def _question_texts(path: Path) -> dict[tuple[str, int], tuple[str, str | None]]:
    """(question id, turn) → (text, category) from MT-bench's question.jsonl."""
    out: dict[tuple[str, int], tuple[str, str | None]] = {}
    for where, record in records(path):
        if isinstance(record, BadRecord) or not isinstance(record, dict):
            raise BadRecord(f"{where}: not a question")
        qid = need_text(record, "question_id")
        turns = record.get("turns")
        category = record.get("category")
        for t, text in enumerate(turns if isinstance(turns, list) else [], 1):
            if isinstance(text, str):
                out[(qid, t)] = (text, category if isinstance(category, str) else None)
    return out


def _answer_texts(path: Path) -> dict[tuple[str, str, int], str]:
    """(question id, model, turn) → the answer, from MT-bench's model_answer/*.jsonl."""
    files = sorted(path.glob("*.jsonl")) if path.is_dir() else [path]
    out: dict[tuple[str, str, int], str] = {}
    for file in files:
        for where, record in records(file):
            if isinstance(record, BadRecord) or not isinstance(record, dict):
                raise BadRecord(f"{where}: not an answer")
            qid, model = need_text(record, "question_id"), record.get("model_id") or file.stem
            choices = record.get("choices")
            turns = (
                choices[0].get("turns")
                if isinstance(choices, list) and choices and isinstance(choices[0], dict)
                else None
            )
            for t, text in enumerate(turns if isinstance(turns, list) else [], 1):
                if isinstance(text, str):
                    out.setdefault((qid, str(model), t), text)
    return out
