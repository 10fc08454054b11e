"""Regenerate the data-derived sample tournaments, deterministically.

    python scripts/build_samples.py                 # rewrite sample_tournaments/{vicuna80,guanaco,simulated_arena}
    python scripts/build_samples.py --check         # exit 1 if the committed files differ from what this produces
    python scripts/build_samples.py --out DIR       # write somewhere else (the tests do this)

Sources (read ../shared/data/README.md): `prd_vicuna80/` (bcdnlp/PRD) and `qlora_vicuna/` (artidoro/qlora),
normalized JSON Lines. Outputs use the project's own formats: a tournament file with the responses inline,
the canonical verdict log (`elotui/verdict_log.py`) for the `replay` judges and for `[reference] votes`.
`simulated_arena/` needs no data: its contestants, qualities and response texts come from a seeded generator.
`competency_profiles/` is written by hand and is not touched here. The README.md of each sample is hand-written too.

Every output is byte-for-byte reproducible: gzip without a timestamp or file name, rows in a fixed order,
JSON with sorted canonical keys. After writing, each tournament file is parsed back and every text compared.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import json
import random
import sys
import tomllib
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import permutations
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DATA = REPO.parent / "shared" / "data"
DEFAULT_OUT = REPO / "sample_tournaments"
LOG_FIELDS = ("prompt", "first", "second", "judge", "condition", "sample", "winner", "reasoning", "status")
VERDICT_TO_WINNER = {"model_1": "first", "model_2": "second", "tie": "tie"}

SOURCES = {
    "prd_vicuna80": ("bcdnlp/PRD", "35fb99e5d5c7a2f3535811f1edbe417da7563957", "data/vicuna80/"),
    "qlora_vicuna": (
        "artidoro/qlora",
        "7f4e95a68dc076bea9b3a413d2b512eca6d004e5",
        "eval/ratings-gpt4/vicuna/pairwise/",
    ),
    "llmbar": ("princeton-nlp/LLMBar", "900616bff90b6c6c8e1681f7d079250637c55992", "Dataset/**"),
}

LABELS = {
    "gpt-4": "GPT-4",
    "gpt-3.5": "GPT-3.5",
    "gpt-3.5-turbo": "GPT-3.5-turbo",
    "claude": "Claude",
    "bard": "Bard",
    "vicuna-13b": "Vicuna-13B",
    "guanaco-7b": "Guanaco-7B",
    "guanaco-13b": "Guanaco-13B",
    "guanaco-33b": "Guanaco-33B",
    "guanaco-65b": "Guanaco-65B",
}

# The criterion of the Vicuna/FastChat review prompt the source judges answered.
VICUNA_CRITERION = (
    "helpfulness, relevance, accuracy and level of detail of the response to the user's question"
)

# --------------------------------------------------------------------------------------------- TOML writing


def toml_key(key: str) -> str:
    if key and all(c.isascii() and (c.isalnum() or c in "_-") for c in key):
        return key
    return toml_string(key)


def toml_string(text: str) -> str:
    """A single-line basic string."""
    return json.dumps(text, ensure_ascii=False)


def _plain_control(text: str) -> bool:
    return any((ord(c) < 0x20 and c not in "\n\t") or ord(c) == 0x7F for c in text)


def toml_text(text: str) -> str:
    """A string for prose: a multi-line literal string when it can be one, else an escaped basic one."""
    if "\n" not in text:
        return toml_string(text)
    if "'''" not in text and not text.endswith("'") and not _plain_control(text):
        return "'''\n" + text + "'''"
    out = []
    for c in text:
        if c == "\\":
            out.append("\\\\")
        elif c == '"':
            out.append('\\"')
        elif c in "\n\t":
            out.append(c)
        elif ord(c) < 0x20 or ord(c) == 0x7F:
            out.append(f"\\u{ord(c):04X}")
        else:
            out.append(c)
    return '"""\n' + "".join(out) + '"""'


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise TypeError(f"no TOML form for {value!r}")


def toml_table(header: str, items: dict[str, Any]) -> str:
    lines = [header] if header else []
    for key, value in items.items():
        if value is None:
            continue
        lines.append(f"{toml_key(key)} = {toml_value(value)}")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------- shared pieces


def read_jsonl_gz(path: Path) -> list[dict[str, Any]]:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def gzip_jsonl(rows: Iterable[dict[str, Any]], fields: tuple[str, ...] | None = LOG_FIELDS) -> bytes:
    """Rows as gzipped JSONL, deterministic bytes (mtime 0); `fields`: the keys kept, in order (None: all)."""
    text = "".join(
        json.dumps({k: row.get(k) for k in fields} if fields else row, ensure_ascii=False) + "\n"
        for row in rows
    )
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, compresslevel=9, mtime=0) as gz:
        gz.write(text.encode("utf-8"))
    return buf.getvalue()


@dataclass
class Output:
    """The files of one sample, relative to its folder, and a few lines for the build report."""

    name: str
    files: dict[str, bytes] = field(default_factory=dict)
    report: list[str] = field(default_factory=list)


def qid(question_id: int) -> str:
    return f"q{question_id}"


def verdict_rows(source: list[dict[str, Any]], judges: list[str]) -> list[dict[str, Any]]:
    """LLM verdicts → canonical log rows (sample 0, condition clean), ordered judge, question, first, second."""
    rank = {j: i for i, j in enumerate(judges)}
    rows = []
    for r in source:
        if r["judge"] not in rank:
            continue
        ok = r["verdict"] in VERDICT_TO_WINNER
        rows.append(
            {
                "prompt": qid(r["question_id"]),
                "first": r["model_1"],
                "second": r["model_2"],
                "judge": r["judge"],
                "condition": "clean",
                "sample": 0,
                "winner": VERDICT_TO_WINNER.get(r["verdict"]),
                "reasoning": r.get("reasoning"),
                "status": "ok" if ok else "invalid",
                "_order": (rank[r["judge"]], r["question_id"], r["model_1"], r["model_2"]),
            }
        )
    rows.sort(key=lambda row: row["_order"])
    seen: set[tuple[Any, ...]] = set()
    for row in rows:
        if row["_order"] in seen:
            raise SystemExit(f"duplicate verdict for {row['_order']}")
        seen.add(row.pop("_order"))
    return rows


def human_rows(source: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Human votes → log rows with judge "human"; the sample index numbers the votes per (question, ordered pair)."""
    votes: dict[tuple[int, str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in source:
        if r["judge"] == "human":
            votes[(r["question_id"], r["model_1"], r["model_2"])].append(r)
    rows = []
    for (q, m1, m2), group in sorted(votes.items()):
        for i, r in enumerate(group):  # source order within a group (the upstream file's line order)
            rows.append(
                {
                    "prompt": qid(q),
                    "first": m1,
                    "second": m2,
                    "judge": "human",
                    "condition": "clean",
                    "sample": i,
                    "winner": VERDICT_TO_WINNER.get(r["verdict"]),
                    "reasoning": None,
                    "status": "ok" if r["verdict"] in VERDICT_TO_WINNER else "invalid",
                }
            )
    return rows


def coverage(
    rows: list[dict[str, Any]], judges: list[str], prompts: list[str], contestants: list[str]
) -> list[str]:
    """Check that every planned presentation (every ordered pair, sample 0, clean) has a verdict of each judge."""
    have = {(r["judge"], r["prompt"], r["first"], r["second"]) for r in rows if r["sample"] == 0}
    lines = []
    for j in judges:
        planned = [(j, p, a, b) for p in prompts for a, b in permutations(contestants, 2)]
        missing = [k for k in planned if k not in have]
        lines.append(
            f"judge {j}: {len(planned) - len(missing)}/{len(planned)} planned presentations have a row"
        )
        if missing:
            raise SystemExit(
                f"judge {j}: {len(missing)} planned presentations have no verdict, e.g. {missing[:3]}"
            )
    return lines


def tournament_toml(
    meta: dict[str, Any],
    contestants: list[tuple[str, str]],
    prompts: list[dict[str, Any]],
    judges: list[dict[str, Any]],
    comparison: dict[str, Any],
    ranking: dict[str, Any],
    reference: dict[str, Any] | None,
    header: str,
    data: dict[str, Any] | None = None,
) -> str:
    parts = [header, toml_table("[tournament]", meta)]
    if data:
        parts.append(toml_table("[data]", data))
    parts.append(toml_table("[comparison]", comparison))
    parts.append(toml_table("[ranking]", ranking))
    if reference:
        parts.append(toml_table("[reference]", reference))
    for cid, label in contestants:
        parts.append(toml_table("[[contestants]]", {"id": cid, "label": label}))
    for j in judges:
        sim = j.pop("simulation", None)
        parts.append(toml_table("[[judges]]", j))
        if sim is not None:
            qualities = sim.pop("qualities")
            parts.append(toml_table("[judges.simulation]", sim))
            parts.append(toml_table("[judges.simulation.qualities]", qualities))
    for p in prompts:
        head = toml_table("[[prompts]]", {k: p[k] for k in ("id", "category") if p.get(k) is not None})
        head += f"text = {toml_text(p['text'])}\n"
        body = [f"{toml_key(cid)} = {toml_text(text)}" for cid, text in p["responses"].items()]
        parts.append(head + "\n[prompts.responses]\n" + "\n".join(body) + "\n")
    return "\n".join(parts)


def jsonl(rows: Iterable[dict[str, Any]]) -> bytes:
    """Plain JSONL (UTF-8, one object per line, keys in the given order): readable, and diffable in git."""
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode("utf-8")


def data_files(prompts: list[dict[str, Any]]) -> dict[str, bytes]:
    """The sample's prompts and responses as `[data]` files: questions.jsonl (id, category, text) and one long
    answers.jsonl (prompt_id, contestant, response), in the prompts' order."""
    questions = [{"id": p["id"], "category": p["category"], "text": p["text"]} for p in prompts]
    answers = [
        {"prompt_id": p["id"], "contestant": cid, "response": text}
        for p in prompts
        for cid, text in p["responses"].items()
    ]
    for raw, rows in ((jsonl(questions), questions), (jsonl(answers), answers)):
        if [json.loads(line) for line in raw.decode("utf-8").splitlines()] != rows:
            raise SystemExit("JSONL round trip changed a text")
    return {"questions.jsonl": jsonl(questions), "answers.jsonl": jsonl(answers)}


def check_roundtrip(toml_text_out: str, prompts: list[dict[str, Any]]) -> None:
    data = tomllib.loads(toml_text_out)
    for parsed, p in zip(data["prompts"], prompts, strict=True):
        if parsed["text"] != p["text"] or parsed["responses"] != p["responses"]:
            raise SystemExit(f"TOML round trip changed the texts of prompt {p['id']}")


def source_header(folder: str) -> str:
    repo, commit, path = SOURCES[folder]
    return (
        f"# Generated by scripts/build_samples.py from ../shared/data/{folder} — do not edit by hand.\n"
        f"# Source: https://github.com/{repo} @ {commit}, {path} (MIT licence, see LICENSE beside this file).\n"
    )


def answers_by_question(
    data: Path, folder: str
) -> tuple[dict[int, dict[str, Any]], dict[tuple[int, str], str]]:
    questions: dict[int, dict[str, Any]] = {}
    answers: dict[tuple[int, str], str] = {}
    for a in read_jsonl_gz(data / folder / "answers.jsonl.gz"):
        questions[a["question_id"]] = {"text": a["question"], "category": a.get("category")}
        answers[(a["question_id"], a["model"])] = a["answer"]
    return questions, answers


def replay_sample(
    data: Path,
    folder: str,
    name: str,
    meta: dict[str, Any],
    contestants: list[str],
    judges: list[str],
    delay_ms: float,
    max_concurrency: int = 4,
) -> Output:
    out = Output(name)
    source = read_jsonl_gz(data / folder / "judgments.jsonl.gz")
    questions, answers = answers_by_question(data, folder)
    qids = sorted(questions)
    prompts = [
        {
            "id": qid(q),
            "category": questions[q]["category"],
            "text": questions[q]["text"],
            "responses": {c: answers[(q, c)] for c in contestants},
        }
        for q in qids
    ]
    verdicts = verdict_rows(source, judges)
    votes = human_rows(source)
    out.report += coverage(verdicts, judges, [qid(q) for q in qids], contestants)
    invalid = sum(1 for r in verdicts if r["status"] == "invalid")
    out.report.append(f"{len(verdicts)} verdicts ({invalid} invalid), {len(votes)} human votes")
    voted = {(r["prompt"], r["first"], r["second"]) for r in votes}
    planned = len(qids) * len(contestants) * (len(contestants) - 1)
    out.report.append(
        f"human votes cover {len(voted)}/{planned} planned (prompt, ordered pair) presentations"
    )
    judge_tables = [
        {
            "id": j,
            "label": f"{LABELS.get(j, j)} (recorded)",
            "provider": "replay",
            "model": j,
            "path": "verdicts.jsonl.gz",
            "delay_ms": delay_ms,
            "max_concurrency": max_concurrency,
        }
        for j in judges
    ]
    text = tournament_toml(
        meta,
        [(c, LABELS.get(c, c)) for c in contestants],
        [],
        judge_tables,
        comparison={"both_orders": True, "samples": 1, "conditions": ["clean"]},
        ranking={"method": "elo", "threshold": 0.5, "permutations": 100, "bootstrap": 200, "seed": 0},
        reference={"votes": "human_votes.jsonl.gz"},
        header=source_header(folder),
        data={"prompts": "questions.jsonl", "responses": "answers.jsonl"},
    )
    out.files["tournament.toml"] = text.encode("utf-8")
    out.files.update(data_files(prompts))
    out.files["verdicts.jsonl.gz"] = gzip_jsonl(verdicts)
    out.files["human_votes.jsonl.gz"] = gzip_jsonl(votes)
    out.files["LICENSE"] = (data / folder / "LICENSE").read_bytes()
    return out


# --------------------------------------------------------------------------------------------- the samples

VICUNA_MODELS = ["gpt-4", "gpt-3.5", "claude", "bard", "vicuna-13b"]
GUANACO_MODELS = [
    "gpt-4",
    "gpt-3.5-turbo",
    "bard",
    "vicuna-13b",
    "guanaco-7b",
    "guanaco-13b",
    "guanaco-33b",
    "guanaco-65b",
]


def build_vicuna80(data: Path) -> Output:
    meta = {
        "name": "Vicuna-80: five chat models judged by five LLMs (recorded verdicts)",
        "criterion": VICUNA_CRITERION,
        "description": "The 80 Vicuna questions answered by GPT-4, GPT-3.5, Claude, Bard and Vicuna-13B; every "
        "ordered pair judged by each of the five models (PRD, Li et al. 2023), replayed offline. "
        "Human votes are the reference.",
    }
    return replay_sample(
        data, "prd_vicuna80", "vicuna80", meta, VICUNA_MODELS, VICUNA_MODELS, delay_ms=40, max_concurrency=2
    )  # ~250 verdicts/s: a replay that looks (and loads the TUI) like a live run


def build_guanaco(data: Path) -> Output:
    meta = {
        "name": "Guanaco: QLoRA models vs. GPT-4, GPT-3.5, Bard and Vicuna, judged by GPT-4 (recorded verdicts)",
        "criterion": VICUNA_CRITERION,
        "description": "The 80 Vicuna questions answered by eight models; every ordered pair judged by GPT-4 "
        "(QLoRA paper, Dettmers et al. 2023), replayed offline. Human votes are the reference.",
    }
    return replay_sample(data, "qlora_vicuna", "guanaco", meta, GUANACO_MODELS, ["gpt-4"], delay_ms=5)


ARENA_NAMES = [
    "alpha",
    "bravo",
    "charlie",
    "delta",
    "echo",
    "foxtrot",
    "golf",
    "hotel",
    "india",
    "juliett",
    "kilo",
    "lima",
    "mike",
    "november",
    "oscar",
    "papa",
    "quebec",
    "romeo",
    "sierra",
    "tango",
]
ARENA_SEED = 20240607
ARENA_PROMPTS = [
    ("p01", "Explain why the sky is blue to a ten-year-old."),
    ("p02", "Give three practical tips for writing readable Python functions."),
    ("p03", "What are the trade-offs between renting and buying a home?"),
    ("p04", "Summarize the causes of the French Revolution in a short paragraph."),
    ("p05", "How does a hash table handle collisions?"),
    ("p06", "Suggest a one-week plan to start running regularly."),
    ("p07", "Why do we have seasons on Earth?"),
    ("p08", "Write a polite email declining a meeting invitation."),
    ("p09", "What is the difference between correlation and causation? Give an example."),
    ("p10", "How should a small team decide between a monolith and microservices?"),
]
ARENA_JUDGES = [
    # id, label, noise, position_bias, length_bias, tie_margin, invalid_rate, seed
    # (the length term is length_bias * (len_first - len_second) / max(len_first, len_second), see judges/simulated.py)
    ("sharp", "Sharp (low noise)", 40.0, 0.0, 0.0, 10.0, 0.0, 1),
    ("first-lover", "Prefers Response A", 80.0, 60.0, 0.0, 10.0, 0.0, 2),
    ("verbose-lover", "Prefers longer answers", 80.0, 0.0, 150.0, 10.0, 0.0, 3),
    ("noisy", "Noisy", 200.0, 0.0, 0.0, 30.0, 0.01, 4),
    ("second-lover", "Prefers Response B, shorter answers", 100.0, -40.0, -60.0, 10.0, 0.02, 5),
]
ARENA_SENTENCES = [
    "The short answer is that it depends on a few factors worth separating.",
    "A useful way to think about {topic} is to start from the basic mechanism.",
    "First, consider what actually happens step by step.",
    "In practice, most people find that a simple rule of thumb works well.",
    "One common mistake is to overlook the constraints that matter most.",
    "An example makes this concrete: imagine doing it once, then a hundred times.",
    "There are exceptions, and they are worth knowing about.",
    "If you only remember one thing, remember the trade-off between cost and benefit.",
    "Evidence from everyday experience points in the same direction.",
    "It also helps to check the result against a second source.",
    "To sum up, {topic} comes down to a handful of clear ideas.",
    "Keep the explanation short, and add detail only where it helps.",
]


def arena_qualities() -> dict[str, float]:
    """Qualities 50 Elo apart (1475 … 525), dealt to the names in a seeded random order."""
    rng = random.Random(ARENA_SEED)
    names = ARENA_NAMES[:]
    rng.shuffle(names)
    return {name: 1475.0 - 50.0 * i for i, name in enumerate(names)}


def arena_response(prompt_id: str, prompt: str, contestant: str) -> str:
    """Synthetic text, its length drawn independently of quality (3 to 14 sentences)."""
    seed = int.from_bytes(
        hashlib.sha256(f"{ARENA_SEED}:{prompt_id}:{contestant}".encode()).digest()[:8], "big"
    )
    rng = random.Random(seed)
    topic = prompt.rstrip("?.").split(" ", 1)[1].lower() if " " in prompt else prompt
    n = rng.randint(3, 14)
    sentences = [rng.choice(ARENA_SENTENCES).format(topic=topic) for _ in range(n)]
    paragraphs = [" ".join(sentences[i : i + 4]) for i in range(0, n, 4)]
    return "\n\n".join(paragraphs) + "\n"


def build_simulated_arena() -> Output:
    out = Output("simulated_arena")
    qualities = arena_qualities()
    true_order = sorted(qualities, key=lambda c: -qualities[c])
    prompts = [
        {
            "id": pid,
            "category": None,
            "text": text,
            "responses": {c: arena_response(pid, text, c) for c in ARENA_NAMES},
        }
        for pid, text in ARENA_PROMPTS
    ]
    judges = [
        {
            "id": jid,
            "label": label,
            "provider": "simulated",
            "max_concurrency": 16,
            "simulation": {
                "noise": noise,
                "position_bias": pos,
                "length_bias": length,
                "tie_margin": tie,
                "invalid_rate": inv,
                "seed": seed,
                "qualities": dict(qualities),
            },
        }
        for jid, label, noise, pos, length, tie, inv, seed in ARENA_JUDGES
    ]
    meta = {
        "name": "Simulated arena: 20 contestants with known qualities, 5 simulated judges",
        "criterion": "overall quality of the response",
        "description": "Synthetic: every contestant has a true Elo-scale quality (50 points apart); five simulated "
        "judges differ in noise, position bias and length bias. [reference] ranking is the true order.",
    }
    header = (
        "# Generated by scripts/build_samples.py (seeded, no external data) — do not edit by hand.\n"
        f"# True qualities: {', '.join(f'{c} {qualities[c]:.0f}' for c in true_order)}\n"
    )
    text = tournament_toml(
        meta,
        [(c, c.capitalize()) for c in ARENA_NAMES],
        prompts,
        judges,
        comparison={"both_orders": True, "samples": 1, "conditions": ["clean"]},
        ranking={"method": "elo", "threshold": 0.5, "permutations": 100, "bootstrap": 200, "seed": 0},
        reference={"ranking": true_order},
        header=header,
    )
    check_roundtrip(text, prompts)
    out.files["tournament.toml"] = text.encode("utf-8")
    n_calls = len(ARENA_PROMPTS) * len(ARENA_NAMES) * (len(ARENA_NAMES) - 1) * len(ARENA_JUDGES)
    out.report.append(
        f"{len(ARENA_NAMES)} contestants, {len(ARENA_PROMPTS)} prompts, {n_calls} planned calls"
    )
    return out


LLMBAR_JUDGES = ["GPT-4", "ChatGPT", "PaLM2", "LLaMA2"]  # the evaluators that judged every instance ...
LLMBAR_STRATEGY = "Metrics_Reference"  # ... under this prompting strategy (LLMBar's best on average)


def build_llmbar(data: Path) -> Output:
    """LLMBar's 1,200 instances as a replay tournament: the contestants are the two output slots, the prompts the
    instances (category = LLMBar's set), the judges four evaluators (strategy Metrics_Reference), both orders;
    the gold label is `[reference] gold`."""
    out = Output("llmbar")
    instances = read_jsonl_gz(data / "llmbar" / "instances.jsonl.gz")
    pid = {(r["set"], r["idx"]): f"{r['set']}/{r['idx']}" for r in instances}
    questions = [
        {"id": pid[(r["set"], r["idx"])], "category": r["set"], "text": r["input"]} for r in instances
    ]
    answers = [
        {"prompt_id": pid[(r["set"], r["idx"])], "contestant": slot, "response": r[slot]}
        for r in instances
        for slot in ("output_1", "output_2")
    ]
    gold = [
        {
            "prompt": pid[(r["set"], r["idx"])],
            "a": "output_1",
            "b": "output_2",
            "better": f"output_{r['label']}",
        }
        for r in instances
    ]
    verdicts = []
    for r in read_jsonl_gz(data / "llmbar" / "judgments.jsonl.gz"):
        if r["judge"] not in LLMBAR_JUDGES or r["strategy"] != LLMBAR_STRATEGY:
            continue
        first, second = ("output_1", "output_2") if r["order"] == "AB" else ("output_2", "output_1")
        won = f"output_{r['winner']}" if r["winner"] in ("1", "2") else None
        verdicts.append(
            {
                "prompt": pid[(r["set"], r["idx"])],
                "first": first,
                "second": second,
                "judge": r["judge"],
                "condition": "clean",
                "sample": 0,
                "winner": None if won is None else ("first" if won == first else "second"),
                "reasoning": r["completion"],
                "status": "ok" if won is not None else "invalid",
            }
        )
    verdicts.sort(key=lambda v: (LLMBAR_JUDGES.index(v["judge"]), v["prompt"], v["first"]))
    invalid = sum(1 for v in verdicts if v["status"] == "invalid")
    out.report.append(
        f"{len(instances)} instances, {len(verdicts)} verdicts ({invalid} invalid), {len(gold)} gold labels"
    )
    meta = {
        "name": "LLMBar: four LLM evaluators audited against gold labels (recorded verdicts)",
        "criterion": "which output follows the instruction more precisely and faithfully",
        "description": "LLMBar's 1,200 instruction-following instances (Zeng et al. 2024), each with a gold label; "
        "GPT-4, ChatGPT, PaLM2 and LLaMA2 judged every instance in both orders (strategy Metrics_Reference), "
        "replayed offline. The contestants are the two output slots: the audit, not the ranking, is the point.",
    }
    judges = [
        {
            "id": j.lower(),
            "label": f"{j} ({LLMBAR_STRATEGY}, recorded)",
            "provider": "replay",
            "model": j,
            "path": "verdicts.jsonl.gz",
            "max_concurrency": 8,
        }
        for j in LLMBAR_JUDGES
    ]
    text = tournament_toml(
        meta,
        [("output_1", "Output 1"), ("output_2", "Output 2")],
        [],
        judges,
        comparison={"both_orders": True, "samples": 1, "conditions": ["clean"]},
        ranking={"method": "bt", "threshold": "none", "permutations": 100, "bootstrap": 100, "seed": 0},
        reference={"gold": "gold.jsonl.gz"},
        header=source_header("llmbar"),
        data={"prompts": "questions.jsonl.gz", "responses": "answers.jsonl.gz", "allow_empty": True},
    )
    out.files["tournament.toml"] = text.encode("utf-8")
    out.files["questions.jsonl.gz"] = gzip_jsonl(questions, fields=None)
    out.files["answers.jsonl.gz"] = gzip_jsonl(answers, fields=None)
    out.files["gold.jsonl.gz"] = gzip_jsonl(gold, fields=None)
    out.files["verdicts.jsonl.gz"] = gzip_jsonl(verdicts)
    out.files["LICENSE"] = (data / "llmbar" / "LICENSE").read_bytes()
    return out


def build_all(data: Path, only: list[str] | None = None) -> list[Output]:
    builders = {
        "vicuna80": lambda: build_vicuna80(data),
        "guanaco": lambda: build_guanaco(data),
        "llmbar": lambda: build_llmbar(data),
        "simulated_arena": build_simulated_arena,
    }
    return [build() for name, build in builders.items() if not only or name in only]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--data", type=Path, default=DEFAULT_DATA, help="the shared data folder (default %(default)s)"
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where the sample folders go")
    parser.add_argument("--only", nargs="*", choices=["vicuna80", "guanaco", "llmbar", "simulated_arena"])
    parser.add_argument("--check", action="store_true", help="compare with the files in --out; write nothing")
    args = parser.parse_args(argv)
    differ = []
    for out in build_all(args.data, args.only):
        for line in out.report:
            print(f"{out.name}: {line}")
        folder = args.out / out.name
        for rel, content in sorted(out.files.items()):
            target = folder / rel
            if args.check:
                if not target.exists() or target.read_bytes() != content:
                    differ.append(str(target))
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            if not target.exists() or target.read_bytes() != content:
                target.write_bytes(content)
            print(f"{out.name}: {rel} {len(content):,} bytes")
    if differ:
        print("differs from the build:\n  " + "\n  ".join(differ), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
