"""`elotui init`: scaffold a tournament file from data files (prompts, responses) and judge names.

    elotui init --prompts question.jsonl --responses model_answer/*.jsonl \\
        --judge openai:gpt-4o-mini --judge anthropic:claude-haiku-4-5 -o tournament.toml

Contestant ids come from the file names (one file per contestant) or, for one long file, from its contestant
column (`contestant` / `model` / `model_id` / `generator`). The file written is short and commented, references
the data files (relative to itself) and is validated before the command returns; an existing file is never
overwritten (`--force` to replace it).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

from elotui.commands.model_prices import price_lines
from elotui.errors import UserError

PROVIDERS = ("openai", "anthropic", "gemini", "ollama", "openai-compatible", "simulated")
DATA_SUFFIXES = (".jsonl", ".json", ".csv", ".tsv", ".gz")


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "init",
        help="write a tournament file for prompts and responses in data files",
        description="Write a short, commented tournament file that references your data files.",
    )
    p.add_argument(
        "--prompts",
        metavar="FILE",
        help="the prompts (JSONL, JSON or CSV); optional when the "
        "response rows carry the prompt's text (AlpacaEval)",
    )
    p.add_argument(
        "--responses",
        metavar="FILE",
        nargs="+",
        required=True,
        help="one file per contestant (its id from the file name), or one long file with a contestant column",
    )
    p.add_argument(
        "--judge",
        metavar="PROVIDER:MODEL",
        action="append",
        default=[],
        help=f"a judge, e.g. openai:gpt-4o-mini (providers: {', '.join(PROVIDERS)}; "
        "openai-compatible:MODEL@BASE_URL; 'simulated' for an offline try); repeat for a panel",
    )
    p.add_argument(
        "--missing",
        choices=("error", "skip-prompt"),
        default="error",
        help="a prompt some contestant did not answer: an error (default), or left out (skip-prompt)",
    )
    p.add_argument(
        "--allow-empty",
        action="store_true",
        help="judge an empty response as it is (default: it counts as missing)",
    )
    p.add_argument(
        "--references",
        metavar="FILE",
        help="reference answers (MT-bench's reference_answer/gpt-4.jsonl), shown to the judge for the "
        "math, reasoning and coding prompts",
    )
    p.add_argument("-n", "--name", help="the tournament's name (default: from the prompts file)")
    p.add_argument(
        "-o", "--output", metavar="PATH", default="tournament.toml", help="default: tournament.toml"
    )
    p.add_argument("--force", action="store_true", help="replace an existing output file")
    p.set_defaults(handler=run)


def _toml(value: object) -> str:
    import tomli_w

    return tomli_w.dumps({"v": value}).split("=", 1)[1].strip()


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-") or "x"


def _stem(path: Path) -> str:
    name = path.name
    while Path(name).suffix.lower() in DATA_SUFFIXES:
        name = name[: -len(Path(name).suffix)]
    return name


def _unique_ids(ids: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for i in ids:
        seen[i] = seen.get(i, 0) + 1
        out.append(i if seen[i] == 1 else f"{i}-{seen[i]}")
    return out


def judge_table(spec: str, contestants: list[str], taken: set[str]) -> list[str]:
    """The TOML lines of one `[[judges]]` table for `provider:model` (UserError for a malformed one)."""
    provider, _, model = spec.partition(":")
    provider = provider.strip().lower()
    if provider == "simulated":
        qualities = ", ".join(f"{_toml(c)} = 1000" for c in contestants)
        return [
            "# An offline stand-in (random verdicts of equal odds): replace it with a real judge.",
            '[[judges]]\nid = "simulated"\nprovider = "simulated"',
            f"[judges.simulation]\nnoise = 100\nqualities = {{ {qualities} }}",
        ]
    if provider not in PROVIDERS or not model.strip():
        raise UserError(
            f"--judge {spec!r}: expected PROVIDER:MODEL with a provider among {', '.join(PROVIDERS)}"
        )
    base_url = None
    if provider == "openai-compatible":
        model, _, base_url = model.partition("@")
        if not base_url:
            raise UserError(f"--judge {spec!r}: openai-compatible needs MODEL@BASE_URL")
    jid = _slug(model.strip())
    while jid in taken:
        jid += "-2"
    taken.add(jid)
    lines = [f"[[judges]]\nid = {_toml(jid)}\nprovider = {_toml(provider)}\nmodel = {_toml(model.strip())}"]
    if base_url:
        lines.append(f"base_url = {_toml(base_url)}")
    lines.append("max_concurrency = 4   # parallel calls to this endpoint")
    return [*lines, *price_lines(provider, model.strip())]


def _contestants(files: list[Path]) -> tuple[list[tuple[str, str | None]], Path | None]:
    """[(id, its own responses file or None)], and the long file (one file, several contestants) if any."""
    from elotui.tournament.data_files import contestants_in

    if len(files) == 1:
        ids = contestants_in(files[0])
        if len(ids) >= 2:
            return [(cid, None) for cid in ids], files[0]
    ids = _unique_ids([_slug(_stem(f)) for f in files])
    return [(cid, str(f)) for cid, f in zip(ids, files, strict=True)], None


def _gap_lines(missing: str, allow_empty: bool) -> list[str]:
    """`[data]`'s `missing` and `allow_empty`: as given (--missing, --allow-empty), the other choice in a comment."""
    return [
        f"missing = {_toml(missing)}"
        + (
            '   # or "skip-prompt": leave out prompts some contestant did not answer'
            if missing == "error"
            else ""
        ),
        "allow_empty = true  # an empty response is judged as it is"
        if allow_empty
        else "# allow_empty = true   # judge an empty response as it is (else it counts as missing)",
    ]


def _all_files_exist(files: list[Path]) -> None:
    for f in files:
        if not f.is_file():
            raise UserError(f"{f}: no such file")


DATA_COMMENTS = {
    "prompts": "",
    "responses": "   # one row per (prompt, contestant)",
    "references": "   # reference answers, shown for [comparison] reference_categories",
}


def render(args: argparse.Namespace, out: Path) -> str:
    def rel(path: str | Path) -> str:
        return os.path.relpath(Path(path).resolve(), out.resolve().parent).replace(os.sep, "/")

    files = [Path(f) for f in args.responses]
    references = getattr(args, "references", None)
    _all_files_exist([*files, *(Path(x) for x in (args.prompts, references) if x)])
    contestants, long_file = _contestants(files)
    if len(contestants) < 2:
        raise UserError(
            "--responses: a tournament needs at least two contestants (two files, or one file "
            "whose contestant column names several)"
        )
    name = args.name or (_stem(Path(args.prompts)) if args.prompts else "my tournament")
    judges = args.judge or ["simulated"]
    parts = [
        "# Written by `elotui init`. Check the judges and the criterion, then:",
        f"#   elotui validate {out.name}",
        f"#   elotui run {out.name} --dry-run    # the calls and what they would cost",
        f"#   elotui run {out.name}",
        "",
        "[tournament]",
        f"name = {_toml(name)}",
        '# criterion = "overall quality: helpfulness, correctness, relevance, depth and clarity"',
        "",
        "[data]",
    ]
    files_named = {"prompts": args.prompts, "responses": long_file, "references": references}
    parts += [
        f"{key} = {_toml(rel(value))}{DATA_COMMENTS[key]}" for key, value in files_named.items() if value
    ]
    parts += [
        *_gap_lines(args.missing, args.allow_empty),
        '# turn = 1          # MT-bench files: which turn of `turns` to judge ("conversation": all of them)',
        "",
        "[comparison]",
        "both_orders = true  # AB and BA: a judge's position bias shows, and cancels out",
        f"# pairs = {{ baseline = {_toml(contestants[0][0])} }}   # only each contestant vs one baseline",
        "",
        "[ranking]",
        'method = "elo"      # or "bt" (Bradley–Terry)',
        'threshold = 0.5     # share of judges that must agree: 1.0, 0.9, 0.75, 0.5 or "none"',
        "",
    ]
    for cid, own in contestants:
        parts.append(f"[[contestants]]\nid = {_toml(cid)}")
        if own is not None:
            parts.append(f"responses = {_toml(rel(own))}")
        parts.append("")
    taken: set[str] = {"simulated"}
    for spec in judges:
        parts += [*judge_table(spec, [c for c, _ in contestants], taken), ""]
    return "\n".join(parts)


def run(args: argparse.Namespace) -> int:
    out = Path(args.output)
    if out.exists() and not args.force:
        raise UserError(f"{out}: already exists (choose another -o, or --force to replace it)")
    text = render(args, out)
    out.write_text(text, encoding="utf-8")
    from elotui.tournament.model import load_tournament

    try:
        t = load_tournament(out)
    except UserError as exc:
        print(f"wrote {out}, but it does not validate yet:", file=sys.stderr)
        raise exc from None
    n_prompts = len(t.prompt_ids)
    print(
        f"wrote {out}: {len(t.contestant_ids)} contestants, {n_prompts} prompts, {len(t.judge_ids)} judge(s)"
    )
    if t.data is not None:
        for note in t.data.notes:
            print(f"note: {note}")
    for who, var in t.missing_api_keys():
        print(f"before `elotui run`: set {var} ({who})")
    return 0
