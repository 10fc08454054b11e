"""Peak memory of a judge reading compressed bombs at once, measured in a process of its own.

`python -m tests.judges.reply_memory BOMB ENCODING MAX_REPLY_BYTES CONCURRENCY` starts a loopback fake provider,
warms a judge up with one ordinary call, notes the resident set size (VmRSS), then has the judge read CONCURRENCY
copies of the bomb at once (each trickled in small pieces, so that every reply is being decoded at the same time)
and prints one JSON line: the RSS before, the peak RSS of the process (VmHWM) after, the replies' statuses and
errors, and how many requests the server saw in flight at once. The bomb is read from a file, made by the caller:
this process never held it decompressed, so its peak is the judge's own.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from elotui.judges import RetryPolicy, build_judge
from elotui.tournament.model import JudgeConfig
from tests.judges.conftest import request
from tests.servers.fake_llm import FakeLLMServer, Trickle


def status_bytes(field: str) -> int:
    """A size from /proc/self/status: VmRSS (resident now) or VmHWM (the peak of this program's memory since its
    exec; ru_maxrss is not used: Linux carries it over from the forking parent, the test process)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no {field} in /proc/self/status")


async def measure(bomb: bytes, encoding: str, limit: int, concurrency: int) -> dict[str, object]:
    with FakeLLMServer() as server:
        fields = server.judge_config(
            "openai-compatible",
            max_concurrency=concurrency,
            max_reply_bytes=limit,
            max_retries=0,
            timeout_s=60,
        )
        judge = build_judge(
            JudgeConfig(id="j1", **fields), judge_id="j1", base_dir=Path("."), retry_policy=RetryPolicy()
        )
        warm = await judge.judge(request("warm-up"))
        chunk = max(1, len(bomb) // 64)
        encoded = {"Content-Encoding": encoding}
        trickled = Trickle(bomb, every_s=0.01, chunk=chunk, headers=encoded, together=concurrency)
        server.script(*[trickled] * concurrency)
        before = status_bytes("VmRSS")
        replies = await asyncio.gather(*(judge.judge(request(f"k{i}")) for i in range(concurrency)))
        peak = status_bytes("VmHWM")
        await judge.aclose()
        return {
            "warm": warm.status,
            "before": before,
            "peak": peak,
            "statuses": sorted({r.status for r in replies}),
            "errors": sorted({r.error or "" for r in replies}),
            "max_in_flight": server.max_in_flight,
        }


def main() -> None:
    path, encoding, limit, concurrency = sys.argv[1:5]
    result = asyncio.run(measure(Path(path).read_bytes(), encoding, int(limit), int(concurrency)))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
