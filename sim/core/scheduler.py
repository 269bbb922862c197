"""The one scheduler's shared machinery: the requests' states, arrivals and rejection, cancellation, the paged
KV cache and preemption, and recording the timeline. The batching policies (sim.core.policies) decide the
iterations with it.

An executor drives a scheduler one iteration at a time: `plan(now)` decides the next iteration and does what
happens at its start (arrivals, cancellations, preemptions, admissions) and returns it as an Iteration (sim.core.
iteration: the whole plan); the executor runs it, then `commit(iteration, start, end)` records it and moves every
request on. A plan may say that identical iterations follow (`repeat`), so the simulator runs a stretch of
identical decode ticks as one event instead of visiting every tick. Decode progress is counted lazily
(sim.core.request.DecodeRounds), so a decode round costs O(1) however many decode.
"""
from __future__ import annotations

import heapq
import random

from ..trace.trace import Trace, check_budget
from .config import Config, ConfigError, Policy
from .kv import blocks_for
from .memory import KVMemory
from .queue import NEVER, WaitQueue
from .recording import Recording
from .request import DECODE, DONE, PREFILL, RUNNING, STOP_EVENTS, SWAP_IN, SWAPPED, WAITING, DecodeRounds, RequestState
from .schedule import RequestTimeline, Schedule, Segment
from .stops import Stops
from .stream import Streaming


def check_runnable(trace: Trace, config: Config, policy: Policy) -> None:
    """A clear error where a run could never end: a prompt over the token budget without chunked prefill, or a
    speculative step that costs more than the whole budget."""
    if policy.chunk_size is None:
        check_budget(trace, config.token_budget)
    if policy.prefix_cache and not config.kv_blocks:
        raise ConfigError("prefix_cache", "cache_needs_kv")
    if policy.spec_tokens + 1 > config.token_budget:
        raise ConfigError("spec_tokens", "spec_over_budget", tokens=policy.spec_tokens, cost=policy.spec_tokens + 1,
                          budget=config.token_budget)


class Scheduler(KVMemory, Recording, Streaming):
    """State every policy shares; `Continuous` and `Static` (sim.core.policies) decide the iterations. Its KV
    side (blocks, growth, preemption) is sim.core.memory, its commit side (what a committed iteration records)
    sim.core.recording."""

    def __init__(self, trace: Trace, config: Config, policy: Policy, unit: str | None = None):
        """`unit` is the time unit of the executor's clock (default: its cost model's, ticks or ms)."""
        check_runnable(trace, config, policy)
        requests = self.requests = trace.requests
        self.config, self.policy = config, policy
        self.seq_limit = config.seq_limit
        self.schedule = Schedule(policy.batching, config, [
            RequestTimeline(r.name, r.arrival, r.prompt, r.output, tenant=r.tenant, priority=r.priority,
                            read_rate=config.read_rate if r.read_rate is None else r.read_rate,
                            disconnect_at=r.disconnect_at)
            for r in requests], unit=unit or config.cost.unit, options=policy)
        self.timelines = self.schedule.requests
        self.states = [RequestState(i, r, self.timelines[i], r.prompt) for i, r in enumerate(requests)]
        if policy.spec_tokens:
            for s in self.states:
                s.rng = random.Random(policy.seed * 1_000_003 + s.index)
        self.stops = Stops(self.states, policy.timeout)
        self.quotas = dict(policy.tenant_quotas)
        # Under quotas the queue keeps each quota tenant's requests apart (0: tenants under no quota).
        self.quota_tenants = list(self.quotas)
        self.queue = WaitQueue(requests, policy, [self.quota_tenants.index(r.tenant) + 1 if r.tenant in self.quotas
                                                  else 0 for r in requests] if self.quotas else None)
        self.rounds = DecodeRounds(self.states if config.cost.kind == "profile" else None)
        self.arrived = 0  # requests[:arrived] have arrived
        self.remaining = len(requests)  # requests not done yet
        self.running: dict[int, None] = {}  # requests holding a batch slot, in admission order
        self.prefilling: dict[int, None] = {}  # of those, the ones in their prefill
        self.decoders: dict[int, None] = {}  # running requests past their prefill
        self.last_tokens: list[tuple[int, int]] = []  # heap (decode round of its last token, request)
        self.prefill_emits = config.first_token == "prefill"
        self.reads_context = config.cost.reads_context
        # The clock arrivals and stops are read on, when it is not the executor's (the real engine: arrivals in
        # iterations, times in ms); each plan is given it.
        self.clock: float | None = None
        self.init_recording()
        self.init_memory()
        self.init_streaming()
        if policy.order == "lpm":
            self.queue.prefix_found = self.found_prefix

    @property
    def done(self) -> bool:
        return self.remaining == 0

    def next_arrival(self) -> float | None:
        return self.requests[self.arrived].arrival if self.arrived < len(self.requests) else None

    def next_event(self) -> float | None:
        """When something can next change while nothing runs: an arrival or the end of a swap-in (on the clock
        arrivals are read on)."""
        times = [t for t in (self.next_arrival(), self.swap_done[0][0] if self.swap_done else None,
                             self.held[0][0] if self.held else None) if t is not None]
        return min(times) if times else None

    def generated(self, i: int) -> int:
        return self.rounds.made(self.states[i])

    def context(self, i: int) -> int:
        """Tokens of request i whose KV it holds or will hold after its prefill: prompt plus tokens made."""
        return self.requests[i].prompt + self.generated(i)

    def decoders_context(self, decoding) -> int:
        """The context the decoders in `decoding` read, summed (each context(i)): kept by the decode rounds when
        every decoder decodes, so a latency model's iteration costs O(1) to time, not O(decoders)."""
        if len(decoding) == len(self.decoders):  # (`decoding` is among the decoders)
            return self.rounds.context()
        return sum(self.context(i) for i in decoding)

    def longest_context(self, decoding) -> int:
        """The longest context of a decoder in `decoding` (1 without any), likewise (a profile cost model's)."""
        if decoding and len(decoding) == len(self.decoders) and self.rounds.states is not None:
            return self.rounds.longest()
        return max((self.context(i) for i in decoding), default=1)

    # -- arrivals, rejection, cancellation ----------------------------------------------------------------
    def admission_cost(self, i: int) -> int:
        """Token budget a waiting request needs to be admitted: its whole prefill, or one chunked token. A
        recompute of prompt + generated tokens larger than the whole budget runs in budget-sized pieces."""
        s = self.states[i]
        return 1 if self.policy.chunk_size else min(s.target - s.prefilled, self.config.token_budget)

    def never_fits(self, i: int) -> bool:
        kv = self.kv
        return kv is not None and blocks_for(self.states[i].peak_kv, kv.block_size) > kv.num_blocks

    def arrival_clock(self, now: float) -> float:
        return now if self.clock is None else self.clock

    def arrive_until(self, now: float) -> None:
        """Requests that have arrived by now wait, or are rejected if even an empty KV cache could not hold
        them. On a clock of its own (`self.clock`) a request's arrival is recorded as `now`, when it is seen."""
        requests, clock = self.requests, self.arrival_clock(now)
        while self.arrived < len(requests) and requests[self.arrived].arrival <= clock:
            self.arrive(self.arrived, now)

    def arrive(self, i: int, now: float) -> None:
        """Request i (the next in the trace) arrives: it waits, or is rejected."""
        s = self.states[i]
        self.arrived = i + 1
        if self.clock is not None:
            s.timeline.arrival = now
        if s.phase != WAITING:
            return  # cancelled before it arrived
        if self.never_fits(i):
            s.timeline.reject_reason = {"blocks": blocks_for(s.peak_kv, self.kv.block_size),
                                        "capacity": self.kv.num_blocks}
            self.end(i, s.timeline.arrival, "rejected", "reject")
        else:
            self.queue.push(i, self.admission_cost(i))

    def end(self, i: int, when: float, reason: str, event: str) -> None:
        """Request i ends without finishing (cancelled or rejected) at `when`, its wait drawn up to then."""
        s = self.states[i]
        timeline = s.timeline
        if s.phase in (WAITING, SWAPPED) and i < self.arrived:
            since = timeline.segments[-1].end if timeline.segments else timeline.arrival
            wait = "swapped" if s.phase == SWAPPED else "preempted" if timeline.preemptions else "queued"
            timeline.add(wait, since, max(since, when), 0)
        s.phase = DONE
        timeline.finish_reason = reason
        self.schedule.events.append((when, event, i))
        self.remaining -= 1

    def cancel_due(self, now: float) -> None:
        """A stop lands just after an iteration boundary: a waiting request leaves at once; a running one
        stays for the iteration under way and leaves at its end (what it made then is never delivered). A stop
        read on a clock of its own is recorded when it is seen."""
        for stop, i in self.stops.due(self.arrival_clock(now)):
            s = self.states[i]
            when = stop if self.clock is None else now
            s.timeline.cancel_time = when
            if self.held_until.pop(i, None) is not None:
                pass  # released for its client (release_paused): in no queue
            elif s.phase == WAITING and i < self.arrived:
                self.queue.remove(i)
            elif s.phase == SWAPPED:
                self.resume.remove(i)
                heapq.heapify(self.resume)
            elif s.phase in RUNNING:
                self.drop_running(i, now)
            self.end(i, when, s.stop_reason, STOP_EVENTS[s.stop_reason])

    def drop_running(self, i: int, now: float) -> None:
        """Take running request i out of the batch at `now` (a cancel, or a preemption)."""
        if i in self.decoders:
            self.stop_decoding(i, now)
        self.give_back_slot(i, now)

    def give_back_slot(self, i: int, now: float) -> None:
        """Running request i, no longer decoding, leaves its slot and frees its blocks (a swap-in under way
        stops)."""
        if self.states[i].phase == SWAP_IN:  # its copy back stops: the time it held the slot is drawn
            self.swap_done = [(t, j) for t, j in self.swap_done if j != i]
            heapq.heapify(self.swap_done)
            self.timelines[i].add("swapping", self.timelines[i].segments[-1].end, now, 0)
        self.exit(i)
        self.free_blocks(i, now)

    # -- membership and decoding ----------------------------------------------------------------------------
    def admit(self, i: int, now: float) -> None:
        """Request i takes a batch slot at `now`: its wait (queued or preempted) ends."""
        s = self.states[i]
        timeline = s.timeline
        if timeline.preemptions:
            timeline.add("preempted", timeline.segments[-1].end, now, 0)
            timeline.recomputed += s.target  # a recompute prefills prompt + generated tokens again
        elif now > timeline.arrival:
            timeline.segments.append(Segment("queued", timeline.arrival, now, 0))
        self.enter(i)
        s.phase = PREFILL
        self.prefilling[i] = None

    def enter(self, i: int) -> None:
        """Request i takes a batch slot."""
        self.running[i] = None
        self.version += 1
        self.changes.append(i)

    def exit(self, i: int) -> None:
        """Request i gives its batch slot back."""
        del self.running[i]
        self.prefilling.pop(i, None)
        self.version += 1
        self.changes.append(~i)

    def start_decoding(self, i: int) -> None:
        s = self.states[i]
        s.phase = DECODE
        self.rounds.start(s)
        self.decoders[i] = self.starting[i] = None
        self.expect_last(i)
        if self.overcommit:
            self.watch_growth(i)

    def stop_decoding(self, i: int, now: float) -> None:
        """Decoder i leaves the decode rounds at `now` (a cancel, a preemption): its open segment closes."""
        self.close_decode(i, now)
        del self.decoders[i]
        self.starting.pop(i, None)
        self.rounds.stop(self.states[i])

    def expect_last(self, i: int) -> None:
        """(Re)compute the decode round of decoder i's last token; its earlier heap entry becomes stale."""
        s = self.states[i]
        s.last_round = self.rounds.now + s.output - self.generated(i) - 1
        heapq.heappush(self.last_tokens, (s.last_round, i))

    def finishing_now(self, waiting: set[int] | None = None) -> list[int]:
        """Decoders whose last token comes from the coming decode round. A heap entry is a decoder's last round
        as of when it was noted: a round that passed it by since (a stall, a pause) only put it off, so an
        entry found due may be early; it is noted again then, as is one `waiting` (not decoding in this
        round). Entries of decoders that left or were noted again since are stale and skipped."""
        heap, states, finishing, later = self.last_tokens, self.states, {}, []
        while heap and heap[0][0] <= self.rounds.now:
            last, i = heapq.heappop(heap)
            s = states[i]
            if last != s.last_round or i not in self.decoders:
                continue
            if (waiting and i in waiting) or self.rounds.made(s) + 1 < s.request.output:
                later.append(i)
            else:
                finishing[i] = None  # an old entry can match again after a preemption: each request once
        for i in later:
            self.expect_last(i)
        return list(finishing)

    def rounds_to_next_finish(self) -> int:
        """Decode rounds until the next decoder makes its last token (stale heap entries dropped)."""
        heap, states = self.last_tokens, self.states
        while heap and (heap[0][0] != states[heap[0][1]].last_round or heap[0][1] not in self.decoders):
            heapq.heappop(heap)
        return heap[0][0] - self.rounds.now if heap else NEVER
