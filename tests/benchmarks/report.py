"""Writes docs/benchmarks.md from one benchmark run: `python -m tests.benchmarks.report [--quick] [--sizes 100k,1m]`.

The figures in docs/benchmarks.md come from here only (the file says so at its top and is never edited by hand).
One run measures, on generated tournaments (tests/benchmarks/scale_world.py: 100 contestants, every ordered pair on
every prompt, one replay judge reading a generated verdict log):

1. the ingest (`elotui run T --headless --no-delay` into a fresh store) and `elotui export T --method bt|elo` as
   whole processes at each size, against FastChat's published rating functions as a process on the same
   verdicts (tests/benchmarks/fastchat_rating.py; needs the bench extra: `pip install -e '.[bench]'`);
2. at the largest size, each process setting of the `elotui` command (elotui.cli.PROCESS_SETTINGS) left out in
   turn, and the native Elo kernel against the numpy fallback (`ELOTUI_NO_JIT=1`) and compiled against loaded
   from its on-disk cache;
3. the data files' merge cache: `elotui validate` of 50,000 responses in data files, with the merge kept and the
   first time (tests/benchmarks/bench_data_files.py's files);
4. with `--tui`, the TUI's first leaderboard at the largest size (tests/benchmarks/bench_tui.py's `first_board`).

Every timing is the median of `--runs` whole processes, interleaved where two are compared. `--quick` (10k and
100k, 3 runs, no TUI) is for a loaded machine; the default sizes are 100k and 1m. The version, date, machine and
load average go into the file with the figures.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SIZES = {"10k": 10_000, "100k": 100_000, "1m": 1_000_000}
SETTINGS_CHILD = "import sys\nfrom elotui import cli\nsys.exit(cli.run_command(sys.argv[2:], filter(None, sys.argv[1].split(','))))"


def timed(cmd: list[str], env: dict[str, str] | None = None) -> float:
    t0 = time.perf_counter()
    done = subprocess.run(cmd, check=False, capture_output=True, cwd=ROOT, env=env)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {done.returncode}:\n{done.stderr.decode()[-2000:]}")
    return time.perf_counter() - t0


def interleaved(commands: dict[str, tuple[list[str], dict[str, str] | None]], runs: int) -> dict[str, float]:
    """The median seconds of each command, run in turns (a change of the machine's load hits all alike)."""
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, (cmd, env) in commands.items():
            times[name].append(timed(cmd, env))
    return {name: statistics.median(t) for name, t in times.items()}


def export_cmd(toml: Path, store: Path, method: str, settings: str | None = None) -> list[str]:
    """`elotui export` as the command runs it, or with only the named process settings (comma-separated)."""
    entry = ["-m", "elotui.cli"] if settings is None else ["-c", SETTINGS_CHILD, settings]
    return [
        sys.executable,
        *entry,
        "export",
        str(toml),
        "--store",
        str(store),
        "--method",
        method,
        "-o",
        os.devnull,
    ]


def has_pandas() -> bool:
    try:
        import pandas  # noqa: F401
    except ImportError:
        return False
    return True


def machine() -> list[str]:
    cpu = (
        next(
            (
                line.split(":", 1)[1].strip()
                for line in Path("/proc/cpuinfo").read_text().splitlines()
                if "model name" in line
            ),
            platform.processor() or "unknown",
        )
        if Path("/proc/cpuinfo").exists()
        else platform.processor()
    )
    from elotui import __version__

    return [
        f"- elotui {__version__}, {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC",
        f"- {platform.system()} {platform.release()}, {cpu}, {os.cpu_count()} cores; Python {platform.python_version()}",
        f"- load average at the start: {', '.join(f'{x:.1f}' for x in os.getloadavg())}",
    ]


def sizes_part(
    base: Path, labels: list[str], runs: int, fastchat: bool
) -> tuple[list[str], tuple[Path, Path]]:
    from tests.benchmarks.bench_fastchat import ingest
    from tests.benchmarks.scale_world import sizes_for, write_world

    lines = [
        "## Ingest and export",
        "",
        "| verdicts | ingest (verdicts/s, peak MiB) | `export --method bt` | `--method elo` | FastChat process bt / elo |",
        "|---|---|---|---|---|",
    ]
    worlds: list[tuple[Path, Path]] = []
    targets: list[str] = []
    for label in labels:
        contestants, prompts = sizes_for(SIZES[label])
        folder = base / f"world-{label}"
        toml, store, log = folder / "tournament.toml", folder / "store.sqlite", folder / "verdicts.jsonl"
        if not toml.exists():
            write_world(folder, contestants, prompts)
        n = contestants * (contestants - 1) * prompts
        fresh = not store.exists()
        seconds, rss = ingest(toml, store, folder / "home") if fresh else (0.0, 0.0)
        ingested = (
            f"{seconds:.1f} s ({n / seconds:,.0f}/s, {rss:,.0f} MiB)" if fresh else "(store kept by `--keep`)"
        )
        commands = {m: (export_cmd(toml, store, m), None) for m in ("bt", "elo")}
        if fastchat:
            for m in ("bt", "elo"):
                ref = [sys.executable, "-m", "tests.benchmarks.bench_fastchat", "--reference", str(log), m]
                commands[f"fastchat {m}"] = (ref, {**os.environ, "TQDM_DISABLE": "1"})
        t = interleaved(commands, runs)
        theirs = (
            f"{t['fastchat bt']:.2f} s / {t['fastchat elo']:.2f} s: elotui **{t['fastchat bt'] / t['bt']:.1f}×** / "
            f"**{t['fastchat elo'] / t['elo']:.1f}×** faster"
            if fastchat
            else "not measured (`--no-fastchat`, or no pandas: `pip install -e '.[bench]'`)"
        )
        lines.append(f"| {n:,} | {ingested} | {t['bt']:.2f} s | {t['elo']:.2f} s | {theirs} |")
        print(lines[-1], flush=True)
        worlds.append((toml, store))
        if fastchat and n >= 900_000:
            worst = min(t["fastchat bt"] / t["bt"], t["fastchat elo"] / t["elo"])
            verdict = "met" if worst >= 10 else "**not met**"
            targets.append(
                f"- `elotui export` ≥ 10× FastChat's process at 10⁶ verdicts: {worst:.1f}× at worst, {verdict}"
            )
    return [*lines, "", *targets] if targets else lines, worlds


def settings_part(toml: Path, store: Path, runs: int) -> list[str]:
    from elotui.cli import PROCESS_SETTINGS

    names = list(PROCESS_SETTINGS)
    lines = ["## Process settings of the `elotui` command", ""]
    lines += [
        "Each setting in `elotui/cli.py` against the same command without it (the other settings kept).",
        "",
        "| left out | `export --method bt` | change | `--method elo` | change |",
        "|---|---|---|---|---|",
    ]
    cases = {"(none)": ",".join(names), **{n: ",".join(x for x in names if x != n) for n in names}}
    times = {
        m: interleaved({c: (export_cmd(toml, store, m, s), None) for c, s in cases.items()}, runs)
        for m in ("bt", "elo")
    }
    for case in cases:
        cells = []
        for m in ("bt", "elo"):
            t, full = times[m][case], times[m]["(none)"]
            cells += [f"{t:.3f} s", "" if case == "(none)" else f"{(t / full - 1) * 100:+.0f} %"]
        lines.append(f"| {case} | {' | '.join(cells)} |")
        print(lines[-1], flush=True)
    return lines


def kernel_part(worlds: list[tuple[Path, Path]], runs: int, base: Path) -> list[str]:
    """The kernel against the numpy fallback at the smallest size (the fallback takes minutes at 10^6 on a loaded
    machine), and loaded from its cache against compiled in the run at the largest."""
    env = dict(os.environ)
    (small, small_store), (large, large_store) = worlds[0], worlds[-1]
    cached = "native kernel, loaded from its cache"
    fallback = {
        cached: (export_cmd(small, small_store, "elo"), env),
        "numpy fallback (`ELOTUI_NO_JIT=1`)": (
            export_cmd(small, small_store, "elo"),
            {**env, "ELOTUI_NO_JIT": "1"},
        ),
    }
    timed(*fallback[cached])  # the kernels compiled and kept
    lines = [
        "## The native Elo kernel",
        "",
        "| `export --method elo` | verdicts | seconds | against the cached kernel |",
    ]
    lines.append("|---|---|---|---|")
    t = interleaved(fallback, runs)
    lines += [
        f"| {name} | {small.parent.name[6:]} | {s:.2f} s | {s / t[cached]:.2f}× |" for name, s in t.items()
    ]
    warm_times, cold_times = [], []
    for _ in range(runs):  # interleaved; compiled in the run: an empty cache folder each time
        warm_times.append(timed(export_cmd(large, large_store, "elo"), env))
        cold_env = {**env, "ELOTUI_HOME": tempfile.mkdtemp(dir=base)}
        cold_times.append(timed(export_cmd(large, large_store, "elo"), cold_env))
    t = {cached: statistics.median(warm_times)}
    cold = statistics.median(cold_times)
    lines.append(f"| {cached} | {large.parent.name[6:]} | {t[cached]:.2f} s | 1.00× |")
    lines.append(
        f"| compiled in the run (an empty cache) | {large.parent.name[6:]} | {cold:.2f} s | {cold / t[cached]:.2f}× |"
    )
    print(*lines[4:], sep="\n", flush=True)
    return lines


def data_cache_part(runs: int, base: Path) -> list[str]:
    from tests.benchmarks.bench_data_files import write_files

    folder = base / "data-files"
    folder.mkdir(exist_ok=True)
    path = write_files(folder)
    env = {**os.environ, "ELOTUI_HOME": str(folder / "home")}
    cmd = [sys.executable, "-m", "elotui.cli", "validate", str(path)]
    timed(cmd, env)  # the merge kept
    kept_times, first_times = [], []
    for _ in range(runs):  # interleaved; the first time: an empty cache folder each run
        kept_times.append(timed(cmd, env))
        first_times.append(timed(cmd, {**env, "ELOTUI_HOME": tempfile.mkdtemp(dir=folder)}))
    kept, first = statistics.median(kept_times), statistics.median(first_times)
    lines = [
        "## The data files' merge cache",
        "",
        "`elotui validate` of 5,000 prompts × 10 contestants in MT-bench JSONL files (50,000 responses):",
        "",
        f"- merge kept by an earlier run: **{kept:.2f} s**; the first time (merged): {first:.2f} s ({first / kept:.1f}×)",
    ]
    print(lines[-1], flush=True)
    return lines


TUI_CHILD = """
import asyncio, sys
from elotui.cli import PROCESS_SETTINGS
for setting in PROCESS_SETTINGS.values():  # as the `elotui` command has them, before numpy is imported
    setting(["run"])
from elotui.tournament.model import load_tournament
from elotui.store import Store
from tests.benchmarks.bench_tui import first_board
with Store(sys.argv[2]) as store:
    asyncio.run(first_board(load_tournament(sys.argv[1]), store, "run"))
"""


def tui_part(toml: Path, store: Path, runs: int) -> list[str]:
    shown = []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", TUI_CHILD, str(toml), str(store)],
            check=True,
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
        line = out.stdout.strip().splitlines()[-1]
        shown.append(float(line.split("first leaderboard in the table ")[1].split(" s")[0]))
    median = statistics.median(shown)
    lines = [
        "## The TUI",
        "",
        (
            f"- `elotui run T` on the largest store (cached): app created → first leaderboard in the table **{median:.2f} s** "
            f"(median of {runs}; target at 10⁶ verdicts ≤ 3 s: {'met' if median <= 3 else '**not met**'})"
        ),
    ]
    print(lines[-1], flush=True)
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="10k and 100k, 3 runs, no TUI (a loaded machine)"
    )
    parser.add_argument("--sizes", help="comma-separated: 10k, 100k, 1m (default 100k,1m; --quick 10k,100k)")
    parser.add_argument("--runs", type=int, help="processes per median (default 5; --quick 3)")
    parser.add_argument(
        "--tui", action="store_true", help="also the TUI's first leaderboard at the largest size"
    )
    parser.add_argument("--no-fastchat", action="store_true", help="leave out FastChat's processes")
    parser.add_argument("--keep", metavar="DIR", help="build the worlds in DIR and keep them")
    parser.add_argument("-o", "--output", type=Path, default=ROOT / "docs" / "benchmarks.md")
    args = parser.parse_args(argv)
    labels = (args.sizes or ("10k,100k" if args.quick else "100k,1m")).split(",")
    runs = args.runs or (3 if args.quick else 5)
    fastchat = has_pandas() and not args.no_fastchat
    given = " ".join(
        f"--{k.replace('_', '-')}" if v is True else f"--{k} {v}"
        for k, v in vars(args).items()
        if v and k not in ("output", "keep")
    )
    head = [
        "# Benchmarks",
        "",
        f"Generated by `{' '.join(['python -m tests.benchmarks.report', *given.split()])}` from one run; do not edit.",
        "",
        *machine(),
        "",
    ]
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(args.keep or tmp)
        os.environ["ELOTUI_HOME"] = str(base / "home")
        body, worlds = sizes_part(base, labels, runs, fastchat)
        toml, store = worlds[-1]
        body += ["", *settings_part(toml, store, runs), "", *kernel_part(worlds, runs, base)]
        body += ["", *data_cache_part(runs, base)]
        if args.tui:
            body += ["", *tui_part(toml, store, runs)]
    tail = ["", f"Load average at the end: {', '.join(f'{x:.1f}' for x in os.getloadavg())}."]
    args.output.write_text("\n".join([*head, *body, *tail]) + "\n", encoding="utf-8")
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
