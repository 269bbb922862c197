"""The one scheduler's shared machinery: request states, arrivals and rejection, cancellation, the paged
KV cache and preemption, lazy decode progress, and recording the timeline.

An executor drives a scheduler one iteration at a time: `plan(now)` decides the next iteration and does
what happens at its start (arrivals, cancellations, preemptions, admissions), the executor runs it (a cost
model in the simulator, one batched forward pass in the real engine) and `commit(iteration, start, end)`
records it and moves every request on. `plan` says how many identical iterations follow (`repeat`), so the
simulator runs a stretch of identical decode ticks as one event instead of visiting every tick.

Decode progress is lazy: `decode_round` counts the iterations in which decoders decode, and a decoding
request has made `gen_base + decode_round - round_base` tokens, so a round costs O(1) however many decode.
"""
from __future__ import annotations

import heapq
import math
import random

from ..trace.trace import Trace, check_budget
from .config import Config, ConfigError, Policy
from .kv import BlockManager, blocks_for
from .queue import NEVER, WaitQueue
from .schedule import RequestTimeline, Schedule, Segment

WAITING, PREFILL, DECODE, SWAPPED, SWAP_IN, DONE = range(6)


class Iteration:
    """One model iteration as planned; `repeat` identical iterations may run back to back.

    A plain class with class-level defaults: the simulator makes one per event, and most fields keep them."""
    decoding: list[int] | None = None  # the decoders, when some do not decode (None: every decoder does)
    decode = 0  # requests decoding in it
    decode_work = 0  # their token-work (k + 1 each with speculative decoding)
    padding = 0  # padded prompt positions and idle decode slots (static batching)
    graph_padding = 0  # decode slots added to reach a captured CUDA-graph batch size
    stalled: list[int] | tuple = ()  # decoders that hold a slot but do not decode in it
    accepted: dict[int, int] | None = None  # speculative decoding: drafts accepted per request
    context_read = 0  # KV tokens its attention reads (for the latency model)
    repeat = 1
    prefill_tokens = 0  # the sum of the prefill column, kept as it grows

    def __init__(self, **fields):
        self.prefill: list[tuple[int, int, int]] = []  # (request, first position, tokens)
        self.finishing: list[int] = []  # requests whose last token this iteration emits
        self.prefill_done: list[int] = []  # requests whose prompt this iteration completes
        if fields:
            self.__dict__.update(fields)

    @property
    def token_work(self) -> int:
        return self.prefill_tokens + self.decode_work + self.padding


class Scheduler:
    """State every policy shares; `Continuous` and `Static` (sim.core.policies) decide the iterations."""

    def __init__(self, trace: Trace, config: Config, policy: Policy):
        if policy.chunk_size is None:
            check_budget(trace, config.token_budget)
        if policy.spec_tokens + 1 > config.token_budget:
            raise ConfigError("spec_tokens", f"verifying {policy.spec_tokens} draft tokens costs "
                              f"{policy.spec_tokens + 1} token-work a request, more than the token budget "
                              f"{config.token_budget}")
        requests = self.requests = trace.requests
        self.config, self.policy = config, policy
        self.prefill_emits = config.first_token == "prefill"
        self.seq_limit = config.seq_limit
        n = len(requests)
        self.schedule = Schedule(policy.batching, config, [
            RequestTimeline(r.name, r.arrival, r.prompt, r.output, tenant=r.tenant, priority=r.priority)
            for r in requests], unit=config.cost.unit, options=policy)
        self.timelines = self.schedule.requests
        self.queue = WaitQueue(requests, policy)
        self.phase = [WAITING] * n
        self.target = [r.prompt for r in requests]  # tokens the next prefill processes (a recompute adds more)
        self.prefilled = [0] * n
        self.gen_base = [0] * n  # a decoder has made gen_base + decode_round - round_base tokens
        self.round_base = [0] * n
        self.arrived = 0  # requests[:arrived] have arrived
        self.running: dict[int, None] = {}  # requests holding a batch slot, in admission order
        self.decoders: dict[int, None] = {}  # running requests past their prefill
        self.decode_round = 0
        self.last_round: list[tuple[int, int]] = []  # heap (decode round of its last token, request)
        self.last_of = [-1] * n  # each decoder's current entry in last_round (older entries are stale)
        self.starting: dict[int, None] = {}  # decoders whose next decode round opens a decode segment
        self.decode_open: dict[int, tuple[float, int]] = {}  # open decode segment: (start, tokens made then)
        self.iterations = 0
        self.version = 0  # bumped whenever batch membership changes (steps merge only within one version)
        self.changes: list[int] = []  # joins (i) and leaves (~i) of the batch since the last recorded step
        self.remaining = n
        self.kv = BlockManager(config.kv_blocks, config.block_size) if config.kv_blocks else None
        self.overcommit = self.kv is not None and policy.kv_admission == "overcommit"
        self.block_due: list[tuple[int, int]] = []  # heap (decode round that needs another block, request)
        self.cancels: list[tuple[float, int]] = []  # heap (cancel time, request)
        self.stop_at: list[float | None] = [None] * n
        for i, r in enumerate(requests):
            times = [t for t in (r.cancel_at, None if policy.timeout is None else r.arrival + policy.timeout)
                     if t is not None]
            if times:
                self.stop_at[i] = min(times)
                self.cancels.append((min(times), i))
        heapq.heapify(self.cancels)
        self.resume: list[int] = []  # heap of swapped-out requests waiting to come back (earliest arrival first)
        self.swap_done: list[tuple[float, int]] = []  # heap (when its swap-in ends, request)
        self.swapped_blocks = [0] * n
        self.rng = [random.Random(policy.seed * 1_000_003 + i) for i in range(n)] if policy.spec_tokens else None
        self.quotas = dict(policy.tenant_quotas)
        # An executor whose time is not the arrival clock (the real engine: arrivals in iterations, times in
        # ms) sets `clock` before each plan: arrivals and cancels are read against it, times stay `now`.
        self.clock: float | None = None
        self.prefill_first = policy.mixing == "prefill-first"
        self.reads_context = config.cost.kind == "linear" and config.cost.c_attn > 0

    @property
    def done(self) -> bool:
        return self.remaining == 0

    def next_arrival(self) -> float | None:
        return self.requests[self.arrived].arrival if self.arrived < len(self.requests) else None

    def next_event(self) -> float | None:
        """When something can next change while nothing runs: an arrival or the end of a swap-in."""
        times = [t for t in (self.next_arrival(), self.swap_done[0][0] if self.swap_done else None) if t is not None]
        return min(times) if times else None

    def generated(self, i: int) -> int:
        return self.gen_base[i] + (self.decode_round - self.round_base[i] if i in self.decoders else 0)

    def context(self, i: int) -> int:
        """Tokens of request i whose KV it holds or will hold after its prefill: prompt plus tokens made."""
        return self.requests[i].prompt + self.generated(i)

    # -- arrivals, rejection, cancellation ----------------------------------------------------------------
    def admission_cost(self, i: int) -> int:
        """Token budget a waiting request needs to be admitted: its whole prefill, or one chunked token. A
        recompute of prompt + generated tokens larger than the whole budget runs in budget-sized pieces."""
        return 1 if self.policy.chunk_size else min(self.target[i] - self.prefilled[i], self.config.token_budget)

    def peak_kv(self, i: int) -> int:
        """The most KV tokens request i ever holds: prompt + output - 1. An iteration writes the KV of the token
        it feeds (the last one made), not of the token it makes, so the last output token never needs any (as
        in vLLM and nano-vllm). In the teaching mode (first token from a decode) the first decode feeds the
        prompt's last token again: the same count."""
        request = self.requests[i]
        return request.prompt + request.output - 1

    def never_fits(self, i: int) -> bool:
        kv = self.kv
        return kv is not None and blocks_for(self.peak_kv(i), kv.block_size) > kv.num_blocks

    def arrive(self, i: int) -> None:
        """Request i arrives: it waits, or is rejected if even an empty KV cache could not hold it."""
        self.arrived = i + 1
        if self.phase[i] != WAITING:
            return  # cancelled before it arrived
        if self.never_fits(i):
            self.timelines[i].reject_reason = {"blocks": blocks_for(self.peak_kv(i), self.kv.block_size),
                                               "capacity": self.kv.num_blocks}
            self._end(i, self.timelines[i].arrival, "rejected", "reject")
        else:
            self.queue.push(i, self.admission_cost(i))

    def arrive_until(self, now: float) -> None:
        requests, queue, checked = self.requests, self.queue, self.kv is not None or self.cancels
        while self.arrived < len(requests) and requests[self.arrived].arrival <= now:
            i = self.arrived
            if checked:
                self.arrive(i)
            else:  # nothing can turn it away
                self.arrived = i + 1
                queue.push(i, self.admission_cost(i))

    def _end(self, i: int, when: float, reason: str, event: str) -> None:
        """Request i ends without finishing (cancelled or rejected) at `when`, its wait drawn up to then."""
        timeline = self.timelines[i]
        if self.phase[i] in (WAITING, SWAPPED):
            since = timeline.segments[-1].end if timeline.segments else timeline.arrival
            wait = "swapped" if self.phase[i] == SWAPPED else "preempted" if timeline.preemptions else "queued"
            timeline.add(wait, since, max(since, when), 0)
        self.phase[i] = DONE
        timeline.finish_reason = reason
        self.schedule.events.append((when, event, i))
        self.remaining -= 1

    def cancel_due(self, now: float) -> None:
        """A stop lands just after an iteration boundary: a waiting request leaves at once; a running one
        stays for the iteration under way and leaves at its end (what it made then is never delivered)."""
        clock = now if self.clock is None else self.clock
        if not self.cancels or self.cancels[0][0] > clock:
            return
        held_back = []
        while self.cancels and self.cancels[0][0] <= clock:
            entry = heapq.heappop(self.cancels)
            stop, i = entry
            when = stop if self.clock is None else now  # a stop on another clock is recorded when it is seen
            phase = self.phase[i]
            if phase == DONE:
                continue
            if phase in (PREFILL, DECODE, SWAP_IN) and stop == clock:
                held_back.append(entry)  # the iteration starting now still holds it
                continue
            self.timelines[i].cancel_time = when
            if i >= self.arrived:  # a stop before it arrived: it never enters the queue
                self.phase[i] = DONE
                self.timelines[i].finish_reason = "cancelled"
                self.schedule.events.append((when, "cancel", i))
                self.remaining -= 1
            elif phase == WAITING:
                self.queue.remove(i)
                self._end(i, when, "cancelled", "cancel")
            elif phase == SWAPPED:
                self.resume.remove(i)
                heapq.heapify(self.resume)
                self._end(i, when, "cancelled", "cancel")
            else:
                self.drop_running(i, now)
                self._end(i, when, "cancelled", "cancel")
        for entry in held_back:
            heapq.heappush(self.cancels, entry)

    def running_cancel_horizon(self, now: float) -> float | None:
        """The earliest cancel time of a running request (it leaves at the first boundary after it)."""
        if not self.cancels:
            return None
        times = [when for when, i in self.cancels if self.phase[i] in (PREFILL, DECODE, SWAP_IN)]
        return min(times) if times else None

    def drop_running(self, i: int, now: float) -> None:
        """Take running request i out of the batch at `now` (a cancel, or a preemption)."""
        if i in self.decoders:
            self._close_decode(i, now)
            del self.decoders[i]
            self.starting.pop(i, None)
        if self.phase[i] == SWAP_IN:  # its copy back stops: the time it held the slot is drawn
            self.swap_done = [(t, j) for t, j in self.swap_done if j != i]
            heapq.heapify(self.swap_done)
            self.timelines[i].add("swapping", self.timelines[i].segments[-1].end, now, 0)
        self.exit(i)
        self.free_blocks(i, now)

    # -- the KV cache and preemption ------------------------------------------------------------------------
    def free_blocks(self, i: int, now: float) -> None:
        if self.kv is not None and self.kv.held(i):
            self.kv.free_request(i)
            self.timelines[i].kv.append((now, 0))

    def take_blocks(self, i: int, tokens: int, now: float) -> bool:
        """Grow request i's blocks to hold `tokens` tokens; False (nothing taken) if the pool is short."""
        if self.kv is None:
            return True
        held = self.kv.held(i)
        if not self.kv.grow_to(i, tokens):
            return False
        if self.kv.held(i) != held:
            self.timelines[i].kv.append((now, self.kv.held(i)))
        return True

    def blocks_short(self, tokens: int) -> bool:
        return self.kv is not None and blocks_for(tokens, self.kv.block_size) > self.kv.free

    def watch_growth(self, i: int) -> None:
        """Overcommit: note the decode round whose fed tokens no longer fit request i's blocks (a round feeds
        the last token made and any drafts: it needs KV for context + drafts tokens)."""
        if self.overcommit:
            room = self.kv.capacity(i) - self.context(i) - self.drafts(i) + 1
            heapq.heappush(self.block_due, (self.decode_round + max(0, room), i))

    def drafts(self, i: int) -> int:
        """Draft tokens request i's next speculative step verifies: k, but never past its last token."""
        return min(self.policy.spec_tokens, max(0, self.requests[i].output - self.generated(i) - 1))

    def grow_due(self, now: float) -> None:
        """Before a decode round: decoders whose next token needs a new block get one, preempting the
        victim (maybe themselves) while the pool is short."""
        heap = self.block_due
        while heap and heap[0][0] <= self.decode_round:
            _, i = heapq.heappop(heap)
            if i not in self.decoders:
                continue
            needed = self.context(i) + self.drafts(i)
            if self.kv.capacity(i) >= needed:
                self.watch_growth(i)
                continue
            while not self.take_blocks(i, needed, now):
                # A request swapping back in holds blocks too: it can go out again.
                among = [j for j in self.running if self.phase[j] in (PREFILL, DECODE, SWAP_IN)]
                if self.policy.preemptive_priority:  # never push out a better class: it would push back
                    among = [j for j in among if self.requests[j].priority >= self.requests[i].priority]
                victim = self.victim(among)
                self.preempt(victim, now)
                if victim == i:
                    break
            else:
                self.watch_growth(i)

    def victim(self, among: list[int]) -> int:
        """The running request to preempt: the latest arrival, or the lowest priority (then the latest). With
        preemptive priority always the lowest class first: a better class pushed out would push back at once."""
        if self.policy.victim == "lowest-priority" or self.policy.preemptive_priority:
            return max(among, key=lambda j: (self.requests[j].priority, j))
        return max(among)

    def preempt(self, i: int, now: float, recompute: bool = False) -> None:
        """Evict running request i: recompute (drop its KV and wait in the queue, at its place in the policy's
        order, to prefill prompt + generated again) or swap (its blocks go to host memory; it comes back, before
        any waiting request, without recomputing)."""
        generated = self.generated(i)
        swap = self.policy.preempt == "swap" and (i in self.decoders or self.phase[i] == SWAP_IN) and not recompute
        held = self.kv.held(i) if self.kv is not None else 0
        self.drop_running(i, now)
        self.gen_base[i] = generated
        timeline = self.timelines[i]
        timeline.preemptions += 1
        if swap:
            self.phase[i] = SWAPPED
            self.swapped_blocks[i] = held
            timeline.swapped_blocks += held
            self.schedule.events.append((now, "swap_out", i))
            heapq.heappush(self.resume, i)
        else:
            self.phase[i] = WAITING
            self.target[i], self.prefilled[i] = self.requests[i].prompt + generated, 0
            self.schedule.events.append((now, "preempt", i))
            self.queue.push(i, self.admission_cost(i))

    # -- membership and the timeline ------------------------------------------------------------------------
    def admit(self, i: int, now: float) -> None:
        """Request i takes a batch slot at `now`: its wait (queued or preempted) ends."""
        timeline = self.timelines[i]
        if timeline.preemptions:
            timeline.add("preempted", timeline.segments[-1].end, now, 0)
            timeline.recomputed += self.target[i]  # a recompute prefills prompt + generated tokens again
        elif now > timeline.arrival:
            timeline.segments.append(Segment("queued", timeline.arrival, now, 0))
        self.enter(i)
        self.phase[i] = PREFILL

    def enter(self, i: int) -> None:
        """Request i takes a batch slot."""
        self.running[i] = None
        self.version += 1
        self.changes.append(i)

    def exit(self, i: int) -> None:
        """Request i gives its batch slot back."""
        del self.running[i]
        self.version += 1
        self.changes.append(~i)

    def start_decoding(self, i: int) -> None:
        self.phase[i] = DECODE
        self.round_base[i] = self.decode_round
        self.decoders[i] = None
        self.starting[i] = None
        self.expect_last(i)
        if self.overcommit:
            self.watch_growth(i)

    def expect_last(self, i: int) -> None:
        """(Re)compute the decode round of decoder i's last token; its earlier heap entry becomes stale."""
        last = self.last_of[i] = self.decode_round + self.requests[i].output - self.generated(i) - 1
        heapq.heappush(self.last_round, (last, i))

    def finishing_now(self) -> list[int]:
        """Decoders whose last token comes from the coming decode round (stale heap entries skipped)."""
        heap, finishing = self.last_round, {}
        while heap and heap[0][0] <= self.decode_round:
            last, i = heapq.heappop(heap)
            if last == self.last_of[i] and i in self.decoders:
                finishing[i] = None  # an old entry can match again after a preemption: each request once
        return list(finishing)

    def rounds_to_next_finish(self) -> int:
        """Decode rounds until the next decoder makes its last token (stale heap entries dropped)."""
        heap = self.last_round
        while heap and (heap[0][0] != self.last_of[heap[0][1]] or heap[0][1] not in self.decoders):
            heapq.heappop(heap)
        return heap[0][0] - self.decode_round if heap else NEVER

    def rounds_to_next_block(self) -> int:
        """Overcommit: decode rounds until a decoder needs another block."""
        heap = self.block_due
        if not self.overcommit:
            return NEVER
        while heap and heap[0][1] not in self.decoders:
            heapq.heappop(heap)
        return heap[0][0] - self.decode_round if heap else NEVER

    def _close_decode(self, i: int, end: float) -> None:
        opened = self.decode_open.pop(i, None)
        if opened is not None:
            start, made_then = opened
            self.timelines[i].add("decode", start, end, self.generated(i) - made_then)

    def open_decodes(self, start: float, first_end: float, skip) -> None:
        """Decoders decoding for the first time since they started (or stalled) open a decode segment."""
        opening = [i for i in self.starting if i not in skip] if skip else list(self.starting)
        timelines, decode_open = self.timelines, self.decode_open
        for i in opening:
            del self.starting[i]
            decode_open[i] = (start, self.generated(i))
            if timelines[i].first_token is None:
                timelines[i].first_token = first_end

    def stall(self, requests, start: float, end: float) -> None:
        """Decoders that hold their slot but do not decode in [start, end)."""
        for i in requests:
            self._close_decode(i, start)
            self.timelines[i].add("stalled", start, end, 0)
            self.starting[i] = None

    def commit_prefill(self, it: Iteration, start: float, end: float) -> None:
        """Record the prefill chunks; a completed prefill emits a token in the engine's first-token mode, then
        the request decodes from the next decode round on."""
        timelines = self.timelines
        for i, first, tokens in it.prefill:
            # A recompute's first chunk starts a segment of its own, even right after the preemption: it stays
            # apart from the prefill it repeats.
            timelines[i].add("prefill", start, end, tokens, merge=first > 0 or not timelines[i].preemptions)
            self.prefilled[i] += tokens
        for i in it.prefill_done:
            if self.prefill_emits:
                self.gen_base[i] += 1
                timelines[i].prefill_emits.append(end)
                if timelines[i].first_token is None:
                    timelines[i].first_token = end
            if self.gen_base[i] < self.requests[i].output:
                self.start_decoding(i)

    def commit_decodes(self, it: Iteration, start: float, end: float) -> None:
        """Move the decode round on: lazily for everyone, plus the extra tokens of speculative steps."""
        first_end = start + (end - start) / it.repeat
        if first_end == int(first_end):
            first_end = int(first_end)
        if it.accepted:  # speculative decoding: each request's step is its own segment of 1 + accepted tokens
            for i, accepted in it.accepted.items():
                self.starting.pop(i, None)
                if self.timelines[i].first_token is None:
                    self.timelines[i].first_token = first_end
                self.timelines[i].add("decode", start, end, accepted + 1, merge=False)
                self.gen_base[i] += accepted
        elif self.starting:
            self.open_decodes(start, first_end, set(it.stalled) if it.stalled else ())
        for i in it.stalled:  # held back by the budget: the round passes it by
            self.gen_base[i] -= it.repeat
        self.decode_round += it.repeat
        self.stall(it.stalled, start, end)
        for i in [*it.stalled, *(it.accepted or ())]:
            self.expect_last(i)
            self.watch_growth(i)

    def finish(self, i: int, end: float) -> None:
        timeline = self.timelines[i]
        opened = self.decode_open.pop(i, None)
        if opened is not None:
            timeline.add("decode", opened[0], end, self.generated(i) - opened[1])
        self.decoders.pop(i, None)
        self.starting.pop(i, None)
        self.phase[i] = DONE
        self.remaining -= 1
        stop = self.stop_at[i]
        if stop is not None and stop < end and self.clock is None:
            # The user stopped it during the iteration that made its last token: that token never arrives.
            timeline.cancel_time, timeline.finish_reason = stop, "cancelled"
            self.schedule.events.append((stop, "cancel", i))
        else:
            timeline.completion, timeline.finish_reason = end, "finished"

    def record_step(self, it: Iteration, start: float, end: float) -> None:
        self.schedule.add_step(start, end, it.repeat, it.prefill_tokens, it.decode_work, it.padding,
                               len(self.running), self.version, self.kv.used if self.kv else None,
                               it.graph_padding, it.decode, sum(it.accepted.values()) if it.accepted else 0,
                               self.changes or ())
        if self.changes:
            self.changes = []

    def graph_padding(self, batch: int) -> int:
        """Slots that pad a decode batch of `batch` up to the next captured size (0 above the largest)."""
        if not self.policy.graph_buckets:
            return 0
        bucket = next((b for b in self.policy.graph_buckets if b >= batch), None)
        return 0 if bucket is None or batch == 0 else bucket - batch

    def speculate(self, i: int) -> int:
        """Draft tokens the target model accepts this step for request i: each of k is accepted with
        probability p until the first rejection (one draw per step from the request's own seeded stream)."""
        accepted = 0
        while accepted < self.policy.spec_tokens and self.rng[i].random() < self.policy.spec_accept:
            accepted += 1
        return min(accepted, self.requests[i].output - self.generated(i) - 1)

    def steps_until(self, when: float, now: float, length: float) -> int:
        """Iterations of `length` starting before `when` (from `now`)."""
        return max(1, math.ceil((when - now) / length))

    def steady_limit(self, now: float, length: float, repeat: int) -> int:
        """`repeat` identical iterations of `length`, cut where a running request's cancel lands (it leaves at
        the first boundary after it) or a swap-in ends."""
        cancel = self.running_cancel_horizon(now)
        if cancel is not None:
            repeat = min(repeat, int((cancel - now) // length) + 1)
        if self.swap_done:
            repeat = min(repeat, self.steps_until(self.swap_done[0][0], now, length))
        return max(1, repeat)
