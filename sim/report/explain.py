"""Per-tick narration: what each request does in one tick, as facts the UI puts into words."""
from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

from ..core.schedule import Schedule


@dataclass(frozen=True, slots=True)
class TickFacts:
    tick: int
    arrived: tuple[str, ...]  # requests arriving at this tick
    admitted: tuple[tuple[str, int], ...]  # (name, prompt tokens prefilled) for requests starting work now
    prefilling: tuple[tuple[str, int], ...]  # (name, prompt) of requests still in a multi-tick batch prefill
    decoding: tuple[str, ...]  # requests decoding one token
    finishing: tuple[str, ...]  # requests whose last token this tick emits
    padding: tuple[str, ...]  # finished batch members still holding a slot
    waiting: tuple[str, ...]  # arrived requests with no token-work in this tick
    prefill_tokens: int
    decode_tokens: int
    padding_tokens: int
    budget: int

    @property
    def idle(self) -> int:
        return self.budget - self.prefill_tokens - self.decode_tokens - self.padding_tokens


def tick_facts(schedule: Schedule, tick: int) -> TickFacts:
    """The facts of tick `tick` (an integer tick of a simulator schedule)."""
    starts = [s.start for s in schedule.steps]
    i = bisect_right(starts, tick) - 1
    step = schedule.steps[i] if i >= 0 and schedule.steps[i].end > tick else None
    arrived, admitted, prefilling, decoding, finishing, padding, waiting = [], [], [], [], [], [], []
    for r in schedule.requests:
        if r.arrival == tick:
            arrived.append(r.name)
        segment = next((s for s in r.segments if s.start <= tick < s.end), None)
        if segment is None:
            continue
        if segment.phase == "queued":
            waiting.append(r.name)
        elif segment.phase == "prefill":
            (admitted if segment.start == tick else prefilling).append((r.name, r.prompt))
        elif segment.phase == "decode":
            decoding.append(r.name)
        elif segment.phase == "padding":
            padding.append(r.name)
        if r.completion == tick + 1:
            finishing.append(r.name)
    work = (step.prefill_tokens, step.decode_tokens, step.padding_tokens) if step else (0, 0, 0)
    return TickFacts(tick, tuple(arrived), tuple(admitted), tuple(prefilling), tuple(decoding), tuple(finishing),
                     tuple(padding), tuple(waiting), *work, schedule.config.token_budget)
