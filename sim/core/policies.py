"""The batching policies of the one scheduler: continuous (iteration-level) and static batching.

Continuous batching is the seed's loop, one iteration after another, each option a named step of it:
1. decode the running requests (`plan_decodes`: speculation, and stalls when the budget cannot pay for all);
2. free what finished (`commit`: a request that emitted its last token leaves the batch and frees its blocks);
3. admit within the budgets (`plan_prefills`: chunks of prefills under way, swap-ins, then the waiting queue in
   the policy's order, within the token budget, the slot limit, the KV cache and tenant quotas);
4. form the batch (`form_batch`: CUDA-graph padding, the context read, and how many identical iterations
   follow).
Before them, `before_iteration` does what happens at an iteration's start: arrivals and rejections, stops,
swap-ins that ended, aging, KV growth and preemption, and preemptive priority.
"""
from __future__ import annotations

import heapq
import math

from ..trace.trace import Trace
from .config import Config, Policy
from .iteration import Iteration
from .kv import blocks_for
from .queue import NEVER
from .request import DECODE, PREFILL
from .scheduler import Scheduler


class Continuous(Scheduler):
    """Iteration-level scheduling with the options of a real server. Prefill-first mixing does an iteration's
    prefills without any decodes (the decoders stall: prefill/decode interference made visible)."""
    # The executor's time of an iteration `ahead` decode rounds after a planned pure-decode one (sim.core.engine
    # sets it): with it, a latency model's iterations that read more context each round are merged too.
    iteration_time = None

    def __init__(self, trace: Trace, config: Config, policy: Policy, unit: str | None = None,
                 shared_pauses: bool = True):
        """`shared_pauses`: a prefill-first pause is noted once for every decoder (Recording.pause), not written
        on each decoder's timeline one by one; the same segments either way (tests hold the two together)."""
        super().__init__(trace, config, policy, unit)
        self.prefill_first = policy.mixing == "prefill-first"
        self.shared_pauses = shared_pauses

    def plan(self, now: float, max_repeat: int = 1, clock: float | None = None) -> Iteration | None:
        """The next iteration, starting at `now`, and up to `max_repeat` identical ones after it; None when
        nothing can run until the next event. `clock`: the time arrivals and stops are read on, when it is not
        `now` (the real engine's iterations)."""
        self.clock = clock
        hold = self.before_iteration(now)
        it = Iteration(blocks=self.kv.tables if self.kv is not None else None)
        self.hand_copies(it)
        if self.readers and self.decoders:
            self.pause_for_clients(it, now)
        budget, use = self.config.token_budget, {}  # use: token-work by tenant (quotas)
        if self.prefill_first:
            self.plan_prefills(it, now, budget, use, hold)
            if it.prefill:  # decodes wait for a prefill iteration: the interference chunking removes
                it.stalled = list(self.decoders)
                self.route(it)
                return it
        budget = self.plan_decodes(it, budget, use)
        if not self.prefill_first:
            budget = self.plan_prefills(it, now, budget, use, hold)
        return self.form_batch(it, now, budget, max_repeat, hold)

    def before_iteration(self, now: float) -> bool:
        """What happens at an iteration's start, before it is planned. True when it preempted for a decode's
        room: then this iteration admits and swaps in nobody (as vLLM does), since the blocks just freed are for
        the requests still running, or a victim could take them back every time."""
        if self.arrived < len(self.requests) and self.requests[self.arrived].arrival <= self.arrival_clock(now):
            self.arrive_until(now)
        if self.stops:
            self.cancel_due(now)
        if self.swap_done:
            self.swap_ins_done(now)
        if self.held:
            self.held_back_due(now)
        if self.queue.sorts:
            self.queue.refresh(now)
        hold = self.overcommit and self.grow_due(now) and bool(self.running)
        if self.policy.preemptive_priority:
            self.priority_preempt(now)
        return hold

    def plan_decodes(self, it: Iteration, budget: int, use: dict) -> int:
        """Step 1: every decoder decodes (a speculative step of k + 1 token-work), unless its client is out of
        credit (paused) or the budget cannot pay for all: then the first ones, and the rest stall. The budget
        left."""
        if not self.decoders:
            return budget
        work = 1 + self.policy.spec_tokens
        fit = budget // work
        ready = self.decoders.keys() - set(it.paused) if it.paused else self.decoders.keys()
        if it.paused:  # (in the order they started decoding)
            ready = [i for i in self.decoders if i in ready]
        if len(ready) <= fit:
            it.decoding = ready
        else:
            everyone = list(ready)
            it.decoding, it.stalled = everyone[:fit], everyone[fit:]
        it.decode_work = len(it.decoding) * work
        if self.policy.spec_tokens:
            it.accepted, it.finishing = self.speculate(it.decoding)
        elif it.stalled or it.paused:
            it.finishing = self.finishing_now({*it.stalled, *it.paused})
        else:
            it.finishing = self.finishing_now()
        if self.quotas:
            for i in it.decoding:
                tenant = self.requests[i].tenant
                use[tenant] = use.get(tenant, 0) + work
        return budget - it.decode_work

    def plan_prefills(self, it: Iteration, now: float, budget: int, use: dict, hold: bool) -> int:
        """Step 3: prefill work in the budget left: chunks of prefills under way, then swap-ins, then admissions
        from the queue (none after a preemption for room, `hold`). The budget left."""
        chunk = self.policy.chunk_size or NEVER
        for i in self.prefilling:  # (only with chunks, or after a preemption, does a prefill span iterations)
            s = self.states[i]
            take = min(s.target - s.prefilled, chunk, budget, self.quota_room(i, use))
            budget = self.prefill(it, i, take, budget, use)
        if hold:
            return budget
        while self.resume and len(self.running) < self.seq_limit:  # swapped-out requests come back first
            i = self.resume[0]
            if self.kv is not None and self.states[i].swapped_blocks > self.kv.free:
                return budget  # the head waits for room, and nothing queued passes it
            heapq.heappop(self.resume)
            self.swap_in(i, now)
        if self.resume:
            return budget
        return self.admit_waiting(it, now, budget, use)

    def admit_waiting(self, it: Iteration, now: float, budget: int, use: dict) -> int:
        """Waiting requests in the policy's order, while the budget lasts and a slot is free: each that fits the
        budget, its tenant's quota and the KV cache comes in and prefills (skipping those that do not fit,
        unless the order blocks at the head)."""
        queue, chunk, checks, position = self.queue, self.policy.chunk_size or NEVER, self.kv or self.quotas, -1
        while budget > 0 and len(self.running) < self.seq_limit and queue.count:
            rooms = [NEVER, *(self.tenant_room(t, use) for t in self.quota_tenants)] if self.quotas else None
            i, position = queue.next(budget, position, rooms)
            if i < 0:
                break
            room = rooms[queue.group[i]] if rooms else NEVER
            if checks and (self.blocks_short(self.kv_need(i)) or room < self.admission_cost(i)):
                if queue.head_of_line:
                    break
                continue
            queue.remove(i)
            self.admit(i, now)
            s = self.states[i]
            if self.kv is not None:  # (the tokens found in a prefix cache are not prefilled)
                s.prefilled = self.take_prompt_blocks(i, self.kv_need(i), now)
            budget = self.prefill(it, i, min(s.target - s.prefilled, chunk, budget, room), budget, use)
        return budget

    def prefill(self, it: Iteration, i: int, take: int, budget: int, use: dict) -> int:
        """Request i prefills `take` tokens in this iteration (its prefill completes when they are its last; a
        prefill the prefix cache held whole completes with none)."""
        s = self.states[i]
        if take <= 0 and s.prefilled < s.target:
            return budget
        it.prefill.append((i, s.prefilled, take))
        it.prefill_tokens += take
        if self.prefix is not None:  # the blocks this chunk fills can be found from now on, as in vLLM
            self.prefix.remember(i, self.block_keys(i, s.prefilled + take))
        if s.prefilled + take == s.target:
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
            if not it.decoding and not it.stalled and not self.swapping():
                return None
            if not it.stalled:
                it.graph_padding = self.graph_padding(it.decode)
        if self.reads_context:
            it.context_read = (self.decoders_context(it.decoding)
                               + sum(first + tokens for _, first, tokens in it.prefill))
        self.route(it)
        if (it.prefill or it.finishing or it.stalled or self.policy.spec_tokens or max_repeat == 1 or hold
                or self.readers and self.streaming()):
            return it  # (after a hold, the next iteration may admit again: it is not the same)
        # An arrival could come in with the budget the decodes leave, or with all of it where prefills go first.
        it.repeat = self.steady(now, it, self.config.token_budget if self.prefill_first else budget, max_repeat)
        return it

    def steady(self, now: float, it: Iteration, budget: int, max_repeat: int) -> int:
        """How many iterations, from this pure-decode one, stay identical: until a request finishes or needs
        a block, a running request's cancel lands, a swap-in ends, or an arrival could be admitted."""
        if self.config.moe.experts:
            return 1  # every iteration routes its tokens anew, so no two are alike
        if self.reads_context:  # each reads more context: alike but for their lengths
            return self.steady_reading(now, it, budget, max_repeat) if self.iteration_time else 1
        length = self.config.cost.duration(0, it.decode + it.graph_padding, 0)
        repeat = self.steady_limit(now, length, min(max_repeat, self.rounds_to_next_finish(),
                                                    self.rounds_to_next_block()))
        free = len(self.running) < self.seq_limit and not self.resume
        requests = self.requests
        while self.arrived < len(requests) and requests[self.arrived].arrival < now + repeat * length:
            i = self.arrived
            blocked = self.queue.head_of_line and len(self.queue)
            # (Whether a tenant's quota would let it in is not worked out: the run is cut, to be planned afresh.)
            if (free and not blocked and not self.never_fits(i) and self.admission_cost(i) <= budget
                    and not self.blocks_short(self.kv_need(i))
                    or self.policy.preemptive_priority and any(requests[j].priority > requests[i].priority
                                                                for j in self.running)):
                return self.steps_until(requests[i].arrival, now, length)
            self.arrive(i, now)  # it cannot get in before something else changes: it just joins the queue
        return max(1, repeat)

    def steady_reading(self, now: float, it: Iteration, budget: int, max_repeat: int) -> int:
        """`steady` under a latency model whose iterations read more context each round: the same run of
        identical pure-decode iterations but for their lengths, which the executor's cost model gives ahead
        (`iteration_time`: each decoder reads one token more a round). The run's ends are added up as the
        executor adds them one iteration at a time (Iteration.ends), and it is cut where an event is due (a stop,
        a swap-in's end, a released request's return, an arrival that could get in): before the first iteration
        that starts at or after it, whose plan would see it."""
        repeat = min(max_repeat, self.rounds_to_next_finish(), self.rounds_to_next_block())
        due = [t for t in (self.stops.next_stop() if self.stops else None, self.swap_done[0][0] if self.swap_done
                           else None, self.held[0][0] if self.held else None) if t is not None]
        cut = min(due) if due else None
        free = len(self.running) < self.seq_limit and not self.resume
        ends = [now + self.iteration_time(it, 0)]
        while len(ends) < repeat and (cut is None or ends[-1] < cut):
            if self.admissible_arrival(now, ends[-1], budget, free):  # by the next one's start: it sees it
                break
            ends.append(ends[-1] + self.iteration_time(it, len(ends)))
        else:  # arrivals during the last iteration just queue (or one that could get in waits for the run's end)
            self.admissible_arrival(now, ends[-1], budget, free, during=True)
        if len(ends) > 1:
            it.ends = tuple(ends)
        return len(ends)

    def admissible_arrival(self, now: float, until: float, budget: int, free: bool, during: bool = False) -> bool:
        """Whether a request arriving by `until` (before it, `during` an iteration that ends then) could be admitted
        with `budget` (or push a lower class out); those that could not just join the queue (`steady`'s test)."""
        requests = self.requests
        while self.arrived < len(requests) and (requests[self.arrived].arrival < until if during
                                                else requests[self.arrived].arrival <= until):
            i = self.arrived
            blocked = self.queue.head_of_line and len(self.queue)
            if (free and not blocked and not self.never_fits(i) and self.admission_cost(i) <= budget
                    and not self.blocks_short(self.kv_need(i))
                    or self.policy.preemptive_priority and any(requests[j].priority > requests[i].priority
                                                                for j in self.running)):
                return True
            self.arrive(i, now)  # it cannot get in before something else changes: it just joins the queue
        return False

    def commit(self, it: Iteration, start: float, end: float) -> None:
        """Record the iteration(s) that ran in [start, end) and move every request on."""
        self.record_step(it, start, end)
        self.copies_made(it)
        if self.readers:  # (before anybody starts decoding: `it.decoding` may be a view of the decoders)
            self.stream_tokens(it, end)
        self.commit_decodes(it, start, end)
        if self.policy.chunk_size:  # prefills under way that got no chunk wait in their slot
            chunked = {i for i, _, _ in it.prefill}
            for i in self.prefilling:
                if i not in chunked:
                    self.timelines[i].add("stalled", start, end, 0)
        self.commit_prefill(it, start, end)
        for i in it.finishing:  # step 2: what finished leaves the batch and frees its blocks
            self.finish(i, end)
            self.exit(i)
            if self.kv is not None:
                self.free_blocks(i, end)
        self.iterations += it.repeat

    # -- the options' own steps -------------------------------------------------------------------------------
    def quota_room(self, i: int, use: dict) -> int:
        """Token-work request i's tenant may still use this iteration (quotas bind only with others running)."""
        return self.tenant_room(self.requests[i].tenant, use) if self.quotas else NEVER

    def tenant_room(self, tenant: str, use: dict) -> int:
        share = self.quotas.get(tenant)
        if share is None or not self.running:
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
        requests, states, priority = self.requests, self.states, self.requests[i].priority
        lower = sorted((j for j in self.running if requests[j].priority > priority
                        and states[j].phase in (PREFILL, DECODE) and self.queue.ahead(i, j, now)),
                       key=lambda j: (requests[j].priority, j), reverse=True)
        need = blocks_for(self.kv_need(i), self.kv.block_size) if self.kv is not None else 0
        free, slots, victims = self.kv.free if self.kv is not None else 0, len(self.running), []
        while slots >= self.seq_limit or need > free:
            if not lower:
                return
            j = lower.pop(0)
            victims.append(j)
            slots -= 1
            free += self.kv.held(j) if self.kv is not None else 0
        # The token budget left by the work still running (decodes, prefills under way) must take the head too,
        # and so must its tenant's quota: else it could not come in this iteration, and a victim might take its
        # place back at once, every iteration.
        chunk, kept = self.policy.chunk_size or NEVER, [j for j in self.running if j not in victims]
        work = {j: 1 + self.policy.spec_tokens if states[j].phase == DECODE
                else min(states[j].target - states[j].prefilled, chunk) if states[j].phase == PREFILL else 0
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


class Static(Scheduler):
    """Static batching: a batch of waiting requests (up to the slot limit, and the KV room) is formed only
    when the last one has finished; prompts are padded to the longest and prefilled together, spread over as
    many ticks as the token budget needs; then every member holds its slot, as padding once done, until the
    longest finishes. A cancelled member stops but, like a finished one, its slot stays padding."""

    def __init__(self, trace: Trace, config: Config, policy: Policy, unit: str | None = None):
        super().__init__(trace, config, policy, unit)
        self.batch: list[int] = []
        self.next_prefill = 0  # position in the batch of the prompt being prefilled
        self.prefilled_now = 0  # tokens of that prompt already prefilled
        self.padding_left = 0  # padded prompt positions not yet prefilled
        self.idle: dict[int, tuple[float, int]] = {}  # done members: (when, iterations then)

    def plan(self, now: float, max_repeat: int = 1, clock: float | None = None) -> Iteration | None:
        self.clock = clock
        self.arrive_until(now)
        self.cancel_due(now)
        if self.batch and len(self.idle) == len(self.batch):  # its last members were cancelled
            self.release(now)
        if not self.batch and not self.form_batch(now):
            return None
        if self.next_prefill < len(self.batch) or self.padding_left:
            return self.plan_prefill()
        it = Iteration(decoding=list(self.decoders), decode_work=len(self.decoders), padding=len(self.idle),
                       finishing=self.finishing_now(), graph_padding=self.graph_padding(len(self.batch)),
                       blocks=self.kv.tables if self.kv is not None else None)
        if self.config.moe.experts:  # every iteration routes anew: none repeats
            self.route(it)
        elif not it.finishing and self.config.cost.kind != "profile":  # (a profile's decodes grow with the context)
            length = self.config.cost.duration(0, len(self.batch) + it.graph_padding, 0)
            it.repeat = self.steady_limit(now, length, min(max_repeat, self.rounds_to_next_finish()))
        return it

    def form_batch(self, now: float) -> bool:
        """The next batch: waiting requests in the policy's order while a slot is free and the KV cache can
        reserve all each will hold."""
        if self.queue.sorts:
            self.queue.refresh(now)
        position = -1
        while len(self.batch) < self.seq_limit:
            i, position = self.queue.next(NEVER - 1, position)
            if i < 0:
                break
            need = self.states[i].peak_kv
            if self.blocks_short(need):
                break  # the batch is as large as the KV cache allows
            self.queue.remove(i)
            self.admit(i, now)
            self.take_blocks(i, need, now)
            self.batch.append(i)
        if not self.batch:
            return False
        prompts = [self.requests[i].prompt for i in self.batch]
        self.next_prefill, self.prefilled_now = 0, 0
        self.padding_left = max(prompts) * len(prompts) - sum(prompts)
        return True

    def plan_prefill(self) -> Iteration:
        """The next tick of the padded batch prefill: real prompt tokens first, padding positions after.
        Every member is listed, with the tokens it gets (maybe 0): it is in the batch prefill throughout."""
        budget, tokens = self.config.token_budget, dict.fromkeys(self.batch, 0)
        first = {i: 0 for i in self.batch}
        while budget and self.next_prefill < len(self.batch):
            i = self.batch[self.next_prefill]
            take = min(self.requests[i].prompt - self.prefilled_now, budget)
            first[i] = self.prefilled_now if not tokens[i] else first[i]
            tokens[i] += take
            budget -= take
            self.prefilled_now += take
            if self.prefilled_now == self.requests[i].prompt:
                self.next_prefill, self.prefilled_now = self.next_prefill + 1, 0
        padding = min(self.padding_left, budget)
        self.padding_left -= padding
        member = {i for i in self.batch if self.states[i].phase == PREFILL}  # a cancelled member's prompt is
        gone = sum(n for i, n in tokens.items() if i not in member)  # still computed in the padded batch: padding
        prefill = [(i, first[i], n) for i, n in tokens.items() if i in member]
        it = Iteration(prefill=prefill, padding=padding + gone, prefill_tokens=sum(n for _, _, n in prefill),
                       blocks=self.kv.tables if self.kv is not None else None)
        if self.next_prefill == len(self.batch) and not self.padding_left:
            it.prefill_done = [i for i in self.batch if i in member]
            if self.prefill_emits:
                it.prefill_emits = list(it.prefill_done)
                it.finishing = [i for i in it.prefill_done if self.requests[i].output == 1]
        self.route(it)
        return it

    def give_back_slot(self, i: int, now: float) -> None:
        """A cancelled member stops computing; its slot stays in the batch as padding."""
        self.idle[i] = (now, self.iterations)

    def commit(self, it: Iteration, start: float, end: float) -> None:
        self.record_step(it, start, end)
        self.commit_decodes(it, start, end)
        self.commit_prefill(it, start, end)
        self.iterations += it.repeat
        for i in it.finishing:
            self.finish(i, end)
            self.idle[i] = (end, self.iterations)
        if self.batch and len(self.idle) == len(self.batch):
            self.release(end)

    def release(self, end: float) -> None:
        """The batch is done: every member's idle slot was padding until now; slots and blocks go back."""
        for i, (since, iterations) in self.idle.items():
            self.timelines[i].add("padding", since, end, self.iterations - iterations)
            self.free_blocks(i, end)
        self.idle.clear()
        for i in self.batch:
            self.exit(i)
        self.batch = []


def make_scheduler(policy: Policy | str, trace: Trace, config: Config, unit: str | None = None,
                   fast: bool = True) -> Scheduler:
    """The scheduler of `policy`; `unit`: the executor's time unit when it is not its cost model's. The seed's
    loop with no option on takes the quicker path of sim.core.plain, and prefill-first pauses are shared (unless
    `fast` is off; tests hold the two to the same schedules)."""
    policy = Policy(batching=policy) if isinstance(policy, str) else policy
    if policy.batching == "static":
        return Static(trace, config, policy, unit)
    if policy.preset == "nano-vllm":
        from .presets import NanoVllm  # (it extends Continuous: imported when chosen)

        return NanoVllm(trace, config, policy, unit, shared_pauses=fast)
    if policy.preset:
        from .presets import expand

        scheduler = make_scheduler(expand(policy, config), trace, config, unit, fast)
        scheduler.schedule.options = policy  # (what was asked for: the preset)
        return scheduler
    if (fast and policy == Policy() and not config.kv_blocks and config.cost.kind == "ticks" and not config.moe.experts
            and all(r.cancel_at is None and r.disconnect_at is None for r in trace.requests)):
        from .plain import PlainContinuous  # (it extends Continuous: imported when chosen)

        return PlainContinuous(trace, config, policy, unit)
    return Continuous(trace, config, policy, unit, shared_pauses=fast)
