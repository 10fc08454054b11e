"""`elotui diagnose T [--format text|json]`: bias and agreement diagnostics, recomputed from the store.

Position stability per judge and condition, inter-judge agreement (percent, Cohen's κ, Fleiss' κ), win rates
per judge and pooled, head-to-head wins, per-prompt Kendall τ (against the global ranking and against each prompt's
own `reference_ranking`), length bias, agreement with human votes
(`[reference] votes`) and with a reference ranking for every threshold. The JSON schema is in docs/diagnose.md.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from itertools import pairwise
from typing import IO, Any

from elotui.commands.common import (
    add_output_arg,
    add_store_arg,
    add_tournament_arg,
    open_tournament,
    output_stream,
    style_lines,
    table_lines,
)


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "diagnose", help="position bias, judge agreement, win rates, human and reference agreement"
    )
    add_tournament_arg(p)
    p.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    p.add_argument(
        "--turn", type=int, metavar="N", help="only the prompts of one turn (of [data] turn = [1, 2, ...])"
    )
    p.add_argument(
        "--style-control",
        action="store_true",
        help='each style coefficient with its interval (as [ranking] style_control = ["length", "markdown"], '
        "the file's own features if it sets them)",
    )
    add_store_arg(p)
    add_output_arg(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from elotui.session import TournamentSession

    tournament, store = open_tournament(args)
    with store:
        session = TournamentSession(tournament, store)
        inputs = session.diagnose_inputs()
        if (
            inputs.problems
        ):  # a broken votes log is bad input for `elotui diagnose` (the TUI reports and goes on)
            raise inputs.problems[0]
        # each pair's record is the JSON's alone (10^6 of them for a Chatbot Arena import: seconds the text skips)
        json_out = args.format == "json"
        report = session.diagnose_report(inputs=inputs, pairs=json_out, flips=True, turn=args.turn)
        if args.style_control and not session.options.style_control:
            session.control_style(("length", "markdown"))
        if session.options.style_control:  # each style coefficient, with its interval (of the turn's games)
            board = session.leaderboard(method="bt", turn=args.turn)
            report["style_control"] = board.settings.get("style_control")
    with output_stream(args.output) as out:
        if json_out:
            json.dump(report, out, indent=2, ensure_ascii=False)
            out.write("\n")
        else:
            write_text(report, out)
    return 0


# --- text rendering -------------------------------------------------------------------------------------------


def _num(value: Any, digits: int = 3) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    return f"{value:.{digits}f}"


def _pct(value: Any) -> str:
    return "—" if value is None else f"{100 * value:.1f}%"


def _section(out: IO[str], title: str, lines: list[str]) -> None:
    out.write(f"\n{title}\n{'=' * len(title)}\n")
    for line in lines:
        out.write(line + "\n")


def _position_rows(items: list[tuple[str, dict[str, Any]]]) -> list[list[str]]:
    return [
        [
            name,
            _num(r["units"]),
            _pct(r["consistent"]),
            _pct(r["position_bias"]),
            _pct(r["inconclusive"]),
            _pct(r["first_slot_share"]),
        ]
        for name, r in items
    ]


def write_text(report: Mapping[str, Any], out: IO[str]) -> None:
    c = report["counts"]
    out.write(f"Diagnostics: {report.get('tournament', '')}\n")
    out.write(
        f"{c['verdicts']:,} planned verdicts: {c['verdicts_used']:,} valid, {c['invalid']:,} invalid, "
        f"{c['failed']:,} failed, {c['missing']:,} missing; {_count(len(report['contestants']), 'contestant')}, "
        f"{_count(len(report['judges_order']), 'judge')}, {_count(report['prompts'], 'prompt')}\n"
    )
    for section in (
        _position_sections,
        _agreement_section,
        _human_section,
        _win_rate_sections,
        _tau_section,
        _prompt_reference_section,
        _length_section,
        _reference_section,
        _category_section,
        _gold_section,
        _self_section,
        _position_effect_section,
        _weights_section,
        _per_judge_section,
        _drop_to_flip_section,
    ):
        section(report, out)
    out.writelines(f"{line}\n" for line in style_lines(report.get("style_control")))


_POSITION_HEADER = ["", "mirrored", "consistent", "position bias", "inconclusive", "first-slot share"]


def _position_sections(report: Mapping[str, Any], out: IO[str]) -> None:
    judges = report["judges"]
    items = [(j, judges[j]["position"]) for j in report["judges_order"]] + [
        ("all judges", report["position"])
    ]
    _section(out, "Position stability (both orders)", table_lines(_POSITION_HEADER, _position_rows(items)))
    if len(report["conditions"]) > 1:
        items = [(cond, report["conditions_position"][cond]) for cond in report["conditions"]]
        _section(
            out,
            "Position stability by condition",
            table_lines(["condition", *_POSITION_HEADER[1:]], _position_rows(items)),
        )


def _count(n: int, noun: str) -> str:
    """`1 judge`, `5 judges`, `1,000,000 prompts`."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def _agreement_section(report: Mapping[str, Any], out: IO[str]) -> None:
    if len(report["judges_order"]) < 2:  # as the TUI says it
        _section(out, "Inter-judge agreement", ["one judge: no inter-judge agreement to measure"])
        return
    ag = report["agreement"]
    lines = [
        (
            f"Fleiss' κ {_num(ag['fleiss_kappa'])}, all judges agree on {_pct(ag['percent_agreement'])} "
            f"of {ag['items']} items answered by every judge"
        )
    ]
    if ag["pairs"]:
        lines += [""] + table_lines(
            ["judges", "items", "agreement", "Cohen's κ"],
            [
                [
                    " / ".join(p["judges"]),
                    _num(p["items"]),
                    _pct(p["percent_agreement"]),
                    _num(p["cohen_kappa"]),
                ]
                for p in ag["pairs"]
            ],
        )
    _section(out, "Inter-judge agreement", lines)


def _human_section(report: Mapping[str, Any], out: IO[str]) -> None:
    if report["human"] is None:
        return
    judges = report["judges"]
    rows = [
        [
            j,
            _num(judges[j]["human"]["compared"]),
            _pct(judges[j]["human"]["accuracy"]),
            _pct(judges[j]["human"]["accuracy_decisive"]),
            _num(judges[j]["human"]["cohen_kappa"]),
            _num(judges[j]["human"]["fleiss_kappa"]),
        ]
        for j in report["judges_order"]
    ]
    _section(
        out,
        f"Agreement with human votes ({report['human']['votes']} votes)",
        table_lines(["judge", "compared", "accuracy", "accuracy (decisive)", "Cohen's κ", "Fleiss' κ"], rows),
    )


def _win_rate_sections(report: Mapping[str, Any], out: IO[str]) -> None:
    wr, names = report["win_rates"], report["contestants"]
    header = ["contestant", "pooled", *report["judges_order"]]
    rows = [
        [cname, *(_pct(wr[k].get(cname)) for k in ["pooled", *report["judges_order"]])] for cname in names
    ]
    _section(out, "Win rates over verdicts (a tie counts half)", table_lines(header, rows))
    h2h = report["head_to_head"]
    rows = [
        [a, *("·" if i == j else str(h2h["wins"][i][j]) for j in range(len(names)))]
        for i, a in enumerate(names)
    ]
    _section(out, "Head-to-head wins (row beat column)", table_lines(["", *names], rows))


def _tau_section(report: Mapping[str, Any], out: IO[str]) -> None:
    import numpy as np  # lazy: `elotui --help` imports no command's work

    tau = report["per_prompt_tau"]
    s = tau["summary"]
    lines = [
        (
            f"{s['prompts']} prompts: mean {_num(s['mean'], 2)}, median {_num(s['median'], 2)}, "
            f"min {_num(s['min'], 2)}, max {_num(s['max'], 2)}"
        )
    ]
    if tau.get("contestants") == 2:
        lines.append(
            "each prompt compares 2 contestants: τ is +1 where the one ranked higher overall won it, −1 where it "
            "lost (a tie has no τ)"
        )
    values = np.array([v for v in tau["by_prompt"].values() if v is not None], dtype=np.float64)
    values = values[~np.isnan(values)]
    if len(values):
        edges = [-1.0, -0.5, 0.0, 0.5, 0.8, 1.0001]
        labels = ["τ < -0.5", "-0.5 ≤ τ < 0", "0 ≤ τ < 0.5", "0.5 ≤ τ < 0.8", "τ ≥ 0.8"]
        counts = [int(np.count_nonzero((lo <= values) & (values < hi))) for lo, hi in pairwise(edges)]
        lines += [
            f"  {label:<14} {n:>4}  {'#' * round(40 * n / len(values))}"
            for label, n in zip(labels, counts, strict=True)
        ]
    _section(out, "Per-prompt ranking vs global ranking (Kendall τ of win rates)", lines)


def _length_section(report: Mapping[str, Any], out: IO[str]) -> None:
    lb = report["length_bias"]
    if lb is None:
        return
    judges = report["judges"]
    rows = [
        [
            j,
            _num(judges[j]["length_bias"]["decisive_verdicts"]),
            _pct(judges[j]["length_bias"]["longer_wins_share"]),
        ]
        for j in report["judges_order"]
    ]
    rows.append(["all judges", _num(lb["decisive_verdicts"]), _pct(lb["longer_wins_share"])])
    _section(
        out,
        "Length bias (decisive verdicts won by the longer response)",
        table_lines(["judge", "decisive", "longer wins"], rows),
    )


def _reference_section(report: Mapping[str, Any], out: IO[str]) -> None:
    ref = report["reference"]
    if ref["source"] is None:
        return
    rows = [
        [
            t,
            _num(r["spearman_rho"]),
            _num(r["spearman_p"], 4),
            _num(r["kendall_tau"]),
            _num(r["kendall_p"], 4),
        ]
        for t, r in ref["by_threshold"].items()
    ]
    _section(
        out,
        f"Agreement with the reference ranking ({ref['source']}: {' > '.join(ref['ranking'])}; "
        f"method {ref['method']})",
        table_lines(["threshold", "Spearman ρ", "p", "Kendall τ", "p"], rows),
    )


def _self_section(report: Mapping[str, Any], out: IO[str]) -> None:
    sp = report.get("self_preference")
    if not sp:
        return
    rows = [
        [
            judge,
            s["contestant"],
            str(s["presentations"]),
            _pct(s["judge_win_rate"]),
            _pct(s["others_win_rate"]),
            f"{100 * s['difference']:+.1f} pts" if s["difference"] == s["difference"] else "—",
            f"[{100 * s['ci_low']:+.1f}, {100 * s['ci_high']:+.1f}]" if s["rounds"] else "—",
        ]
        for judge, s in sp.items()
    ]
    header = ["judge", "is", "presentations", "its win rate", "others'", "difference", "95 % (prompts)"]
    _section(
        out,
        "Self-preference (a judge's win rate for its own contestant vs the other judges')",
        table_lines(header, rows),
    )


def _position_effect_section(report: Mapping[str, Any], out: IO[str]) -> None:
    pe = report.get("position_effect")
    if not pe:
        return
    rows = [
        [
            judge,
            f"{v['elo_points']:+.0f}",
            f"[{v['ci_low']:+.0f}, {v['ci_high']:+.0f}]" if v.get("ci_low") is not None else "—",
            _pct(report["judges"].get(judge, {}).get("position", {}).get("first_slot_share")),
        ]
        for judge, v in pe.items()
    ]
    _section(
        out,
        "First-slot advantage in Elo points (Bradley–Terry with a position term per judge; + favours Response A)",
        table_lines(["judge", "advantage", "95 % (prompts)", "first-slot share"], rows),
    )


def _weights_section(report: Mapping[str, Any], out: IO[str]) -> None:
    jw = report.get("judge_weights")
    if not jw or not jw.get("weights"):
        return
    human = jw.get("human_agreement") or {}
    rows = [
        [
            judge,
            _num(w["weight"], 2),
            f"[{_num(w['ci_low'], 2)}, {_num(w['ci_high'], 2)}]" if w.get("ci_low") is not None else "—",
            _pct(human.get("single_judges", {}).get(judge)),
        ]
        for judge, w in jw["weights"].items()
    ]
    lines = table_lines(["judge", "weight", "95 % (prompts)", "alone vs humans"], rows)
    lines.append(f"learned ranking: {' > '.join(jw['ranking'])}")
    lines += [f"warning: {message}" for message in jw.get("warnings", [])]
    if human:
        lines.append(
            f"the judges' summed votes vs the human majority ({human['items']} items with a decisive majority): "
            f"equal weights {_pct(human['equal_weights'])}, learned weights {_pct(human['learned_weights'])}"
        )
    _section(
        out,
        "Judge-aware Bradley–Terry (a signed weight per judge, fitted with the ratings; no labels)",
        lines,
    )


def _per_judge_section(report: Mapping[str, Any], out: IO[str]) -> None:
    pj = report.get("per_judge")
    if not pj:
        return
    rows = [
        [judge, _num(j["tau_vs_panel"], 2), _num(j["tau_vs_reference"], 2), " > ".join(j["ranking"])]
        for judge, j in pj["by_judge"].items()
    ]
    _section(
        out,
        f"Each judge's own ranking (panel: {' > '.join(pj['panel'])})",
        table_lines(["judge", "τ vs panel", "τ vs reference", "ranking"], rows),
    )


def _gold_section(report: Mapping[str, Any], out: IO[str]) -> None:
    gold = report.get("gold")
    if gold is None:
        return
    from elotui.rating.gold import GOLD_HEADER, gold_cells

    rows = [gold_cells(judge, g) for judge, g in gold["by_judge"].items()]
    header = list(GOLD_HEADER)
    lines = table_lines(header, rows)
    lines.append(
        "accuracy: invalid/failed counted wrong · of valid: over valid verdicts · both: both orders correct · "
        "agree: same winner in both orders (both valid) · agree*: LLMBar's (two invalid agree) · κ: Cohen's vs gold"
    )
    lines += [f"(gold label not used: {p})" for p in gold.get("problems", [])]
    _section(out, f"Judges against gold labels ({gold['labelled_pairs']} labelled pairs)", lines)


def _category_section(report: Mapping[str, Any], out: IO[str]) -> None:
    pc = report.get("per_category")
    if pc is None:
        return
    rows = [
        [name, str(c["prompts"]), str(c["games"]), _num(c["kendall_tau"], 2), " > ".join(c["ranking"])]
        for name, c in pc["by_category"].items()
    ]
    _section(
        out,
        f"Rankings by category (threshold {pc['threshold']}, {pc['method']}; τ against the overall ranking: "
        f"{' > '.join(pc['overall'])})",
        table_lines(["category", "prompts", "games", "Kendall τ", "ranking"], rows),
    )


def _prompt_reference_section(report: Mapping[str, Any], out: IO[str]) -> None:
    ppr = report.get("per_prompt_reference")
    if ppr is None:
        return
    s = ppr["summary"]
    lines = [
        (
            f"Kendall τ over {s['prompts']} prompts: mean {_num(s['mean'], 2)}, median {_num(s['median'], 2)}, "
            f"min {_num(s['min'], 2)}, max {_num(s['max'], 2)}"
        ),
        "",
        *table_lines(
            ["prompt", "contestants", "Kendall τ", "p", "Spearman ρ", "p"],
            [
                [
                    prompt,
                    _num(r["contestants"]),
                    _num(r["kendall_tau"]),
                    _num(r["kendall_p"], 4),
                    _num(r["spearman_rho"]),
                    _num(r["spearman_p"], 4),
                ]
                for prompt, r in ppr["by_prompt"].items()
            ],
        ),
    ]
    _section(out, "Per-prompt ranking vs the prompt's reference_ranking (win rates on the prompt)", lines)


def _drop_to_flip_section(report: Mapping[str, Any], out: IO[str]) -> None:
    flips = report.get("drop_to_flip")
    if not flips:
        return
    rows = [
        [
            f"{f['upper']} > {f['lower']}",
            "not searched"
            if not f["searched"]
            else "none found"
            if f["drop_to_flip"] is None
            else str(f["drop_to_flip"]),
            _pct(f["share"]),
            "fragile" if f["fragile"] else "",
            "exact" if f["exact"] else "" if f["drop_to_flip"] is None else "at most",
        ]
        for f in flips
    ]
    lines = table_lines(["order", "drop to flip", "of games", "", "bound"], rows)
    lines.append(
        "fragile: 1 % of the games or fewer, removed, reverse the order (refitted with the ranking's method)"
    )
    if report.get("style_control"):
        lines.append("the raw ranking's orders: a style-controlled fit is not refitted per removal")
    _section(out, "How few verdicts each adjacent order rests on", lines)
