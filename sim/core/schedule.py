"""The one timeline every executor records and every metric, chart and export reads.

Per request: its segments (queued, prefill, decode, padding, stalled, preempted, swapped, swapping), its
KV blocks over time and how it ended. Scheduling events (preemptions, swaps, cancels, rejections) are listed.
Per iteration: one Step with its token-work. A run of identical iterations is one Step and a run of
identical ticks of one request is one Segment, so memory grows with scheduling events, not with tokens.
"""
from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import islice
from operator import attrgetter, le
from typing import NamedTuple

from .config import Config

PHASES = ("queued", "prefill", "decode", "padding", "stalled", "paused", "preempted", "swapped", "swapping")
# queued / preempted / swapped: waiting outside the batch (first, after a recompute preemption, swapped out);
# stalled: holding a slot without token-work (a decode paused by a prefill, a chunk the budget left out);
# paused: holding a slot (and KV blocks) without decoding because its client has not read enough (backpressure);
# swapping: holding a slot while its blocks come back from host memory.
SLOT_PHASES = frozenset(("prefill", "decode", "padding", "stalled", "paused", "swapping"))
WORK_PHASES = frozenset(("prefill", "decode"))


def iteration_length(start: float, end: float, iterations: int) -> float:
    """Length of each of `iterations` equal iterations in [start, end); whole ticks stay integers."""
    length = (end - start) / iterations
    return int(length) if length.is_integer() else length


class Segment(NamedTuple):
    phase: str
    start: float
    end: float
    tokens: int  # prompt tokens prefilled, output tokens decoded, or padding slots, over the segment


_tuple = tuple.__new__  # _tuple(Segment, (phase, start, end, tokens)) is Segment(phase, start, end, tokens)


@dataclass(slots=True)
class RequestTimeline:
    name: str
    arrival: float
    prompt: int
    output: int
    segments: list[Segment] = field(default_factory=list)
    first_token: float | None = None  # when its first output token is emitted
    completion: float | None = None  # when its last output token is emitted (finished requests)
    finish_reason: str | None = None  # finished, cancelled or rejected
    tenant: str = ""
    priority: int = 0
    cancel_time: float | None = None  # when its user stopped it
    reject_reason: dict | None = None  # {"blocks": needed, "capacity": cache size}
    preemptions: int = 0
    recomputed: int = 0  # tokens prefilled again after preemptions by recompute
    swapped_blocks: int = 0  # blocks sent to host memory by swap preemptions
    kv: list[tuple[float, int]] = field(default_factory=list)  # (time, blocks held from then on)
    prefill_emits: list[float] = field(default_factory=list)  # tokens sampled by prefills (engine mode)
    read_rate: float | None = None  # tokens its client reads a time unit (None: as fast as they come)
    queried: int = 0  # prefix caching: tokens of its prefills looked up in the cache, over its admissions
    cached: int = 0  # of those, the tokens found (they skipped prefill)
    disconnect_at: float | None = None  # when its client goes away

    def add(self, phase: str, start: float, end: float, tokens: int, merge: bool = True) -> None:
        """Append a segment, extending the last one when it continues the same phase. (A Segment is made as the
        tuple it is, without NamedTuple's __new__, a Python call: this is the timeline's most run line.)"""
        if end <= start:
            return
        segments = self.segments
        if merge and segments and (last := segments[-1])[0] == phase and last[2] == start:
            segments[-1] = _tuple(Segment, (phase, last[1], end, last[3] + tokens))
        else:
            segments.append(_tuple(Segment, (phase, start, end, tokens)))

    @property
    def first_work(self) -> float | None:
        """Start of the first iteration in which it gets token-work (the end of its queue time)."""
        for segment in self.segments:
            if segment.phase in WORK_PHASES:
                return segment.start
        return None


@dataclass(slots=True)
class Step:
    """`iterations` identical iterations of equal length filling [start, end); token counts are per iteration."""
    start: float
    end: float
    iterations: int
    prefill_tokens: int
    decode_tokens: int
    padding_tokens: int
    running: int  # requests holding a batch slot in each of these iterations
    decode_sequences: int = 0  # requests decoding (their token-work is decode_tokens: k + 1 with speculation)
    kv_blocks: int | None = None  # KV blocks held (None: the cache is not tracked)
    graph_padding: int = 0  # slots padding the decode batch up to a captured CUDA-graph size
    spec_accepted: int = 0  # draft tokens accepted by speculative decoding
    paused: int = 0  # decoders holding their slot without decoding because their client has not read enough
    expert_tokens: tuple[int, ...] = ()  # MoE: tokens routed to each expert in each iteration (empty: off)
    changes: list[int] | tuple = ()  # batch changes just before it: joins (request i) and leaves (~i)

    @property
    def token_work(self) -> int:
        return self.prefill_tokens + self.decode_tokens + self.padding_tokens

    @property
    def expert_tokens_max(self) -> int:
        """MoE: the busiest expert's tokens in each iteration (0 when off)."""
        return max(self.expert_tokens, default=0)

    def iteration_ends(self) -> list[float]:
        length = iteration_length(self.start, self.end, self.iterations)
        return [self.start + length * i for i in range(1, self.iterations)] + [self.end]


class IterationRun(list):
    """A request's tokens emitted one an iteration at consecutive iterations' ends: the list of those times, which
    is `ends[first:first + len(self)]` of the schedule's Schedule.iteration_ends. Under a latency model these
    times differ from iteration to iteration but are shared by every request decoding in them, so what reads
    them (the JSON export, inter-token gaps) can work per iteration instead of per token, as a range of ticks
    lets it in the tick model."""
    __slots__ = ("ends", "first")

    def __init__(self, times: list[float], ends: list[float], first: int):
        super().__init__(times)
        self.ends, self.first = ends, first


# What two iterations must have alike to be one Step (besides the batch's membership and their length).
_work = attrgetter(
    "prefill_tokens", "decode_tokens", "padding_tokens", "kv_blocks", "graph_padding", "decode_sequences",
    "spec_accepted", "paused",
    "expert_tokens",
)


@dataclass(slots=True)
class Schedule:
    policy: str  # the batching: static or continuous
    config: Config
    requests: list[RequestTimeline]
    steps: list[Step] = field(default_factory=list)
    unit: str = "tick"
    options: object = None  # the sim.core.config.Policy that made it
    events: list[tuple[float, str, int]] = field(default_factory=list)  # (time, preempt|swap_out|..., request)
    _version: int = -1  # batch membership of the last step; a change starts a new Step

    def add_step(self, step: Step, version: int) -> None:
        """Record `step`, run with the batch membership `version`: it extends the last step when it continues it
        with the same membership, token counts and iteration length."""
        last = self.steps[-1] if self.steps else None
        if (last is not None and version == self._version and last.end == step.start and _work(last) == _work(step)
                and (last.end - last.start) * step.iterations == (step.end - step.start) * last.iterations):
            last.end, last.iterations = step.end, last.iterations + step.iterations
        else:
            self.steps.append(step)
        self._version = version

    @property
    def makespan(self) -> float:
        """Time from 0 until the last request leaves the batch (its last token, or its cancel). (A Segment's fields
        read by index: as a named tuple's attributes they cost 16,000 requests twice the time.)"""
        latest = 0
        for r in self.requests:
            segments = r.segments  # its last segment holding a slot: almost always its last
            last = segments[-1] if segments and segments[-1][0] in SLOT_PHASES else next(
                (s for s in reversed(segments) if s[0] in SLOT_PHASES), None)
            if last is not None and last[2] > latest:
                latest = last[2]
        return latest

    def emitted(self, compact: bool = False) -> list[Sequence[float]]:
        """Per request, when each output token is emitted: the ends of the iterations that decode it, and of
        those that complete a prefill in the engine's first-token mode. Lists; with `compact`, a request's one
        run of consecutive ticks (the usual case) stays a range, so 100,000 requests do not list every tick, and under
        a latency model a request's one run of consecutive iterations is an IterationRun."""
        whole_ticks = all(s.end - s.start == s.iterations for s in self.steps)
        every_end = None if whole_ticks else self.iteration_ends()
        starts = [step.start for step in self.steps]
        out = []
        for request in self.requests:
            pieces, at = [], -1
            for segment in request.segments:
                if segment.phase != "decode":
                    continue
                if whole_ticks:  # every iteration is one tick, so every tick end in the segment is one
                    ends = range(segment.start + 1, segment.end + 1)
                elif every_end is not None:  # the iterations that end in (start, end]: one slice
                    at = bisect_right(every_end, segment.start)
                    ends = every_end[at:bisect_right(every_end, segment.end)]
                else:
                    ends, i = [], max(bisect_right(starts, segment.start) - 1, 0)
                    while i < len(self.steps) and self.steps[i].start < segment.end:
                        ends += [t for t in self.steps[i].iteration_ends() if segment.start < t <= segment.end]
                        i += 1
                per_iteration = segment.tokens // len(ends)
                if per_iteration != 1:
                    at = -1
                pieces.append(ends if per_iteration == 1 else [t for t in ends for _ in range(per_iteration)])
            first = request.prefill_emits
            if len(pieces) == 1 and isinstance(pieces[0], range) and (
                    not first or (len(first) == 1 and first[0] == pieces[0].start - 1)):
                ticks = range(pieces[0].start - len(first), pieces[0].stop)
                out.append(ticks if compact else list(ticks))
                continue
            if compact and len(pieces) == 1 and not first and at >= 0:
                out.append(IterationRun(pieces[0], every_end, at))
                continue
            times = [t for piece in pieces for t in piece]
            out.append(sorted(times + first) if first else times)
        return out

    def iteration_ends(self) -> list[float] | None:
        """Every iteration's end, in time order (Step.iteration_ends, step after step), when the steps follow
        each other and each iteration ends after its step starts; else None. Then the iterations that end in a span
        are one slice of it, found by bisection: the same ends, in the same order, as reading the steps that
        overlap the span (in a run under a latency model every iteration is a step of its own)."""
        ends: list[float] = []
        last = None
        for step in self.steps:
            if last is not None and step.start < last.end:
                return None
            if step.iterations == 1:
                ends.append(step.end)
            else:
                ends += step.iteration_ends()
            if not ends[len(ends) - step.iterations] > step.start:
                return None
            last = step
        return ends if all(map(le, ends, islice(ends, 1, None))) else None

    def members(self) -> list[list[int]]:
        """Per step, the indices of the requests holding a batch slot in it, in the order they joined."""
        holding: dict[int, None] = {}
        out = []
        for step in self.steps:
            for change in step.changes:
                if change >= 0:
                    holding[change] = None
                else:
                    del holding[~change]
            out.append(list(holding))
        return out


def load_series(schedule: Schedule) -> tuple[list[float], list[int], list[float], list[int]]:
    """Step functions over time: (times, requests running) from the steps, and (times, requests waiting) from
    arrivals until first token-work; each value holds until the next time."""
    events: list[tuple[float, int]] = []
    for r in schedule.requests:
        events.append((r.arrival, 1))
        if r.first_work is not None:
            events.append((r.first_work, -1))
    events.sort()
    wait_x, wait_y, waiting = [0], [0], 0
    for time, change in events:
        waiting += change
        if wait_x[-1] == time:
            wait_y[-1] = waiting
        else:
            wait_x.append(time)
            wait_y.append(waiting)
    run_x, run_y, now = [], [], 0
    for s in schedule.steps:
        if s.start > now:
            run_x.append(now)
            run_y.append(0)
        run_x.append(s.start)
        run_y.append(s.running)
        now = s.end
    run_x.append(now)
    run_y.append(0)
    return run_x, run_y, wait_x, wait_y
