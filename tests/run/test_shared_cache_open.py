"""Two runs started together open this machine's shared call cache at the same moment: each must get it (else the
second goes on without the shared claims, and two copies of a tournament pay for every call twice). SQLite
answers "locked" at once, without its busy wait, to a switch to WAL on a file another process is creating; the
cache waits for it as the store does. Each trial: two processes released at one instant open a new cache, claim
the same calls in it, and report what they got."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

TRIALS = 12
OPEN = """
import json, sys, time
from pathlib import Path
from elotui.store.call_cache import CallCache
start = float(sys.argv[2])
while time.time() < start:
    pass
cache = CallCache(Path(sys.argv[1]))
got = cache.claim_many([f"k{i}" for i in range(6)], sys.argv[3], 1)
print(json.dumps({"open": cache._db is not None, "mine": sorted(k for k, v in got.items() if v == "mine")}))
sys.stdout.flush()
while time.time() < start + 1.5:  # alive (its claims binding) until the other has surely claimed
    time.sleep(0.05)
"""


def test_two_processes_opening_a_new_cache_at_once_both_use_it_and_share_its_claims(tmp_path: Path) -> None:
    import json

    for trial in range(TRIALS):
        path = tmp_path / f"cache{trial}.sqlite"
        start = (
            time.time() + 0.5
        )  # both processes started and waiting by then (a later start only waits less)
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", OPEN, str(path), repr(start), f"store-{n}"],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for n in (1, 2)
        ]
        outs = [p.communicate(timeout=120) for p in procs]
        assert all(p.returncode == 0 for p in procs), [err for _, err in outs]
        got = [json.loads(out) for out, _ in outs]
        assert all(g["open"] for g in got), (trial, got)
        mine = [set(g["mine"]) for g in got]
        assert not (mine[0] & mine[1]) and len(mine[0] | mine[1]) == 6, (trial, got)  # each call claimed once
