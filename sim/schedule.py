"""The one timeline every executor records and every metric, chart and export reads.

Per request: its segments (queued, prefill, decode, padding) and the times of its first and last token.
Per iteration: one Step with its token-work. A run of identical iterations is one Step and a run of
identical ticks of one request is one Segment, so memory grows with scheduling events, not with tokens.
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from typing import NamedTuple

from .config import Config

PHASES = ("queued", "prefill", "decode", "padding")
WORK_PHASES = frozenset(("prefill", "decode", "padding"))  # phases in which a request holds a batch slot


def iteration_length(start: float, end: float, iterations: int) -> float:
    """Length of each of `iterations` equal iterations in [start, end); whole ticks stay integers."""
    length = (end - start) / iterations
    return int(length) if length.is_integer() else length


class Segment(NamedTuple):
    phase: str
    start: float
    end: float
    tokens: int  # prompt tokens prefilled, output tokens decoded, or padding slots, over the segment


@dataclass(slots=True)
class RequestTimeline:
    name: str
    arrival: float
    prompt: int
    output: int
    segments: list[Segment] = field(default_factory=list)
    first_token: float | None = None  # when its first output token is emitted
    completion: float | None = None  # when its last output token is emitted
    finish_reason: str | None = None

    def add(self, phase: str, start: float, end: float, tokens: int) -> None:
        """Append a segment, extending the last one when it continues the same phase."""
        if end <= start:
            return
        segments = self.segments
        if segments and segments[-1].phase == phase and segments[-1].end == start:
            segments[-1] = Segment(phase, segments[-1].start, end, segments[-1].tokens + tokens)
        else:
            segments.append(Segment(phase, start, end, tokens))

    @property
    def first_work(self) -> float | None:
        """Start of the first tick in which it gets token-work (the end of its queue time)."""
        for segment in self.segments:
            if segment.phase in WORK_PHASES:
                return segment.start
        return None

    def slot_spans(self) -> list[tuple[float, float]]:
        """The [start, end) spans in which it holds a batch slot (adjacent work segments joined)."""
        spans: list[tuple[float, float]] = []
        for segment in self.segments:
            if segment.phase not in WORK_PHASES:
                continue
            if spans and spans[-1][1] == segment.start:
                spans[-1] = (spans[-1][0], segment.end)
            else:
                spans.append((segment.start, segment.end))
        return spans


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

    @property
    def token_work(self) -> int:
        return self.prefill_tokens + self.decode_tokens + self.padding_tokens

    def iteration_ends(self) -> list[float]:
        length = iteration_length(self.start, self.end, self.iterations)
        return [self.start + length * i for i in range(1, self.iterations)] + [self.end]


@dataclass(slots=True)
class Schedule:
    policy: str
    config: Config
    requests: list[RequestTimeline]
    steps: list[Step] = field(default_factory=list)
    unit: str = "tick"
    _version: int = -1  # batch membership of the last step; a change starts a new Step

    def add_step(self, start, end, iterations, prefill, decode, padding, running, version) -> None:
        last = self.steps[-1] if self.steps else None
        if (last is not None and version == self._version and last.end == start
                and (last.prefill_tokens, last.decode_tokens, last.padding_tokens) == (prefill, decode, padding)
                and (last.end - last.start) * iterations == (end - start) * last.iterations):
            last.end, last.iterations = end, last.iterations + iterations
        else:
            self.steps.append(Step(start, end, iterations, prefill, decode, padding, running))
        self._version = version

    @property
    def makespan(self) -> float:
        """Time from 0 until the last token of the trace is emitted."""
        return max((r.completion for r in self.requests if r.completion is not None), default=0)

    def emitted(self) -> list[list[float]]:
        """Per request, when each output token is emitted: the ends of the iterations that decode it, after
        the first token when a prefill iteration emitted that one (the engine's first-token mode)."""
        whole_ticks = all(s.end - s.start == s.iterations for s in self.steps)
        starts = [step.start for step in self.steps]
        out = []
        for request in self.requests:
            times = []
            for segment in request.segments:
                if segment.phase != "decode":
                    continue
                if whole_ticks:  # every iteration is one tick, so every tick end in the segment is one
                    ends = range(segment.start + 1, segment.end + 1)
                else:
                    ends, i = [], max(bisect_right(starts, segment.start) - 1, 0)
                    while i < len(self.steps) and self.steps[i].start < segment.end:
                        ends += [t for t in self.steps[i].iteration_ends() if segment.start < t <= segment.end]
                        i += 1
                per_iteration = segment.tokens // len(ends)
                times += ends if per_iteration == 1 else [t for t in ends for _ in range(per_iteration)]
            if request.first_token is not None and (not times or times[0] != request.first_token):
                times.insert(0, request.first_token)
            out.append(times)
        return out

    def members(self) -> list[list[int]]:
        """Per step, the indices of the requests holding a batch slot in it, in the order they joined."""
        starts = [step.start for step in self.steps]
        joins: list[list[int]] = [[] for _ in range(len(starts) + 1)]
        leaves: list[list[int]] = [[] for _ in range(len(starts) + 1)]
        for index, request in enumerate(self.requests):
            for start, end in request.slot_spans():
                joins[bisect_left(starts, start)].append(index)
                leaves[bisect_left(starts, end)].append(index)
        holding: dict[int, None] = {}
        out = []
        for joined, left in zip(joins, leaves[:-1]):
            for index in left:
                del holding[index]
            holding.update(dict.fromkeys(joined))
            out.append(list(holding))
        return out
