"""The one scheduler: state shared by every policy, and the static and continuous batching policies.

An executor drives it one iteration at a time: `plan(now)` decides the next iteration (which requests
prefill how many tokens, how many decode, how many slots are padding), the executor runs it (a cost
model in the simulator, a batched forward pass in the real engine) and `commit(iteration, start, end)`
records it. `plan` says when the same iteration repeats unchanged (`repeat`), so the simulator can
run a stretch of identical decode ticks as one event instead of visiting every tick.
"""
from __future__ import annotations

import heapq
from dataclasses import dataclass, field

from .config import Config
from .schedule import RequestTimeline, Schedule, Segment, iteration_length
from .trace import Trace, check_budget

NEVER = 1 << 62


class MinTree:
    """Admission costs of waiting requests by queue position; finds the first one that fits in O(log n)."""

    def __init__(self, n: int):
        self.size = 1 << max(0, (n - 1).bit_length())
        self.tree = [NEVER] * (2 * self.size)
        self.count = 0

    def set(self, position: int, cost: int) -> None:
        i = position + self.size
        tree = self.tree
        self.count += (cost < NEVER) - (tree[i] < NEVER)
        tree[i] = cost
        while i > 1:
            i >>= 1
            left, right = tree[2 * i], tree[2 * i + 1]
            low = left if left < right else right
            if tree[i] == low:
                break
            tree[i] = low

    def pop_first(self, limit: int) -> int:
        """Remove and return the first position whose cost is <= limit, or -1 if there is none."""
        tree = self.tree
        if tree[1] > limit:
            return -1
        i, size = 1, self.size
        while i < size:
            i = 2 * i if tree[2 * i] <= limit else 2 * i + 1
        self.set(i - size, NEVER)
        return i - size


@dataclass(slots=True)
class Iteration:
    """One model iteration as planned; `repeat` identical iterations may run back to back."""
    prefill: list[tuple[int, int]]  # (request index, prompt tokens it prefills in this iteration)
    decode: int  # requests decoding one token each
    padding: int = 0  # padded prompt positions and idle decode slots (static batching)
    finishing: list[int] = field(default_factory=list)  # requests whose last token this iteration emits
    admitted: list[int] = field(default_factory=list)  # requests that take a batch slot in this iteration
    prefill_done: list[int] = field(default_factory=list)  # requests whose prompt this iteration completes
    repeat: int = 1
    prefill_tokens: int = 0  # the sum of the prefill column

    @property
    def token_work(self) -> int:
        return self.prefill_tokens + self.decode + self.padding


class Scheduler:
    """State every policy shares: arrivals, the waiting queue, batch slots and the timeline being recorded."""
    name = ""

    def __init__(self, trace: Trace, config: Config):
        check_budget(trace, config.token_budget)
        self.requests = trace.requests
        self.config = config
        self.prefill_emits = config.first_token == "prefill"
        self.seq_limit = config.seq_limit
        self.schedule = Schedule(self.name, config, [
            RequestTimeline(r.name, r.arrival, r.prompt, r.output) for r in trace.requests])
        self.arrived = 0  # requests[:arrived] have reached the waiting queue
        self.waiting = MinTree(len(trace.requests))
        self.running: dict[int, None] = {}  # requests holding a batch slot, in admission order
        self.decoding = 0  # running requests that decode in the next iteration
        self.last_decode: list[tuple[int, int]] = []  # heap of (iteration of the last decode, request)
        self.starting: list[int] = []  # requests whose first decode iteration is the next one
        self.decode_start: dict[int, float] = {}
        self.iterations = 0
        self.version = 0  # bumped whenever batch membership changes
        self.remaining = len(trace.requests)

    @property
    def done(self) -> bool:
        return self.remaining == 0

    def next_arrival(self) -> int | None:
        return self.requests[self.arrived].arrival if self.arrived < len(self.requests) else None

    def _arrive(self, now: int) -> None:
        requests = self.requests
        while self.arrived < len(requests) and requests[self.arrived].arrival <= now:
            self.waiting.set(self.arrived, requests[self.arrived].prompt)
            self.arrived += 1

    def _finishing_now(self) -> list[int]:
        heap, finishing = self.last_decode, []
        while heap and heap[0][0] == self.iterations:
            finishing.append(heapq.heappop(heap)[1])
        return finishing

    def _steady_for(self) -> int:
        """Iterations, from this one, before the next request emits its last token."""
        return self.last_decode[0][0] - self.iterations if self.last_decode else NEVER

    def plan(self, now: int, max_repeat: int = 1) -> Iteration | None:
        raise NotImplementedError

    def commit(self, it: Iteration, start: float, end: float) -> None:
        """Record the iteration(s) that ran in [start, end) and move every request's state on."""
        timelines, requests, prefill_emits = self.schedule.requests, self.requests, self.prefill_emits
        if it.admitted:
            self.version += 1
            running = self.running
            for i in it.admitted:
                running[i] = None
                timeline = timelines[i]
                if start > timeline.arrival:
                    timeline.segments.append(Segment("queued", timeline.arrival, start, 0))
        for i, tokens in it.prefill:
            timelines[i].add("prefill", start, end, tokens)
        if self.starting:
            first_end = start + iteration_length(start, end, it.repeat)
            decode_start = self.decode_start
            for i in self.starting:
                decode_start[i] = start
                if not prefill_emits:
                    timelines[i].first_token = first_end
            self.starting = []
        if it.prefill_done:
            starting, heap, iterations = self.starting, self.last_decode, self.iterations
            for i in it.prefill_done:
                output = requests[i].output
                if prefill_emits:
                    timelines[i].first_token = end
                if output > prefill_emits:
                    starting.append(i)
                    heapq.heappush(heap, (iterations + output - prefill_emits, i))
            self.decoding += len(starting)
        self.schedule.add_step(start, end, it.repeat, it.prefill_tokens, it.decode, it.padding,
                               len(self.running), self.version)
        self.iterations += it.repeat
        if it.finishing:
            decode_start = self.decode_start
            for i in it.finishing:
                timeline = timelines[i]
                began = decode_start.pop(i, None)
                if began is not None:
                    timeline.add("decode", began, end, requests[i].output - prefill_emits)
                    self.decoding -= 1
                timeline.completion, timeline.finish_reason = end, "finished"
            self.remaining -= len(it.finishing)
        self._release(it.finishing, end)

    def _release(self, finishing: list[int], end: float) -> None:
        raise NotImplementedError


class Continuous(Scheduler):
    """The seed's loop: every running request decodes one token, then waiting requests are admitted, in
    arrival order, skipping any whose prompt does not fit the token budget left, while the batch has a free
    slot; a request that emits its last token leaves the batch after this iteration."""
    name = "continuous"

    def plan(self, now: int, max_repeat: int = 1) -> Iteration | None:
        requests, waiting = self.requests, self.waiting
        if self.arrived < len(requests) and requests[self.arrived].arrival <= now:
            self._arrive(now)
        budget = self.config.token_budget - self.decoding
        finishing = self._finishing_now()
        # A request emitting its last token in this iteration is still in its batch: its slot is free from
        # the next iteration on, so the batch never holds more than the sequence limit.
        free = self.seq_limit - len(self.running)
        # Skip-ahead: each pass takes the first waiting request whose prompt fits what is left of the budget.
        admitted, prefill = [], []
        while free and budget:
            position = waiting.pop_first(budget)
            if position < 0:
                break
            prompt = requests[position].prompt
            admitted.append(position)
            prefill.append((position, prompt))
            budget -= prompt
            free -= 1
        if self.prefill_emits:
            finishing += [i for i in admitted if requests[i].output == 1]
        if not admitted and not self.decoding:
            return None
        repeat = 1
        if not admitted and not finishing:
            repeat = min(max_repeat, self._steady_for())
            # Until a request finishes, every tick is this one: an arrival changes that only if it could be
            # admitted, so one with no free slot or too long a prompt just joins the queue.
            while self.arrived < len(requests) and requests[self.arrived].arrival < now + repeat:
                request = requests[self.arrived]
                if free and request.prompt <= budget:
                    repeat = request.arrival - now
                    break
                waiting.set(self.arrived, request.prompt)
                self.arrived += 1
        return Iteration(prefill, self.decoding, 0, finishing, admitted, admitted, repeat,
                         self.config.token_budget - self.decoding - budget)

    def _release(self, finishing: list[int], end: float) -> None:
        if finishing:
            self.version += 1
        for i in finishing:
            del self.running[i]


class Static(Scheduler):
    """Static batching: a batch of waiting requests (up to the slot limit) is formed only when the last batch
    has finished; prompts are padded to the longest and prefilled together, spread over as many ticks as the
    token budget needs; then every member holds its slot, as padding once done, until the longest finishes."""
    name = "static"

    def __init__(self, trace: Trace, config: Config):
        super().__init__(trace, config)
        self.batch: list[int] = []
        self.next_prefill = 0  # position in the batch of the prompt being prefilled
        self.prefilled = 0  # tokens of that prompt already prefilled
        self.padding_left = 0  # padded prompt positions not yet prefilled
        self.finished_at: dict[int, tuple[float, int]] = {}  # done members: (completion, iterations then)

    def plan(self, now: int, max_repeat: int = 1) -> Iteration | None:
        admitted = []
        if not self.batch:
            self._arrive(now)
            while len(admitted) < self.seq_limit and self.waiting.count:
                admitted.append(self.waiting.pop_first(NEVER - 1))
            if not admitted:
                return None
            prompts = [self.requests[i].prompt for i in admitted]
            self.batch, self.next_prefill, self.prefilled = admitted, 0, 0
            self.padding_left = max(prompts) * len(prompts) - sum(prompts)
        if self.next_prefill < len(self.batch) or self.padding_left:
            return self._plan_prefill(admitted)
        finishing = self._finishing_now()
        repeat = 1 if finishing else max(1, min(max_repeat, self._steady_for()))
        return Iteration([], self.decoding, len(self.finished_at), finishing, repeat=repeat)

    def _plan_prefill(self, admitted: list[int]) -> Iteration:
        """The next tick of the padded batch prefill: real prompt tokens first, padding positions after.
        Every member is listed, with the tokens it gets (maybe 0): it is in the batch prefill throughout."""
        budget, tokens = self.config.token_budget, dict.fromkeys(self.batch, 0)
        while budget and self.next_prefill < len(self.batch):
            i = self.batch[self.next_prefill]
            take = min(self.requests[i].prompt - self.prefilled, budget)
            tokens[i] += take
            budget -= take
            self.prefilled += take
            if self.prefilled == self.requests[i].prompt:
                self.next_prefill, self.prefilled = self.next_prefill + 1, 0
        padding = min(self.padding_left, budget)
        self.padding_left -= padding
        done, finishing = [], []
        if self.next_prefill == len(self.batch) and not self.padding_left:
            done = self.batch
            if self.prefill_emits:
                finishing = [i for i in done if self.requests[i].output == 1]
        return Iteration(list(tokens.items()), 0, padding, finishing, admitted, done,
                         prefill_tokens=sum(tokens.values()))

    def _release(self, finishing: list[int], end: float) -> None:
        for i in finishing:
            self.finished_at[i] = (end, self.iterations)
        if len(self.finished_at) < len(self.batch):
            return
        for i, (completion, iterations) in self.finished_at.items():
            self.schedule.requests[i].add("padding", completion, end, self.iterations - iterations)
        self.finished_at.clear()
        self.running.clear()
        self.batch = []
        self.version += 1


POLICY_CLASSES = {cls.name: cls for cls in (Static, Continuous)}


def make_scheduler(policy: str, trace: Trace, config: Config) -> Scheduler:
    try:
        return POLICY_CLASSES[policy](trace, config)
    except KeyError:
        raise ValueError(f"unknown policy {policy!r}; choose one of {', '.join(POLICY_CLASSES)}") from None
