"""Continuous (iteration-level) batching: the seed's loop, one iteration after another.

Before each plan the executor calls `advance`, which does what happens at the iteration's start (`at_start`:
arrivals and rejections, stops, swap-ins that ended, aging, KV growth and preemption, preemptive priority, decoders
paused for their clients: time's events, which move requests between phases on their own). Then `plan` makes the
seed's four steps, one function each:
1. decode the running requests (`plan_decodes`: speculation, and stalls when the budget cannot pay for all);
2. free what finished (`commit`, once the iteration ran: a request that emitted its last token leaves the batch
   and frees its blocks);
3. admit within the budgets (`plan_prefills`: chunks of prefills under way, swap-ins, then `admit_waiting`, the
   waiting queue in the policy's order, within the token budget, the slot limit, the KV cache and tenant quotas;
   an admitted request's blocks are taken as it is planned, as in vLLM's schedule(), and it takes its slot at
   commit: `Iteration.admitted`);
4. form the batch (`form_batch`: CUDA-graph padding, the context read, and how many identical iterations
   follow, `steady`, which changes nothing: a run ends with the iteration in which its next decoders finish).
Steps 1 and 4 only read (the decoders due to finish are found by `advance`, speculation's draws are made ahead
and used up at commit); step 3 changes only the KV side (sim.core.iteration says what).
An option that is off costs the loop nothing: each is a check made once, at construction.
"""
from __future__ import annotations

import math

from ..trace.trace import Trace
from .config import Config, Policy
from .iteration import Iteration
from .kv import blocks_for
from .queue import NEVER
from .request import DECODE, PREFILL, SWAP_IN, WAITING
from .scheduler import Scheduler


class Continuous(Scheduler):
    """Iteration-level scheduling with the options of a real server. Prefill-first mixing does an iteration's
    prefills without any decodes (the decoders stall: prefill/decode interference made visible)."""
    # The executor's time of a pure-decode iteration `ahead` decode rounds after a planned one (`time_ahead`).
    iteration_time = None
    # KV blocks taken chunk by chunk, as each chunk of a prefill is planned (vLLM's allocate_slots), not the whole
    # prompt's at admission; on with `kv_admission` chunk, and in vLLM's own scheduler (sim.core.presets.VllmV1).
    chunk_blocks = False

    def __init__(self, trace: Trace, config: Config, policy: Policy, unit: str | None = None,
                 replica: str = ""):
        super().__init__(trace, config, policy, unit, replica)
        self.prefill_first = policy.mixing == "prefill-first"
        self.decode_cost = 1 + policy.spec_tokens  # token-work of one decoder's step
        self.chunk = policy.chunk_size or NEVER
        self.by_chunk = self.kv_cache and (self.chunk_blocks or policy.kv_admission == "chunk")
        self.first_chunk = policy.kv_admission == "chunk"  # (else a whole prefill's blocks must be free to admit)
        # what the pure-decode runs that `steady` merges must not pass: speculation's draws, per-iteration
        # routing or context reads (no two iterations alike, unless the executor times them: `time_ahead`)
        self.sorts, self.priority_preempts = self.queue.sorts, policy.preemptive_priority
        self.merges = not (policy.spec_tokens or config.moe.experts or config.cost.reads_context)
        # nothing but arrivals happens at an iteration's start (at_start)
        self.starts_plainly = not (self.has_stops or self.swaps or self.credits or self.sorts or self.overcommit
                                   or self.priority_preempts)
        # What the iteration's start left for its plan (at_start): whether it preempted for a decode's room, and the
        # decoders paused for their client.
        self.hold, self.paused = False, ()

    def time_ahead(self, iteration_time) -> None:
        """The executor gives the time of the pure-decode iteration `ahead` rounds after a planned one,
        `iteration_time(it)(ahead)` (each decoder reads `ahead` tokens more): then a latency model's iterations,
        which read more context each round, merge too, each with its own length (`steady_reading`)."""
        self.iteration_time = iteration_time
        self.merges = not (self.policy.spec_tokens or self.config.moe.experts)

    def plan(self, now: float, max_repeat: int = 1) -> Iteration | None:
        """The next iteration, starting at `now` (after `advance(now)`), and up to `max_repeat` identical ones
        after it; None when nothing can run until the next event."""
        self.planning(now)
        hold, paused = self.hold, self.paused
        it = Iteration(paused=paused) if paused else Iteration()
        budget, use = self.config.token_budget, {}  # use: token-work by tenant (quotas)
        if self.prefill_first:
            _, hold = self.plan_prefills(it, now, budget, use, hold)
            if it.prefill:  # decodes wait for a prefill iteration: the interference chunking removes
                it.stalled = list(self.phases.decoding)
                self.route(it)
                return self.hand_over(it)
        budget = self.plan_decodes(it, budget, use)
        if not self.prefill_first:
            budget, hold = self.plan_prefills(it, now, budget, use, hold)
        return self.form_batch(it, now, budget, max_repeat, hold)

    def at_start(self, now: float) -> None:
        """What happens at an iteration's start, before it is planned; it leaves the plan whether it preempted for
        a decode's room (`hold`) and the decoders paused for their client (`paused`). After a preemption for room
        the iteration admits and swaps in nobody (as vLLM does), since the blocks just freed are for the requests
        still running, or a victim could take them back every time."""
        if self.arrived < self.routed and self.requests[self.arrived].arrival <= (
                now if self.clock is None else self.clock):
            self.arrive_until(now)
        if self.starts_plainly:
            return
        if self.has_stops:
            self.cancel_due(now)
        if self.swaps:
            self.swap_ins_done(now)
        if self.credits:
            self.held_back_due(now)
        if self.sorts:
            self.queue.refresh(now)
        self.hold = self.overcommit and self.grow_due(now) and bool(self.phases.running)
        if self.priority_preempts:
            self.priority_preempt(now)
        self.paused = self.pause_for_clients(now) if self.credits and self.phases.decoding else ()
        if self.overcommit:  # (after every preemption of the start)
            self.memory.drop_stale(self.phases.decoding)

    def plan_decodes(self, it: Iteration, budget: int, use: dict) -> int:
        """Step 1: every decoder decodes (a speculative step of k + 1 token-work), unless its client is out of
        credit (paused) or the budget cannot pay for all: then the first ones, and the rest stall. The budget
        left."""
        decoding = self.phases.decoding
        if not decoding:
            return budget
        work = self.decode_cost
        if it.paused:  # (in the order they started decoding)
            paused = set(it.paused)
            ready = [i for i in decoding if i not in paused]
        else:
            ready = list(decoding)
        fit = budget // work
        if len(ready) <= fit:
            it.decoding = ready
        else:
            it.decoding, it.stalled = ready[:fit], ready[fit:]
        it.decode_work = len(it.decoding) * work
        if work > 1:
            it.accepted, it.finishing, it.drawn = self.speculate(it.decoding)
        elif it.stalled or it.paused:
            it.finishing = self.finishing_now({*it.stalled, *it.paused})
        elif self.due:  # (else no decoder's last round has come)
            it.finishing = self.finishing_now()
        if self.quotas:
            for i in it.decoding:
                tenant = self.requests[i].tenant
                use[tenant] = use.get(tenant, 0) + work
        return budget - it.decode_work

    def plan_prefills(self, it: Iteration, now: float, budget: int, use: dict, hold: bool) -> tuple[int, bool]:
        """Step 3: prefill work in the budget left: chunks of prefills under way, then swap-ins, then admissions
        from the queue (none after a preemption for room, `hold`). The budget left, and whether it held (a
        chunk's blocks, taken as it is planned, may preempt too)."""
        phases = self.phases
        # (only with chunks, or after a preemption, does a prefill span iterations)
        for i in list(phases.prefilling) if self.by_chunk else phases.prefilling:
            if phases.of[i] != PREFILL:  # (preempted for an earlier chunk's blocks)
                continue
            s = self.states[i]
            take = min(s.target - s.prefilled, self.chunk, budget, self.quota_room(i, use))
            if self.by_chunk and take > 0:
                kept, preempted = self.chunk_room(it, i, s.prefilled + take, now)
                hold = hold or preempted
                if not kept:
                    continue
            budget = self.prefill(it, i, s.prefilled, take, budget, use)
        if hold:
            return budget, hold
        if self.swaps:  # swapped-out requests come back first (their blocks taken now, their slots at commit)
            memory, back = self.memory, []
            while len(phases.running) + len(back) < self.seq_limit and (i := memory.next_swap_in()) >= 0:
                memory.swap_in(i, now, self.config.swap_cost)
                back.append(i)
            if back:
                it.swapping_in = back
            if memory.waiting_swapped():
                return budget, hold  # the next waits for room (or a slot), and nothing queued passes it
        return self.admit_waiting(it, now, budget, use), hold

    def chunk_room(self, it: Iteration, i: int, tokens: int, now: float) -> tuple[bool, bool]:
        """Blocks taken chunk by chunk: prefill i's blocks grow to hold `tokens` before its chunk runs; while the
        pool is short the newest running request not yet planned in `it` is preempted (recomputed), or i itself
        when none is left, as vLLM's schedule() pops its running list. Whether i keeps its place, and whether
        anybody was preempted (then the plan admits nobody: vLLM's `if not preempted_reqs`)."""
        memory, phases, preempted = self.memory, self.phases, False
        while not memory.take(i, tokens, now):
            planned = {*it.decoding, *(j for j, _, _ in it.prefill)}
            among = [j for j in phases.running if j == i or j not in planned and phases.of[j] in (PREFILL, DECODE)]
            victim = self.victim(among)
            self.preempt(victim, now, recompute=True)
            if victim == i:
                return False, True
            preempted = True
        return True, preempted

    def admit_waiting(self, it: Iteration, now: float, budget: int, use: dict) -> int:
        """Waiting requests in the policy's order, while the budget lasts and a slot is free: each that fits the
        budget, its tenant's quota and the KV cache is brought in (`it.admitted`: it takes its slot at commit)
        and prefills, its blocks taken now (skipping those that do not fit, unless the order blocks at the
        head)."""
        queue, memory, states, admitted = self.queue, self.memory, self.states, []
        slots = min(self.seq_limit - len(self.phases.running) - len(it.swapping_in), queue.count)
        checks, position = self.kv_cache or self.quotas, -1
        while budget > 0 and len(admitted) < slots:
            rooms = [NEVER, *(self.tenant_room(t, use) for t in self.quota_tenants)] if self.quotas else None
            i, position = queue.next(budget, position, rooms)
            if i < 0:
                break
            room = rooms[queue.group[i]] if rooms else NEVER
            if checks and (self.kv_short(i, min(budget, room)) or room < self.admission_cost(i)):
                if queue.head_of_line:
                    break
                continue
            admitted.append(i)
            s = states[i]
            first = s.prefilled
            if self.kv_cache:  # (the tokens found in a prefix cache are not prefilled)
                first = max(first, memory.take_prompt(i, None if self.by_chunk else self.kv_need(i), now))
            take = min(s.target - first, self.chunk, budget, room)
            if self.by_chunk:  # the blocks of its first chunk (past what the prefix cache holds)
                memory.take(i, first + take, now)
            budget = self.prefill(it, i, first, take, budget, use)
        if admitted:
            it.admitted = admitted
        return budget

    def kv_short(self, i: int, budget: int) -> bool:
        """Whether waiting request i cannot come in for want of free KV blocks: those of all it takes at
        admission (kv_need). With blocks taken chunk by chunk (vLLM's rule), the blocks its whole prefill will
        take (vLLM's scheduler_reserve_full_isl, on by default), or with `kv_admission` chunk only its first
        chunk's in `budget`, either way less the cached blocks it would share that another request holds."""
        memory = self.memory
        if not self.by_chunk:
            return memory.short(self.kv_need(i))
        s = self.states[i]
        hit, held = memory.hit_held(i)
        tokens = hit + min(s.target - hit, self.chunk, budget) if self.first_chunk else s.target
        return blocks_for(tokens, self.config.block_size) - held > memory.free_count

    def prefill(self, it: Iteration, i: int, first: int, take: int, budget: int, use: dict) -> int:
        """Request i prefills `take` tokens from position `first` in this iteration (its prefill completes when
        they are its last; a prefill the prefix cache held whole completes with none)."""
        s = self.states[i]
        if take <= 0 and first < s.target:
            return budget
        it.prefill.append((i, first, take))
        it.prefill_tokens += take
        if self.caches_prefixes and self.memory.shares(i):  # the blocks this chunk fills can be found from now on,
            # as in vLLM (a request's own blocks, which only it finds after a preemption, are remembered as it frees
            # them: Memory.free)
            self.memory.remember(i, first + take)
        if first + take == s.target:
            it.prefill_done.append(i)
            if self.prefill_emits:
                it.prefill_emits = [*it.prefill_emits, i]
                if s.made + 1 >= s.output:
                    it.finishing.append(i)
        if self.quotas:
            use[s.request.tenant] = use.get(s.request.tenant, 0) + take
        return budget - take

    def form_batch(self, it: Iteration, now: float, budget: int, max_repeat: int, hold: bool) -> Iteration | None:
        """Step 4: the batch as it runs: CUDA-graph padding of a decode-only batch, the context its attention
        reads, and how many identical iterations follow. None when nothing runs."""
        if not it.prefill:
            if not it.decoding and not it.stalled and not it.swapping_in and not self.swapping():
                return None
            if not it.stalled and self.policy.graph_buckets:
                it.graph_padding = self.graph_padding(it.decode)
        if self.reads_context:
            it.context_read = (self.decoders_context(it.decoding)
                               + sum(first + tokens for _, first, tokens in it.prefill))
        if self.routes:
            self.route(it)
        if not (it.prefill or it.finishing or it.stalled or not self.merges or max_repeat == 1 or hold
                or self.credits and self.streams.streaming(self.phases.decoding)):
            # (after a hold, the next iteration may admit again: it is not the same)
            # An arrival could come in with the budget the decodes leave, or with all of it where prefills go first.
            it.repeat = self.steady(now, it, self.config.token_budget if self.prefill_first else budget, max_repeat)
        return self.hand_over(it) if self.kv_cache else it

    def steady(self, now: float, it: Iteration, budget: int, max_repeat: int) -> int:
        """How many iterations, from this pure-decode one, stay identical: until a request finishes or needs
        a block, a running request's cancel lands, a swap-in ends, or an arrival could be admitted. It changes
        nothing: the arrivals before then that could not get in arrive at the next plan. The run may end with the
        iteration in which the next decoders finish (`it.finishing`: they leave at its commit)."""
        finish = self.rounds_to_next_finish()
        last = self.last_of_run(finish)
        repeat = min(max_repeat, finish + 1 if last else finish)
        if self.overcommit:
            repeat = min(repeat, self.memory.rounds_to_next_block(self.rounds.now, self.phases.decoding))
        if self.reads_context:
            repeat = self.steady_reading(now, it, budget, repeat)
        else:
            length = self.config.cost.duration(0, it.decode + it.graph_padding, 0)
            repeat = self.steady_limit(now, length, repeat)
            when = self.admissible_arrivals(budget, len(it.swapping_in))(now + repeat * length, True)
            repeat = max(1, repeat) if when is None else self.steps_until(when, now, length)
        if last and repeat == finish + 1:
            it.finishing = last
        return repeat

    def steady_reading(self, now: float, it: Iteration, budget: int, repeat: int) -> int:
        """`steady` under a latency model whose iterations read more context each round: up to `repeat`
        iterations alike but for their lengths, which the executor's cost model gives (`iteration_time`). Their
        ends are added up as the executor adds them one iteration at a time (Iteration.ends), and the run is cut
        before the first iteration that starts at or after an event (a stop, a swap-in's end, a released
        request's return, an arrival that could get in), whose plan would see it."""
        cut = self.run_cut()
        cut = math.inf if cut is None else cut
        admissible, time = self.admissible_arrivals(budget, len(it.swapping_in)), self.iteration_time(it)
        ends = [now + time(0)]
        while len(ends) < repeat and ends[-1] < cut and admissible(ends[-1], False) is None:
            ends.append(ends[-1] + time(len(ends)))
        if len(ends) > 1:
            it.ends = tuple(ends)
        return len(ends)

    def admissible_arrivals(self, budget: int, coming: int = 0):
        """A look ahead at the arrivals to come, for `steady`: called with a time (`before` it, or by it), it says
        when the first of them that could be admitted with `budget`, or push a lower class out, arrives (None:
        none by then). Each call goes on from where the last stopped, and it changes nothing: the arrivals that
        could not get in join the queue at the next plan. (Whether a tenant's quota would let one in is not
        worked out: the run is cut, to be planned afresh.) `coming`: the swapped-out requests the plan brings
        back, which hold slots from its commit on."""
        running, queue, requests, phase = self.phases.running, self.queue, self.requests, self.phases.of
        free = len(running) + coming < self.seq_limit and not (self.swaps and self.memory.waiting_swapped())
        j, joined = self.arrived, 0  # joined: of the arrivals looked at, those that would join the queue
        states, routed = self.states, self.routed

        def first(until: float, before: bool) -> float | None:
            nonlocal j, joined
            while j < len(requests) and (requests[j].arrival < until if before else requests[j].arrival <= until):
                if j >= routed:  # not placed yet: if it comes here, the executor cuts the run then (Runner.offer)
                    return None
                if states[j] is None:  # placed on another replica
                    j += 1
                    continue
                fits = not (self.kv_cache and self.never_fits(j))
                # (under lpm an arrival with a cached prefix may sort ahead of the head that blocks)
                blocked = queue.head_of_line and (queue.count or joined) and not (
                    queue.prefix_found is not None and queue.prefix_found(j))
                if (free and not blocked and fits and self.admission_cost(j) <= budget
                        and not (self.kv_cache and self.kv_short(j, budget))
                        or self.policy.preemptive_priority and any(requests[k].priority > requests[j].priority
                                                                    for k in running)):
                    return requests[j].arrival
                if fits and phase[j] == WAITING:  # (not stopped before it arrived)
                    joined += 1
                j += 1
            return None
        return first

    def commit(self, it: Iteration, start: float, end: float) -> None:
        """Record the iteration(s) that ran in [start, end) and move every request on."""
        if it.admitted or it.swapping_in:  # step 3's swap-ins and admissions take their slots
            self.bring_in(it, start)
        self.record_step(it, start, end)
        if it.swapped_out or it.swapped_in:
            self.memory.copies_made()
        if self.credits:
            self.streams.emit(it, end)
        if it.decoding or it.stalled or it.paused:
            self.commit_decodes(it, start, end)
        if self.chunk < NEVER:  # prefills under way that got no chunk wait in their slot
            chunked = {i for i, _, _ in it.prefill}
            for i in self.phases.prefilling:
                if i not in chunked:
                    self.states[i].timeline.add("stalled", start, end, 0)
        if it.prefill:
            self.commit_prefill(it, start, end)
        for i in it.finishing:  # step 2: what finished leaves the batch and frees its blocks
            self.finish(i, end, leaves=True)
            if self.kv_cache:
                self.free_blocks(i, end)

    # -- the options' own steps -------------------------------------------------------------------------------
    def swapping(self) -> bool:
        """Whether a request is swapping back in (it holds a slot, and the run goes on while nothing else does)."""
        return self.swaps and any(self.phases.of[i] == SWAP_IN for i in self.phases.running)

    def quota_room(self, i: int, use: dict) -> int:
        """Token-work request i's tenant may still use this iteration (quotas bind only with others running, or
        brought in by this plan: `use`, the work planned so far, by tenant)."""
        return self.tenant_room(self.requests[i].tenant, use) if self.quotas else NEVER

    def tenant_room(self, tenant: str, use: dict) -> int:
        share = self.quotas.get(tenant)
        if share is None or not (self.phases.running or use):
            return NEVER
        return max(0, math.ceil(share * self.config.token_budget) - use.get(tenant, 0))

    def kv_need(self, i: int) -> int:
        """Tokens of KV an admission takes: all it will ever hold (reserve), or the prefill (overcommit)."""
        s = self.states[i]
        return s.peak_kv if self.policy.kv_admission == "reserve" else s.target

    def priority_preempt(self, now: float) -> None:
        """The head of the queue pushes out running requests of a lower priority class when it cannot get a
        slot or KV room (always by recompute). Only requests it is ahead of in the queue's own order can be
        pushed out, so a victim queues behind it; and only when the victims together make the room it needs
        and it then fits the token budget too (else nobody is pushed out for nothing)."""
        i, _ = self.queue.next(NEVER - 1)
        if i < 0:
            return
        requests, states, phase, priority = self.requests, self.states, self.phases.of, self.requests[i].priority
        running = self.phases.running
        lower = sorted((j for j in running if requests[j].priority > priority
                        and phase[j] in (PREFILL, DECODE) and self.queue.ahead(i, j, now)),
                       key=lambda j: (requests[j].priority, j), reverse=True)
        need = blocks_for(self.kv_need(i), self.config.block_size) if self.kv_cache else 0
        free, slots, victims = self.memory.free_count, len(running), []
        while slots >= self.seq_limit or need > free:
            if not lower:
                return
            j = lower.pop(0)
            victims.append(j)
            slots -= 1
            free += self.memory.held(j)
        # The token budget left by the work still running (decodes, prefills under way) must take the head too,
        # and so must its tenant's quota: else it could not come in this iteration, and a victim might take its
        # place back at once, every iteration.
        kept = [j for j in running if j not in victims]
        work = {j: self.decode_cost if phase[j] == DECODE
                else min(states[j].target - states[j].prefilled, self.chunk) if phase[j] == PREFILL else 0
                for j in kept}
        cost, tenant = self.admission_cost(i), requests[i].tenant
        if cost > self.config.token_budget - sum(work.values()):
            return
        share = self.quotas.get(tenant)
        if share is not None and kept and cost > math.ceil(share * self.config.token_budget) - sum(
                n for j, n in work.items() if requests[j].tenant == tenant):
            return
        for j in victims:
            self.preempt(j, now, recompute=True)
