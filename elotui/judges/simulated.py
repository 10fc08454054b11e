"""A simulated judge: no network, verdicts drawn from latent qualities, deterministic per (seed, call key).

For a presentation (first, second):
    d = q_first - q_second + position_bias + length_bias * (len_first - len_second) / max(len_first, len_second)
        + N(0, noise)
|d| < tie_margin → tie; otherwise first wins with probability 1 / (1 + 10^(-d / 400)).
With probability `invalid_rate` the reply is unparseable (status invalid). The reasoning says it is simulated.

Asked on the graded scale (`[judge_prompt] scale = "graded"`), it answers `A=B` for a tie, and for a win `A>>B`
(or `B>>A`) when the winner is the side the noisy difference favours by at least `strong_margin` (default
STRONG_MARGIN), else `A>B` (`B>A`); the reply is read back by the graded parser, as a live judge's is.

`unguided_qualities` (optional) are the qualities the judge perceives when its prompt shows no reference answer
(no `<<<REFERENCE ANSWER ...>>>` marker with a boundary token): a judge that is right only with the reference
(`qualities` the truth, `unguided_qualities` what a fluent wrong answer looks like without it).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import re

from elotui.judges.base import Completion, JudgeKind, JudgeReply, JudgeRequest
from elotui.judges.offline import OfflineJudge
from elotui.judges.parse import Scale, parse_on_scale
from elotui.tournament.model import EndpointConfig, SimulationConfig
from elotui.vocab import win_probability

REFERENCE_MARKER = re.compile(r"<<<REFERENCE ANSWER(?: TURN \d+)? [0-9a-f]{16}>>>")
INVALID_TEXT = "I cannot decide which response is better. (simulated unparseable reply)"
STRONG_MARGIN = 200.0  # Elo points: the default `strong_margin` of a graded simulated verdict


def _outcome(better: str, d: float) -> str:
    """The reasoning's last words: the decision, and, as the win is drawn with A's probability at `d`, whether it
    went against the side `d` favours (else `+72.7 Elo → Response B is better` reads as a contradiction)."""
    if better == "tie":
        return "a tie."
    p_first = win_probability(d)
    upset = (better == "A") != (d > 0)
    drawn = f"A wins with probability {p_first:.0%}: " if upset else ""
    return f"{drawn}Response {better} is better" + (" (an upset)." if upset else ".")


class SimulatedJudge(OfflineJudge):
    kind: JudgeKind = "simulated"

    def __init__(self, config: EndpointConfig, *, judge_id: str, scale: Scale = "binary") -> None:
        if config.simulation is None:
            raise ValueError("a simulated judge needs `simulation`")
        self.id = judge_id
        self.config = config
        self.sim: SimulationConfig = config.simulation
        self.scale: Scale = scale

    def identity(self) -> dict[str, object]:
        # without the options left unset, so that adding an option keeps every earlier key
        return {"provider": "simulated", **self.sim.model_dump(exclude_none=True)}

    def _rng(self, key: str) -> random.Random:
        digest = hashlib.sha256(f"{self.sim.seed}\x00{key}".encode()).digest()
        return random.Random(int.from_bytes(digest[:8], "big"))

    def _qualities(self, user: str) -> dict[str, float]:
        """`qualities`, or `unguided_qualities` when it is set and the prompt shows no reference."""
        unguided = self.sim.unguided_qualities
        if unguided is None or REFERENCE_MARKER.search(user):
            return self.sim.qualities
        return unguided

    def answer(self, request: JudgeRequest) -> JudgeReply:
        """The verdict, at once, without counters (pure function of the request and the parameters; `judge` gives
        it after the configured delay)."""
        p = request.presentation
        if p is None:
            return JudgeReply(status="error", error=f"judge {self.id}: judge() needs a presentation")
        q = self._qualities(request.user)
        for cid in (p.first, p.second):
            if cid not in q:
                return JudgeReply(
                    status="error", error=f"judge {self.id}: no simulated quality for contestant {cid!r}"
                )
        rng = self._rng(request.key)
        if rng.random() < self.sim.invalid_rate:
            return JudgeReply(status="invalid", raw_reply=INVALID_TEXT)
        la, lb = len(request.first_text), len(request.second_text)
        length_term = self.sim.length_bias * (la - lb) / max(la, lb) if max(la, lb) > 0 else 0.0
        noise = rng.gauss(0.0, self.sim.noise) if self.sim.noise > 0 else 0.0
        d = q[p.first] - q[p.second] + self.sim.position_bias + length_term + noise
        if abs(d) < self.sim.tie_margin:
            better = "tie"
        else:
            better = "A" if rng.random() < win_probability(d) else "B"
        reasoning = (
            f"Simulated verdict (no model was called): latent qualities {p.first}={q[p.first]:g} (A) and "
            f"{p.second}={q[p.second]:g} (B); position bias {self.sim.position_bias:+g}, length term "
            f"{length_term:+.1f}, noisy difference {d:+.1f} Elo → " + _outcome(better, d)
        )
        answer = self._graded(better, d) if self.scale == "graded" else better
        raw = json.dumps({"reasoning": reasoning, "better": answer}, ensure_ascii=False)
        status, winner, strength, parsed_reasoning = parse_on_scale(raw, self.scale)
        return JudgeReply(
            status=status, winner=winner, reasoning=parsed_reasoning, raw_reply=raw, strength=strength
        )

    def _graded(self, better: str, d: float) -> str:
        """The graded answer for a binary decision at noisy difference `d` (A's side): strong when the winner is
        the side `d` favours by at least `strong_margin`."""
        if better == "tie":
            return "A=B"
        margin = STRONG_MARGIN if self.sim.strong_margin is None else self.sim.strong_margin
        favoured = d if better == "A" else -d
        sign = ">>" if favoured >= margin else ">"
        return f"A{sign}B" if better == "A" else f"B{sign}A"

    async def complete(self, system: str, user: str) -> Completion:
        """A deterministic stand-in text (for simulated generators and paraphrasers), labelled as simulated."""
        if self.config.delay_ms > 0:
            await asyncio.sleep(self.config.delay_ms / 1000.0)
        digest = hashlib.sha256(f"{self.sim.seed}\x00{system}\x00{user}".encode()).hexdigest()[:12]
        excerpt = " ".join(user.split())[:200]
        return Completion(
            status="ok", text=f"[simulated text {digest}; no model was called] {excerpt}", latency_ms=0.0
        )

    async def aclose(self) -> None:
        return None
