"""The one scheduler's shared machinery: the parts it is made of, and what moves a request from one phase to the
next. The batching policies (sim.core.continuous, sim.core.static) decide the iterations with it.

Its parts each own their state and are called with explicit arguments: `phases` (sim.core.request.Phases, the one
table of where every request is), `queue` (the waiting queue in the policy's order), `memory` (sim.core.memory:
the KV blocks, growth and swap), `recorder` (sim.core.recording: the timelines and steps), `streams` (sim.core.
stream: clients' readers and credits) and `stops` (cancels, timeouts, disconnects).

An executor drives a scheduler one iteration at a time: `advance(now)` does what happens at the iteration's start
(arrivals, stops and the other events of time: each policy's own), `plan(now)` then decides the next iteration
and returns it as an Iteration (sim.core.iteration: a value, the whole plan); the executor runs it, then
`commit(iteration, start, end)` records it and moves every request on. A plan may say that identical iterations
follow (`repeat`), so the simulator runs a stretch of identical decode ticks as one event instead of visiting
every tick. Decode progress is counted lazily (sim.core.request.DecodeRounds), so a decode round costs O(1)
however many decode.
"""
from __future__ import annotations

import heapq
import math
from collections.abc import Sequence

from ..trace.trace import Trace, check_budget
from .config import Config, ConfigError, Policy
from .iteration import Iteration
from .kv import blocks_for
from .memory import Memory
from .queue import NEVER, WaitQueue
from .recording import Recorder
from .request import RUNNING, STOP_EVENTS, SWAP_IN, SWAPPED, WAITING, DecodeRounds, Draws, Phases, RequestState
from .schedule import RequestTimeline, Schedule, Segment, iteration_length
from .stops import Stops
from .stream import Streams


def check_runnable(trace: Trace, config: Config, policy: Policy, prompts: bool = True) -> None:
    """A clear error where a run could never end: a prompt over the token budget without chunked prefill, or a
    speculative step that costs more than the whole budget. `prompts`: whether the prompts are prefilled here
    (a decode replica's arrive computed: sim.core.cluster)."""
    if policy.chunk_size is None and prompts:
        check_budget(trace, config.token_budget)
    if policy.prefix_cache and not config.kv_blocks:
        raise ConfigError("prefix_cache", "cache_needs_kv")
    if policy.spec_tokens + 1 > config.token_budget:
        raise ConfigError("spec_tokens", "spec_over_budget", tokens=policy.spec_tokens, cost=policy.spec_tokens + 1,
                          budget=config.token_budget)


class Scheduler:
    """The parts every policy shares, and the moves between phases; `Continuous` and `Static` decide the
    iterations."""

    def __init__(self, trace: Trace, config: Config, policy: Policy, unit: str | None = None,
                 replica: str = ""):
        """`unit` is the time unit of the executor's clock (default: its cost model's, ticks or ms). `replica`: the
        role of a replica behind a router (sim.core.cluster: "mixed", "prefill" or "decode"; "" for one engine
        alone): the trace is every request the router will place, and a request is this scheduler's only once
        `offer` gives it to it; the others never arrive here. A decode replica's prompts arrive computed."""
        routed = bool(replica)
        check_runnable(trace, config, policy, prompts=replica != "decode")
        requests = self.requests = trace.requests
        self.config, self.policy = config, policy
        self.seq_limit = config.seq_limit
        self.schedule = Schedule(policy.batching, config, [], unit=unit or config.cost.unit, options=policy)
        self.phases = Phases(len(requests))
        self.states: list[RequestState | None] = [None] * len(requests)  # (None: placed on another replica)
        # requests[:routed] are placed (all of them, unless routed), requests[:arrived] have arrived
        self.routed, self.arrived = (0 if routed else len(requests)), 0
        self.remaining = 0  # requests of this scheduler's not done yet
        if not routed:
            self.schedule.requests = [self.new_state(i).timeline for i in range(len(requests))]
        states = self.states
        self.rounds = DecodeRounds(states if config.cost.kind == "profile" else None)
        self.stops = Stops([] if routed else states, self.phases, policy.timeout)
        self.quotas = dict(policy.tenant_quotas)
        # Under quotas the queue keeps each quota tenant's requests apart (0: tenants under no quota).
        self.quota_tenants = list(self.quotas)
        self.queue = WaitQueue(requests, policy, [self.quota_tenants.index(r.tenant) + 1 if r.tenant in self.quotas
                                                  else 0 for r in requests] if self.quotas else None)
        self.memory = Memory(config, policy, states)
        self.recorder = Recorder(self.schedule, states, self.rounds)
        self.streams = Streams(policy, [] if routed else states, self.schedule.unit == "tick")
        self.overcommit = self.memory.overcommit
        self.kv_cache = bool(config.kv_blocks)  # (the memory holds a block pool)
        self.caches_prefixes = self.kv_cache and policy.prefix_cache
        self.swaps = policy.preempt == "swap"
        # (a replica's requests come later: whether any could be stopped, or read slowly, is the whole trace's)
        self.has_stops = bool(self.stops) if not routed else policy.timeout is not None or any(
            r.cancel_at is not None or r.disconnect_at is not None for r in requests)
        self.credits = bool(self.streams) if not routed else policy.stream_credits is not None and any(
            (config.read_rate if r.read_rate is None else r.read_rate) is not None for r in requests)
        self.routes = bool(config.moe.experts)
        self.last_tokens: list[tuple[int, int]] = []  # heap (decode round of its last token, request)
        # the decoders whose last token comes from the coming decode round if they decode in it (`advance`), and
        # whether the plan reads them (a speculative step finds its own)
        self.due: Sequence[int] = ()
        self.due_noted: dict[int, int] = {}  # the due ones, by the last round they were noted for (out of the heap)
        self.notes_last = not policy.spec_tokens
        self.prefill_emits = config.first_token == "prefill"
        self.reads_context = config.cost.reads_context
        # The clock arrivals and stops are read on, when it is not the executor's (the real engine: arrivals in
        # iterations, times in ms); each `advance` is given it.
        self.clock: float | None = None
        self.advanced: float | None = None  # the time `advance` was last called for, until a plan follows it
        if policy.order == "lpm":
            self.queue.prefix_found = self.memory.found_prefix

    def new_state(self, i: int, local: int | None = None) -> RequestState:
        """Request i becomes this scheduler's: its timeline and its state. `local`: its place among this
        scheduler's requests, when that is not i (a replica's): speculation draws by it, as an engine serving only
        them would."""
        r, config = self.requests[i], self.config
        timeline = RequestTimeline(r.name, r.arrival, r.prompt, r.output, tenant=r.tenant, priority=r.priority,
                                   read_rate=config.read_rate if r.read_rate is None else r.read_rate,
                                   disconnect_at=r.disconnect_at)
        s = self.states[i] = RequestState(i, r, timeline, r.prompt)
        if self.policy.spec_tokens:
            s.draws = Draws(self.policy.seed * 1_000_003 + (i if local is None else local), self.policy.spec_tokens)
        self.remaining += 1
        return s

    def offer(self, i: int, mine: bool, computed: int = 0) -> None:
        """A router placed request i, the next in arrival order: here (`mine`), or on another replica. `computed`:
        the tokens of its prompt whose KV comes with it, computed elsewhere (a prefill replica's), so they are not
        prefilled here."""
        self.routed = i + 1
        if mine:
            s = self.new_state(i, len(self.schedule.requests))
            s.prefilled = computed
            self.schedule.requests.append(s.timeline)
            if self.has_stops:
                self.stops.add(s)
            if self.credits:
                self.streams.add(s)
        self.skip_others()

    def advance(self, now: float, clock: float | None = None) -> None:
        """What happens at an iteration's start, before it is planned at `now`: time's events, not the plan's
        decisions (each policy's own `at_start`). `clock`: the time arrivals and stops are read on, when it is not
        `now` (the real engine's iterations)."""
        self.clock, self.advanced = clock, now
        self.at_start(now)
        heap = self.last_tokens
        if self.notes_last and (self.due_noted or heap and heap[0][0] <= self.rounds.now):
            self.due = self.last_rounds_due()
        elif self.due:
            self.due = ()
        if self.rounds.states is not None:
            self.rounds.drop_stale()

    def at_start(self, now: float) -> None:
        """The events of an iteration's start: arrivals and stops."""
        self.arrive_until(now)
        if self.has_stops:
            self.cancel_due(now)

    def planning(self, now: float) -> None:
        """A plan at `now` follows `advance(now)`, once: else the events at its start would be missed."""
        if self.advanced != now:
            raise RuntimeError(f"plan({now}) without advance({now}) just before it")
        self.advanced = None

    def skip_others(self) -> None:
        """The next arrival is this scheduler's, or not placed yet: the requests placed elsewhere are passed."""
        states = self.states
        while self.arrived < self.routed and states[self.arrived] is None:
            self.arrived += 1

    def next_arrival(self) -> float | None:
        return self.requests[self.arrived].arrival if self.arrived < self.routed else None

    def next_event(self) -> float | None:
        """When something can next change while nothing runs: an arrival, the end of a swap-in or a released
        request's return (on the clock arrivals are read on)."""
        times = [t for t in (self.next_arrival(), self.memory.next_swap_end(), self.streams.next_return())
                 if t is not None]
        return min(times) if times else None

    def next_credit(self) -> float | None:
        """When the first paused decoder's client will have read enough for another step (None: none waits)."""
        return self.streams.next_credit(self.phases.decoding) if self.credits else None

    def wake(self, one_clock: bool = True) -> tuple[float | None, bool]:
        """What an executor waits for when a plan ran nothing (the one idle rule of both executors): (when, True)
        a paused decoder's client will have read enough then, on the executor's clock; (when, False) the next
        event, on the clock arrivals are read on; (None, False) nothing is left to happen. Not `one_clock`
        (arrivals read on a clock of their own, as iterations): the two times cannot be compared, and a client's
        credit is waited for first."""
        upcoming, credit = self.next_event(), self.next_credit()
        if credit is not None and (upcoming is None or not one_clock or credit <= upcoming):
            return credit, True
        return upcoming, False

    def generated(self, i: int) -> int:
        return self.rounds.made(self.states[i])

    def context(self, i: int) -> int:
        """Tokens of request i whose KV it holds or will hold after its prefill: prompt plus tokens made."""
        return self.requests[i].prompt + self.generated(i)

    def decoders_context(self, decoding) -> int:
        """The context the decoders in `decoding` read, summed (each context(i)): kept by the decode rounds when
        every decoder decodes, so a latency model's iteration costs O(1) to time, not O(decoders)."""
        if len(decoding) == len(self.phases.decoding):  # (`decoding` is among the decoders)
            return self.rounds.context()
        return sum(self.context(i) for i in decoding)

    def longest_context(self, decoding) -> int:
        """The longest context of a decoder in `decoding` (1 without any), likewise (a profile cost model's)."""
        if decoding and len(decoding) == len(self.phases.decoding) and self.rounds.states is not None:
            return self.rounds.longest()
        return max((self.context(i) for i in decoding), default=1)

    def computed(self, i: int) -> int:
        """Tokens of request i whose KV is computed: what its prefill got through, else its prompt and every
        token made but the last (a decode computes the KV of the token it feeds, not of the one it makes)."""
        s = self.states[i]
        if s.prefilled < s.target:
            return s.prefilled
        return max(s.target, s.prompt + self.generated(i) - 1)

    def fed(self, i: int) -> int:
        """Tokens of KV decoder i's next round needs: its context (the prompt and every token made, the last one
        fed in) and the draft tokens it verifies (k, but never past its last token)."""
        s = self.states[i]
        made = self.generated(i)
        drafts = min(self.policy.spec_tokens, max(0, s.request.output - made - 1)) if self.policy.spec_tokens else 0
        return s.request.prompt + made + drafts

    # -- arrivals, rejection, cancellation ----------------------------------------------------------------
    def admission_cost(self, i: int) -> int:
        """Token budget a waiting request needs to be admitted: its whole prefill, or one chunked token. A
        recompute of prompt + generated tokens larger than the whole budget runs in budget-sized pieces."""
        s = self.states[i]
        return 1 if self.policy.chunk_size else min(s.target - s.prefilled, self.config.token_budget)

    def never_fits(self, i: int) -> bool:
        return self.memory.never_fits(self.states[i].peak_kv)

    def arrival_clock(self, now: float) -> float:
        return now if self.clock is None else self.clock

    def arrive_until(self, now: float) -> None:
        """Requests that have arrived by now wait, or are rejected if even an empty KV cache could not hold
        them. On a clock of its own (`self.clock`) a request's arrival is recorded as `now`, when it is seen."""
        requests, states, phase, clock = self.requests, self.states, self.phases.of, self.arrival_clock(now)
        push, budget = self.queue.push, 1 if self.policy.chunk_size else self.config.token_budget
        while self.arrived < self.routed and requests[self.arrived].arrival <= clock:
            i = self.arrived
            s = states[i]
            self.arrived = i + 1
            if s is None:
                continue  # placed on another replica
            if self.clock is not None:
                s.timeline.arrival = now
            if phase[i] != WAITING:
                continue  # cancelled before it arrived
            if self.kv_cache and self.never_fits(i):
                s.timeline.reject_reason = {"blocks": blocks_for(s.peak_kv, self.config.block_size),
                                            "capacity": self.config.kv_blocks}
                self.end(i, s.timeline.arrival, "rejected", "reject")
            else:  # (its admission cost: what of its prompt is to prefill)
                push(i, min(s.target - s.prefilled, budget))
        self.skip_others()

    def end(self, i: int, when: float, reason: str, event: str) -> None:
        """Request i ends without finishing (cancelled or rejected) at `when`, its wait drawn up to then."""
        phase, waited = self.phases.of[i], None
        if phase in (WAITING, SWAPPED) and i < self.arrived:
            waited = "swapped" if phase == SWAPPED else "preempted" if self.states[i].timeline.preemptions else "queued"
        self.phases.done(i)
        self.recorder.ended(i, when, reason, event, waited)
        self.remaining -= 1

    def cancel_due(self, now: float) -> None:
        """A stop lands just after an iteration boundary: a waiting request leaves at once; a running one
        stays for the iteration under way and leaves at its end (what it made then is never delivered). A stop
        read on a clock of its own is recorded when it is seen."""
        for stop, i in self.stops.due(self.arrival_clock(now)):
            s, phase = self.states[i], self.phases.of[i]
            when = stop if self.clock is None else now
            s.timeline.cancel_time = when
            if self.streams.drop(i):
                pass  # released for its client (release_for_clients): in no queue
            elif phase == WAITING and i < self.arrived:
                self.queue.remove(i)
            elif phase == SWAPPED:
                self.memory.unswap(i)
            elif phase in RUNNING:
                self.drop_running(i, now)
            self.end(i, when, s.stop_reason, STOP_EVENTS[s.stop_reason])
        self.stops.drop_done()

    # -- membership and decoding ----------------------------------------------------------------------------
    def bring_in(self, it: Iteration, now: float) -> None:
        """(At commit) the swapped-out requests the plan brought back take their slots, then the waiting ones it
        brought in leave the queue and take theirs."""
        for i in it.swapping_in:
            self.swap_in(i, now)
        for i in it.admitted:
            self.queue.remove(i)
            self.admit(i, now)

    def admit(self, i: int, now: float) -> None:
        """Request i takes a batch slot at `now`: its wait (queued or preempted) ends."""
        s = self.states[i]
        timeline = s.timeline
        if timeline.preemptions:
            timeline.add("preempted", timeline.segments[-1].end, now, 0)
            timeline.recomputed += s.target  # a recompute prefills prompt + generated tokens again
        elif now > timeline.arrival:
            timeline.segments.append(Segment("queued", timeline.arrival, now, 0))
        self.phases.admit(i)
        self.recorder.joined(i)

    def exit(self, i: int) -> None:
        """Request i gives its batch slot back."""
        self.phases.leave(i)
        self.recorder.left(i)

    def free_blocks(self, i: int, now: float) -> None:
        """Request i's KV blocks go back to the pool (a prefix cache keeps what they computed findable)."""
        if self.kv_cache:
            self.memory.free(i, self.computed(i), now)

    def drop_running(self, i: int, now: float) -> None:
        """Take running request i out of the batch at `now` (a cancel, or a preemption)."""
        if i in self.phases.decoding:
            self.stop_decoding(i, now)
        self.give_back_slot(i, now)

    def give_back_slot(self, i: int, now: float) -> None:
        """Running request i, no longer decoding, leaves its slot and frees its blocks (a swap-in under way
        stops)."""
        if self.phases.of[i] == SWAP_IN:  # its copy back stops: the time it held the slot is drawn
            self.memory.stop_swap_in(i)
            timeline = self.states[i].timeline
            timeline.add("swapping", timeline.segments[-1].end, now, 0)
        self.exit(i)
        self.free_blocks(i, now)

    def start_decoding(self, i: int) -> None:
        s, rounds = self.states[i], self.rounds
        self.phases.decode(i)
        rounds.start(s)
        self.recorder.starts_decoding(i)
        s.last_round = rounds.now + s.request.output - s.made - 1  # (expect_last, for a decoder just started)
        heapq.heappush(self.last_tokens, (s.last_round, i))
        if self.overcommit:
            self.watch_growth(i)

    def stop_decoding(self, i: int, now: float) -> None:
        """Decoder i leaves the decode rounds at `now` (a cancel, a preemption): its open segment closes."""
        self.recorder.stops_decoding(i, now)
        self.phases.stop_decoding(i)
        self.rounds.stop(self.states[i])

    def finish(self, i: int, end: float, leaves: bool = False) -> None:
        """Request i made its last token at `end` (or was stopped during that iteration): it is done; `leaves`:
        it gives its batch slot back too (`exit`)."""
        s = self.states[i]
        self.recorder.finished(i, end, s.stop_at is not None and s.stop_at < end and self.clock is None, leaves)
        if s.since is not None:  # (in the decode rounds)
            self.rounds.stop(s)
        self.phases.done(i, leaves)
        self.remaining -= 1
        if self.due_noted:
            self.due_noted.pop(i, None)

    def expect_last(self, i: int) -> None:
        """(Re)compute the decode round of decoder i's last token; its earlier heap entry becomes stale (and it is
        due no more)."""
        s = self.states[i]
        s.last_round = self.rounds.now + s.output - self.generated(i) - 1
        heapq.heappush(self.last_tokens, (s.last_round, i))
        if self.due_noted:
            self.due_noted.pop(i, None)

    def noted(self, last: int, i: int) -> bool:
        """Whether a heap entry is decoder i's last round as now noted (else it is stale: i left the decode
        rounds, or was noted again since)."""
        return last == self.states[i].last_round and i in self.phases.decoding

    def last_rounds_due(self) -> list[int]:
        """(At an iteration's start) the decoders whose last token comes from the coming decode round, if they
        decode in it, in the order of their heap entries (last round, request). A heap entry is a decoder's last
        round as of when it was noted: a round that passed it by since (a stall, a pause) only put it off, so an
        entry found due may be early; it is noted again now. Stale entries are dropped. A due one leaves the heap
        for `due_noted`, and stays there until its decoder finishes, leaves or is noted again (at commit, if it
        waited)."""
        heap, states, made, due, later = self.last_tokens, self.states, self.rounds.made, self.due_noted, []
        decoding, now = self.phases.decoding, self.rounds.now
        if due:
            for i in [i for i, last in due.items() if last != states[i].last_round or i not in decoding]:
                del due[i]
        while heap and heap[0][0] <= now:
            last, i = heapq.heappop(heap)
            s = states[i]
            if last != s.last_round or i not in decoding:  # (stale)
                continue
            if made(s) + 1 < s.request.output:
                later.append(i)
            else:
                due[i] = last  # an old entry can match again after a preemption: each request once
        for i in later:
            self.expect_last(i)
        while heap and (heap[0][0] != states[heap[0][1]].last_round or heap[0][1] not in decoding):
            heapq.heappop(heap)  # (stale: a plan reads the next finish off the top)
        return sorted(due, key=lambda i: (due[i], i)) if len(due) > 1 else list(due)

    def finishing_now(self, waiting: set[int] | None = None) -> list[int]:
        """Decoders whose last token comes from the coming decode round: of those due (`advance`), the ones still
        decoding and not `waiting` (not decoding in this round)."""
        decoding = self.phases.decoding
        return [i for i in self.due if i in decoding and not (waiting and i in waiting)]

    def rounds_to_next_finish(self) -> int:
        """Decode rounds until the next decoder makes its last token (read off the heap's top, or where that is
        stale, a decoder left since, found without taking any entry off)."""
        heap, now = self.last_tokens, self.rounds.now
        due = [last for i, last in self.due_noted.items() if self.noted(last, i)]
        if heap and self.noted(*heap[0]):
            return min([heap[0][0], *due]) - now
        noted = [last for last, i in heap if self.noted(last, i)] + due
        return min(noted) - now if noted else NEVER

    def last_of_run(self, rounds: int) -> list[int]:
        """The decoders whose last token comes `rounds` decode rounds from now (`rounds_to_next_finish`'s), in
        request order, as that round's plan would find them due: a run of identical iterations may end with that
        round, and they finish at its commit. A noted round found early (a stall put it off since) is not one:
        that round's plan notes it again."""
        if not 0 < rounds < NEVER:
            return []
        heap, states, made = self.last_tokens, self.states, self.rounds.made
        target, found, nodes = self.rounds.now + rounds, set(), [0]
        while nodes:  # (the heap's entries at `target` or before it: a subtree at its root)
            n = nodes.pop()
            if n < len(heap) and heap[n][0] <= target:
                last, i = heap[n]
                if last == target and self.noted(last, i) and made(states[i]) + rounds + 1 >= states[i].request.output:
                    found.add(i)
                nodes += (2 * n + 1, 2 * n + 2)
        return sorted(found)

    # -- what a commit does ----------------------------------------------------------------------------------
    def commit_decodes(self, it: Iteration, start: float, end: float) -> None:
        """Move the decode round on: lazily for everyone, plus the extra tokens of speculative steps; decoders
        that did not decode lose the round (and stall), and those that just started open their segment."""
        if not it.decoding and not it.stalled and not it.paused:
            return
        recorder, decoding = self.recorder, self.phases.decoding
        if not it.decoding and len(it.stalled) == len(decoding):
            # Every decoder waits (a prefill-first iteration): no decode round happens, so no lazy count moves.
            recorder.pause(start, decoding)
            return
        states = self.states
        waiting = (*it.stalled, *it.paused) if it.paused else it.stalled
        if self.due and waiting:  # a decoder due to finish that waited is due at its next round, noted now
            due = set(self.due)
            for i in waiting:
                if i in due:
                    self.expect_last(i)
        if it.accepted:
            recorder.round_starts(start, end, it.repeat, (), opens=False)
            recorder.speculated(it.accepted, start, end, start + iteration_length(start, end, it.repeat))
            adjust, drawn = self.rounds.adjust, it.drawn
            for i, n in it.accepted.items():
                s = states[i]
                if n:
                    adjust(s, n)
                s.draws.use(drawn[i])
        else:  # (the first of iterations of their own lengths ends at ends[0])
            recorder.round_starts(start, *((it.ends[0], 1) if it.ends else (end, it.repeat)),
                                  set(waiting) if waiting else ())
        if waiting:  # held back by the budget or by its client: the round passes them by
            self.rounds.pass_by([states[i] for i in waiting], it.repeat)
        self.rounds.advance(it.repeat)
        if it.stalled:
            recorder.stall(it.stalled, start)  # (the paused were drawn as the iteration was planned)
        if self.overcommit:
            for i in (*waiting, *it.accepted):
                self.watch_growth(i)

    def commit_prefill(self, it: Iteration, start: float, end: float) -> None:
        """The prefill chunks advance; a completed prefill emits a token in the engine's first-token mode, then
        the request decodes from the next decode round on."""
        states = self.states
        self.recorder.prefills(it.prefill, start, end)
        for i, first, tokens in it.prefill:  # (first: past what a prefix cache held at admission)
            states[i].prefilled = first + tokens
        for i in it.prefill_emits:
            states[i].made += 1
            self.recorder.prefill_emitted(i, end)
        for i in it.prefill_done:
            s = states[i]
            if s.made < s.request.output:
                self.start_decoding(i)
            else:
                self.phases.prefilled(i)

    def record_step(self, it: Iteration, start: float, end: float) -> None:
        self.recorder.step(it, start, end, len(self.phases.running), self.memory.used if self.kv_cache else None)

    # -- KV growth, preemption and swap ------------------------------------------------------------------------
    def watch_growth(self, i: int) -> None:
        """Overcommit: note the decode round whose fed tokens no longer fit request i's blocks."""
        self.memory.watch(i, self.fed(i), self.rounds.now)

    def grow_due(self, now: float) -> bool:
        """Before a decode round: decoders whose fed tokens need a new block get one, preempting the victim
        (maybe themselves) while the pool is short. True if it preempted."""
        memory, phases, preempted = self.memory, self.phases, False
        while (i := memory.next_due(self.rounds.now, phases.decoding)) >= 0:
            needed = self.fed(i)
            while not memory.take(i, needed, now):
                # A request swapping back in holds blocks too: it can go out again.
                among = [j for j in phases.running if phases.of[j] in RUNNING]
                if self.policy.preemptive_priority:  # never push out a better class: it would push back
                    among = [j for j in among if self.requests[j].priority >= self.requests[i].priority]
                victim = self.victim(among)
                self.preempt(victim, now)
                preempted = True
                if victim == i:
                    break
            else:  # (its fed tokens are as they were: no round ran since)
                memory.watch(i, needed, self.rounds.now)
        return preempted

    def victim(self, among: list[int]) -> int:
        """The running request to preempt: the latest arrival, the lowest priority (then the latest), or the last
        admitted. With preemptive priority always the lowest class first: a better class pushed out would push
        back at once."""
        if self.policy.victim == "lowest-priority" or self.policy.preemptive_priority:
            return max(among, key=lambda j: (self.requests[j].priority, j))
        if self.policy.victim == "newest":
            return among[-1]  # (`among` is in admission order)
        return max(among)

    def preempt(self, i: int, now: float, recompute: bool = False, requeue: bool = True) -> None:
        """Evict running request i: recompute (drop its KV and wait in the queue, at its place in the policy's
        order, to prefill prompt + generated again) or swap (its blocks go to host memory; it comes back, before
        any waiting request, without recomputing). Without `requeue` the caller says when it may come back."""
        s, memory = self.states[i], self.memory
        swap = (self.policy.preempt == "swap" and (i in self.phases.decoding or self.phases.of[i] == SWAP_IN)
                and not recompute)
        held = memory.held(i)
        table = memory.table(i) if swap and self.kv_cache else None
        self.drop_running(i, now)
        s.timeline.preemptions += 1
        if swap:
            memory.swap_out(i, table, held)
            self.phases.wait(i, SWAPPED)
            s.timeline.swapped_blocks += held
            self.recorder.event(now, "swap_out", i)
            if requeue:
                memory.wait_swapped(i)
        else:
            self.phases.wait(i, WAITING)
            s.target, s.prefilled = s.prompt + s.made, 0
            self.recorder.event(now, "preempt", i)
            if requeue:
                self.queue.push(i, self.admission_cost(i))

    def swap_in(self, i: int, now: float) -> None:
        """Swapped-out request i, whose blocks the plan took back (Memory.swap_in), takes its slot while the copy
        runs (`swap_cost`)."""
        timeline = self.states[i].timeline
        timeline.add("swapped", timeline.segments[-1].end, now, 0)
        self.phases.swap_in(i)
        self.recorder.joined(i)
        self.recorder.event(now, "swap_in", i)

    def swap_ins_done(self, now: float) -> None:
        for i in self.memory.swaps_done(now):
            timeline = self.states[i].timeline
            timeline.add("swapping", timeline.segments[-1].end, now, 0)  # it held its slot until this plan
            self.start_decoding(i)

    # -- streaming: clients out of credit ------------------------------------------------------------------
    def pause_for_clients(self, now: float) -> Sequence[int]:
        """With credits, decoders out of credit are paused from `now` on (or released); those paused. The pause
        is drawn at once: when every decoder is paused, nothing runs until a client has read enough."""
        paused = self.streams.out_of_credit(self.phases.decoding, now)
        if paused and self.policy.release_paused:
            self.release_for_clients(paused, now)
        elif paused:
            self.recorder.stall(paused, now, "paused")
            return paused
        return ()

    def release_for_clients(self, paused: list[int], now: float) -> None:
        """release_paused: a decoder out of credit gives its slot and blocks up (preempted as the policy
        preempts) and waits, out of the queue, until its client has read enough; then it queues again."""
        for i in paused:
            self.preempt(i, now, requeue=False)
            self.streams.hold(i)

    def held_back_due(self, now: float) -> None:
        """Released requests whose client has read enough go back: swapped out ones to the swap-in queue, the
        others to the waiting queue (to prefill again)."""
        for i in self.streams.due(now):
            if self.phases.of[i] == SWAPPED:
                self.memory.wait_swapped(i)
            else:
                self.queue.push(i, self.admission_cost(i))

    # -- what a plan needs to know of the options -----------------------------------------------------------
    def hand_over(self, it: Iteration) -> Iteration:
        """The plan as an executor gets it: with the block tables as they are now (sim.core.kv.Tables) and the
        swaps' block copies."""
        if self.kv_cache:
            it.blocks = self.memory.tables()
            if self.swaps:
                it.swapped_out, it.swapped_in = self.memory.hand_copies()
        return it

    def route(self, it: Iteration) -> None:
        """MoE: the iteration's tokens (prefill and decode work, not padding) routed to the experts, seeded by
        the iteration's index (sim.core.moe)."""
        if self.routes:
            it.expert_tokens = self.config.moe.route(it.prefill_tokens + it.decode_work, self.recorder.iterations)

    def graph_padding(self, batch: int) -> int:
        """Slots that pad a decode batch of `batch` up to the next captured size (0 above the largest)."""
        if not self.policy.graph_buckets:
            return 0
        bucket = next((b for b in self.policy.graph_buckets if b >= batch), None)
        return 0 if bucket is None or batch == 0 else bucket - batch

    def speculate(self, decoding) -> tuple[dict[int, int], list[int], dict[int, int]]:
        """Draft tokens the target model accepts this step, per decoder: each of k is accepted with probability
        p until the first rejection (one draw per draft from the request's own seeded stream, read ahead:
        `Draws`), never past its last token; the decoders whose step makes their last token; and the draws each
        step read (commit uses them up)."""
        k, p, states, round_now = self.policy.spec_tokens, self.policy.spec_accept, self.states, self.rounds.now
        accepted, finishing, read = {}, [], {}
        for i in decoding:
            s = states[i]
            # tokens still to make after the step's own (DecodeRounds.made: a decoder's `since` is its round)
            left = s.request.output - (s.made + round_now - s.since) - 1
            n, most = 0, min(k, left)  # (a draw past its last token would change nothing)
            draws, at = s.draws.drawn, s.draws.at
            while n < most and draws[at + n] < p:
                n += 1
            accepted[i] = n
            read[i] = n if n == most else n + 1
            if n == left:
                finishing.append(i)
        return accepted, finishing, read

    def settle(self, it: Iteration, accepted: dict[int, int]) -> None:
        """An executor that verifies the drafts itself (the real engine) replaces the plan's draws with the
        drafts each decoder accepted, before it commits `it`; the decoders whose step makes their last token are
        found again (a prefill's sampled last token stays). The simulator's executor keeps the draws. Either way
        the draws the plan read are used up at commit (`it.drawn`), so the streams go on as they were planned."""
        made, k, finishing = self.rounds.made, self.policy.spec_tokens, []
        for i in it.decoding:
            s = self.states[i]
            left, n = s.request.output - made(s) - 1, accepted.get(i, 0)
            if not 0 <= n <= min(k, left):
                raise ValueError(f"request {i}: {n} drafts accepted, of at most {min(k, left)}")
            if n == left:
                finishing.append(i)
        it.finishing = finishing + [i for i in it.finishing if i not in it.accepted]
        it.accepted = {i: accepted.get(i, 0) for i in it.decoding}

    def steps_until(self, when: float, now: float, length: float) -> int:
        """Iterations of `length` starting before `when` (from `now`)."""
        return max(1, math.ceil((when - now) / length))

    def run_cut(self) -> float | None:
        """The first time a run of identical iterations must not pass: a stop (a waiting request leaves then, a
        running one at the boundary after it), the end of a swap-in, or a released request's return (None: no
        such time)."""
        times = [t for t in (self.stops.next_stop() if self.has_stops else None,
                             self.memory.next_swap_end() if self.swaps else None,
                             self.streams.next_return() if self.credits else None) if t is not None]
        return min(times) if times else None

    def steady_limit(self, now: float, length: float, repeat: int) -> int:
        """`repeat` identical iterations of `length`, cut at the first boundary from `run_cut`."""
        if self.has_stops or self.swaps or self.credits:
            cut = self.run_cut()
            if cut is not None:
                repeat = min(repeat, self.steps_until(cut, now, length))
        return max(1, repeat)

