"""The batching policies of the one scheduler: continuous (iteration-level) and static batching."""
from __future__ import annotations

import heapq
import math

from ..trace.trace import Trace
from .config import Config, Policy
from .kv import blocks_for
from .queue import NEVER
from .schedule import Segment, iteration_length
from .scheduler import DECODE, DONE, PREFILL, SWAP_IN, Iteration, Scheduler


class Continuous(Scheduler):
    """The seed's loop, with the options of a real server. Each iteration: running decoders decode one token
    (or a speculative step), then the token budget left goes to prefills: chunks of prefills under way,
    swapped-out requests coming back, then waiting requests in the policy's order (skipping those that do not
    fit, unless the order blocks at the head), while the batch has a slot and the KV cache has room. A request
    that emits its last token leaves the batch after the iteration. Prefill-first mixing does an iteration's
    prefills without any decodes."""

    def __init__(self, trace: Trace, config: Config, policy: Policy, quick: bool = True):
        super().__init__(trace, config, policy)
        # The seed's loop with none of the options on takes a quicker path through the same steps (one plan
        # and one commit per event with nothing to check), unless `quick` is off; tests hold the two paths to
        # the same schedules.
        self.plain = (quick and policy == Policy(batching="continuous") and not self.cancels and self.kv is None
                      and config.cost.kind == "ticks")
        if self.plain:  # plan and commit go straight to the quick paths (no check per call)
            self.plan, self.commit = self._plan_plain, self._commit_plain
        self.preempts = self.kv is not None or policy.preemptive_priority  # recomputes may outgrow the budget

    def plan(self, now: float, max_repeat: int = 1) -> Iteration | None:
        clock = now if self.clock is None else self.clock
        if self.arrived < len(self.requests) and self.requests[self.arrived].arrival <= clock:
            self.arrive_until(clock)
        if self.cancels and self.cancels[0][0] <= clock:
            self.cancel_due(now)
        if self.swap_done:
            self._swap_ins_done(now)
        if self.queue.aging is not None:
            self.queue.refresh(now)
        grown = False
        if self.overcommit:
            events = len(self.schedule.events)
            self.grow_due(now)
            grown = len(self.schedule.events) > events
        if self.policy.preemptive_priority:
            self._priority_preempt(now)
        # After preempting for a decode's room, this iteration admits and swaps in nobody (as vLLM does): the
        # blocks just freed are for the requests still running, or a victim could take them back every time.
        hold = grown and bool(self.running)
        budget, use = self.config.token_budget, {}
        it = Iteration()
        if self.prefill_first:
            budget = self._plan_prefill(it, now, budget, use, hold)
            if it.prefill:  # decodes wait for a prefill iteration: the interference chunking removes
                it.stalled = list(self.decoders)
                return it
        decoders = self.decoders
        if decoders:
            if len(decoders) <= budget and not self.rng and not self.quotas:  # the plain round, kept quick
                it.decode = it.decode_work = len(decoders)
                budget -= it.decode
                it.finishing = self.finishing_now()
            else:
                budget = self._plan_decodes(it, budget, use)
        if not self.prefill_first:
            budget = self._plan_prefill(it, now, budget, use, hold)
        if not it.prefill:
            if not it.decode and not it.stalled and not self._swapping():
                return None
            if it.decoding is None and self.policy.graph_buckets:
                it.graph_padding = self.graph_padding(it.decode)
        if self.reads_context:
            it.context_read = self._context_read(it)
        if it.prefill or it.finishing or it.stalled or self.rng or max_repeat == 1 or hold:
            return it  # (after a hold, the next iteration may admit again: it is not the same)
        # An arrival could come in with the budget the decodes leave, or with all of it where prefills go first.
        it.repeat = self._steady(now, it, self.config.token_budget if self.prefill_first else budget, max_repeat)
        return it

    def _plan_plain(self, now: float, max_repeat: int = 1) -> Iteration | None:
        """`plan` for the seed's loop: every decoder decodes (the slot limit keeps them within the budget),
        then waiting requests whose whole prompt fits come in, in arrival order, skipping the rest."""
        requests, queue, running = self.requests, self.queue, self.running
        while self.arrived < len(requests) and requests[self.arrived].arrival <= now:
            queue.push(self.arrived, requests[self.arrived].prompt)
            self.arrived += 1
        it = Iteration()
        budget = self.config.token_budget - len(self.decoders)
        if self.decoders:
            it.decode = it.decode_work = len(self.decoders)
            it.finishing = self.finishing_now()
        timelines, phase = self.timelines, self.phase
        while budget > 0 and len(running) < self.seq_limit and queue.count:
            i = queue.pop_first(budget)
            if i < 0:
                break
            timeline = timelines[i]
            if now > timeline.arrival:
                timeline.segments.append(Segment("queued", timeline.arrival, now, 0))
            running[i] = None  # enters the batch (Scheduler.enter)
            self.version += 1
            self.changes.append(i)
            phase[i] = PREFILL
            prompt = requests[i].prompt
            it.prefill.append((i, 0, prompt))
            it.prefill_tokens += prompt
            it.prefill_done.append(i)
            if self.prefill_emits and requests[i].output == 1:
                it.finishing.append(i)
            budget -= prompt
        if it.prefill or it.finishing:
            return it
        if not it.decode:
            return None
        # Ticks until a request finishes or an arrival could come in; arrivals that could not just queue.
        repeat = min(max_repeat, self.rounds_to_next_finish())
        free = len(running) < self.seq_limit
        while self.arrived < len(requests) and requests[self.arrived].arrival < now + repeat:
            request = requests[self.arrived]
            if free and request.prompt <= budget:
                repeat = request.arrival - now
                break
            queue.push(self.arrived, request.prompt)
            self.arrived += 1
        it.repeat = max(1, repeat)
        return it

    def _commit_plain(self, it: Iteration, start: float, end: float) -> None:
        """`commit` for the seed's loop (see _plan_plain)."""
        self.schedule.add_step(start, end, it.repeat, it.prefill_tokens, it.decode, 0, len(self.running),
                               self.version, None, 0, it.decode, 0, self.changes or ())
        if self.changes:
            self.changes = []
        timelines, requests = self.timelines, self.requests
        if it.decode:
            if self.starting:  # their first decode round opens their decode segment (Scheduler.open_decodes)
                first_end = start + iteration_length(start, end, it.repeat)
                for i in self.starting:
                    self.decode_open[i] = (start, self.gen_base[i])
                    if timelines[i].first_token is None:
                        timelines[i].first_token = first_end
                self.starting.clear()
            self.decode_round += it.repeat
        for i, _, tokens in it.prefill:
            timelines[i].segments.append(Segment("prefill", start, end, tokens))
            self.prefilled[i] = tokens
        decoders, starting, heap, last_of = self.decoders, self.starting, self.last_round, self.last_of
        for i in it.prefill_done:
            if self.prefill_emits:
                self.gen_base[i] = 1
                timelines[i].prefill_emits.append(end)
                timelines[i].first_token = end
            if self.gen_base[i] < requests[i].output:  # start decoding (Scheduler.start_decoding)
                self.phase[i] = DECODE
                self.round_base[i] = self.decode_round
                decoders[i] = starting[i] = None
                last_of[i] = self.decode_round + requests[i].output - self.gen_base[i] - 1
                heapq.heappush(heap, (last_of[i], i))
        for i in it.finishing:  # finish and leave the batch (Scheduler.finish)
            timeline = timelines[i]
            opened = self.decode_open.pop(i, None)
            if opened is not None:
                made = self.gen_base[i] + self.decode_round - self.round_base[i]
                timeline.segments.append(Segment("decode", opened[0], end, made - opened[1]))
                del decoders[i]
            self.phase[i] = DONE
            timeline.completion, timeline.finish_reason = end, "finished"
            self.remaining -= 1
            del self.running[i]  # leaves the batch (Scheduler.exit)
            self.version += 1
            self.changes.append(~i)
        self.iterations += it.repeat

    def _plan_decodes(self, it: Iteration, budget: int, use: dict) -> int:
        """The decode round: every decoder, unless the budget cannot pay for all (then the first ones)."""
        work = 1 + self.policy.spec_tokens
        if len(self.decoders) > budget // work:
            everyone = list(self.decoders)
            it.decoding, it.stalled = everyone[:budget // work], everyone[budget // work:]
        decoding = self.decoders if it.decoding is None else it.decoding
        it.decode = len(decoding)
        it.decode_work = it.decode * work
        if self.policy.spec_tokens:
            it.accepted = {i: self.speculate(i) for i in decoding}
            it.finishing = [i for i, a in it.accepted.items() if self.generated(i) + a + 1 >= self.requests[i].output]
        elif it.stalled:
            stalled = set(it.stalled)
            it.finishing = [i for i in self.finishing_now() if i not in stalled]
        else:
            it.finishing = self.finishing_now()
        if self.quotas:
            for i in decoding:
                tenant = self.requests[i].tenant
                use[tenant] = use.get(tenant, 0) + work
        return budget - it.decode_work

    def _quota_room(self, i: int, use: dict) -> int:
        """Token-work request i's tenant may still use this iteration (quotas bind only with others running)."""
        share = self.quotas.get(self.requests[i].tenant)
        if share is None or not self.running:
            return NEVER
        return max(0, math.ceil(share * self.config.token_budget) - use.get(self.requests[i].tenant, 0))

    def _kv_need(self, i: int) -> int:
        """Tokens of KV an admission takes: all it will ever hold (reserve), or the prefill (overcommit)."""
        if self.policy.kv_admission == "reserve":
            return self.peak_kv(i)
        return self.target[i]

    def _plan_prefill(self, it: Iteration, now: float, budget: int, use: dict, hold: bool = False) -> int:
        """Prefill work: chunks of prefills under way, then swap-ins, then admissions from the queue (none
        when `hold`)."""
        chunk = self.policy.chunk_size or NEVER
        if self.policy.chunk_size or self.preempts:  # prefills under way (chunks, long recomputes) go on first
            for i in [j for j in self.running if self.phase[j] == PREFILL]:
                take = min(self.target[i] - self.prefilled[i], chunk, budget,
                           self._quota_room(i, use) if self.quotas else NEVER)
                budget = self._prefill(it, i, take, budget, use)
        if hold:
            return budget
        while self.resume and len(self.running) < self.seq_limit:  # swapped-out requests come back first
            i = self.resume[0]
            if self.kv is not None and self.swapped_blocks[i] > self.kv.free:
                return budget  # the head waits for room, and nothing queued passes it
            heapq.heappop(self.resume)
            self._swap_in(i, now)
        if self.resume or not self.queue.count:
            return budget
        queue, checks = self.queue, self.kv is not None or self.quotas
        if not checks and not queue.head_of_line and queue.aging is None and not self.policy.chunk_size:
            # The seed's loop, kept quick: each waiting request whose whole prompt fits comes in.
            while budget > 0 and len(self.running) < self.seq_limit:
                i = queue.pop_first(budget)
                if i < 0:
                    break
                self.admit(i, now)
                budget = self._prefill(it, i, min(self.target[i], budget), budget, use)
            return budget
        position = -1
        while budget > 0 and len(self.running) < self.seq_limit:
            i, position = queue.next(budget, position)
            if i < 0:
                break
            room = NEVER
            if checks:
                room = self._quota_room(i, use) if self.quotas else NEVER
                if self.blocks_short(self._kv_need(i)) or room < self.admission_cost(i):
                    if queue.head_of_line:
                        break
                    continue
            queue.remove(i)
            self.admit(i, now)
            if self.kv is not None:
                self.take_blocks(i, self._kv_need(i), now)
            budget = self._prefill(it, i, min(self.target[i], chunk, budget, room), budget, use)
        return budget

    def _prefill(self, it: Iteration, i: int, take: int, budget: int, use: dict) -> int:
        if take <= 0:
            return budget
        it.prefill.append((i, self.prefilled[i], take))
        it.prefill_tokens += take
        if self.prefilled[i] + take == self.target[i]:
            it.prefill_done.append(i)
            if self.prefill_emits and self.generated(i) + 1 >= self.requests[i].output:
                it.finishing.append(i)
        if self.quotas:
            tenant = self.requests[i].tenant
            use[tenant] = use.get(tenant, 0) + take
        return budget - take

    def _swap_in(self, i: int, now: float) -> None:
        """A swapped-out request takes its slot and blocks back; the copy takes `swap_cost` time."""
        timeline = self.timelines[i]
        timeline.add("swapped", timeline.segments[-1].end, now, 0)
        self.enter(i)
        self.phase[i] = SWAP_IN
        self.take_blocks(i, self.swapped_blocks[i] * self.config.block_size, now)
        self.schedule.events.append((now, "swap_in", i))
        heapq.heappush(self.swap_done, (now + self.config.swap_cost, i))  # done at a later plan, never this one

    def _swap_ins_done(self, now: float) -> None:
        while self.swap_done and self.swap_done[0][0] <= now:
            _, i = heapq.heappop(self.swap_done)
            timeline = self.timelines[i]
            timeline.add("swapping", timeline.segments[-1].end, now, 0)  # it held its slot until this plan
            self.start_decoding(i)

    def _swapping(self) -> bool:
        return any(self.phase[i] == SWAP_IN for i in self.running)

    def _priority_preempt(self, now: float) -> None:
        """The head of the queue pushes out running requests of a lower priority class when it cannot get a
        slot or KV room (always by recompute). Only requests it is ahead of in the queue's own order can be
        pushed out, so a victim queues behind it; and only when the victims together make the room it needs
        and it then fits the token budget too (else nobody is pushed out for nothing)."""
        i, _ = self.queue.next(NEVER - 1)
        if i < 0:
            return
        requests = self.requests
        priority = requests[i].priority
        lower = sorted((j for j in self.running if requests[j].priority > priority
                        and self.phase[j] in (PREFILL, DECODE) and self.queue.ahead(i, j, now)),
                       key=lambda j: (requests[j].priority, j), reverse=True)
        need = blocks_for(self._kv_need(i), self.kv.block_size) if self.kv is not None else 0
        free, slots, victims = self.kv.free if self.kv is not None else 0, len(self.running), []
        while slots >= self.seq_limit or need > free:
            if not lower:
                return
            j = lower.pop(0)
            victims.append(j)
            slots -= 1
            free += self.kv.held(j) if self.kv is not None else 0
        # The token budget left by the work still running (decodes, prefills under way) must take the head too:
        # else it could not come in this iteration, and a victim might take its place back at once.
        chunk, kept = self.policy.chunk_size or NEVER, [j for j in self.running if j not in victims]
        busy = sum(1 + self.policy.spec_tokens if self.phase[j] == DECODE
                   else min(self.target[j] - self.prefilled[j], chunk) if self.phase[j] == PREFILL else 0
                   for j in kept)
        if self.admission_cost(i) > self.config.token_budget - busy:
            return
        for j in victims:
            self.preempt(j, now, recompute=True)

    def _context_read(self, it: Iteration) -> int:
        """KV tokens the iteration's attention reads (only the latency model with an attention term needs it)."""
        decoding = self.decoders if it.decoding is None else it.decoding
        return sum(self.context(i) for i in decoding) + sum(first + tokens for _, first, tokens in it.prefill)

    def _steady(self, now: float, it: Iteration, budget: int, max_repeat: int) -> int:
        """How many iterations, from this pure-decode one, stay identical: until a request finishes or needs
        a block, a running request's cancel lands, a swap-in ends, or an arrival could be admitted."""
        if self.reads_context:
            return 1  # every iteration reads more context, so each lasts longer than the last
        length = self.config.cost.duration(0, it.decode + it.graph_padding, 0)
        repeat = self.steady_limit(now, length, min(max_repeat, self.rounds_to_next_finish(),
                                                    self.rounds_to_next_block()))
        free = len(self.running) < self.seq_limit and not self.resume
        requests = self.requests
        while self.arrived < len(requests) and requests[self.arrived].arrival < now + repeat * length:
            i = self.arrived
            blocked = self.queue.head_of_line and len(self.queue)
            if (free and not blocked and not self.never_fits(i) and self.admission_cost(i) <= budget
                    and not self.blocks_short(self._kv_need(i)) and self.policy.tenant_quotas == ()
                    or self.policy.preemptive_priority and any(requests[j].priority > requests[i].priority
                                                                for j in self.running)):
                repeat = self.steps_until(requests[i].arrival, now, length)
                break
            self.arrive(i)  # it cannot get in before something else changes: it just joins the queue
        return max(1, repeat)

    def commit(self, it: Iteration, start: float, end: float) -> None:
        """Record the iteration(s) that ran in [start, end) and move every request on."""
        self.record_step(it, start, end)
        if it.stalled or it.accepted:
            self.commit_decodes(it, start, end)
        elif it.decode:  # the plain round: decoders that just started open their decode segment
            if self.starting:
                self.open_decodes(start, start + iteration_length(start, end, it.repeat), ())
            self.decode_round += it.repeat
        if self.policy.chunk_size:  # prefills under way that got no chunk wait in their slot
            chunked = {i for i, _, _ in it.prefill}
            for i in self.running:
                if self.phase[i] == PREFILL and i not in chunked:
                    self.timelines[i].add("stalled", start, end, 0)
        self.commit_prefill(it, start, end)
        for i in it.finishing:
            self.finish(i, end)
            self.exit(i)
            if self.kv is not None:
                self.free_blocks(i, end)
        self.iterations += it.repeat


class Static(Scheduler):
    """Static batching: a batch of waiting requests (up to the slot limit, and the KV room) is formed only
    when the last one has finished; prompts are padded to the longest and prefilled together, spread over as
    many ticks as the token budget needs; then every member holds its slot, as padding once done, until the
    longest finishes. A cancelled member stops but, like a finished one, its slot stays padding."""

    def __init__(self, trace: Trace, config: Config, policy: Policy):
        super().__init__(trace, config, policy)
        self.batch: list[int] = []
        self.next_prefill = 0  # position in the batch of the prompt being prefilled
        self.prefilled_now = 0  # tokens of that prompt already prefilled
        self.padding_left = 0  # padded prompt positions not yet prefilled
        self.idle: dict[int, tuple[float, int]] = {}  # done members: (when, iterations then)

    def plan(self, now: float, max_repeat: int = 1) -> Iteration | None:
        self.arrive_until(now if self.clock is None else self.clock)
        self.cancel_due(now)
        if self.batch and len(self.idle) == len(self.batch):  # its last members were cancelled
            self._release(now)
        if not self.batch and not self._form_batch(now):
            return None
        if self.next_prefill < len(self.batch) or self.padding_left:
            return self._plan_prefill()
        it = Iteration(decode=len(self.decoders), decode_work=len(self.decoders), padding=len(self.idle),
                       finishing=self.finishing_now(), graph_padding=self.graph_padding(len(self.batch)))
        if not it.finishing:
            length = self.config.cost.duration(0, len(self.batch) + it.graph_padding, 0)
            it.repeat = self.steady_limit(now, length, min(max_repeat, self.rounds_to_next_finish()))
        return it

    def _form_batch(self, now: float) -> bool:
        if self.queue.aging is not None:
            self.queue.refresh(now)
        position = -1
        while len(self.batch) < self.seq_limit:
            i, position = self.queue.next(NEVER - 1, position)
            if i < 0:
                break
            need = self.peak_kv(i)
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

    def _plan_prefill(self) -> Iteration:
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
        gone = sum(n for i, n in tokens.items() if self.phase[i] != PREFILL)  # a cancelled member's prompt is
        prefill = [(i, first[i], n) for i, n in tokens.items() if self.phase[i] == PREFILL]
        it = Iteration(prefill=prefill, padding=padding + gone,  # still computed in the padded batch: padding now
                       prefill_tokens=sum(n for _, _, n in prefill))
        if self.next_prefill == len(self.batch) and not self.padding_left:
            it.prefill_done = [i for i in self.batch if self.phase[i] == PREFILL]
            if self.prefill_emits:
                it.finishing = [i for i in it.prefill_done if self.requests[i].output == 1]
        return it

    def drop_running(self, i: int, now: float) -> None:
        """A cancelled member stops computing; its slot stays in the batch as padding."""
        if i in self.decoders:
            self._close_decode(i, now)
            del self.decoders[i]
            self.starting.pop(i, None)
        self.idle[i] = (now, self.iterations)

    def commit(self, it: Iteration, start: float, end: float) -> None:
        self.record_step(it, start, end)
        if it.decode:
            self.commit_decodes(it, start, end)
        self.commit_prefill(it, start, end)
        self.iterations += it.repeat
        for i in it.finishing:
            self.finish(i, end)
            self.idle[i] = (end, self.iterations)
        if self.batch and len(self.idle) == len(self.batch):
            self._release(end)

    def _release(self, end: float) -> None:
        """The batch is done: every member's idle slot was padding until now; slots and blocks go back."""
        for i, (since, iterations) in self.idle.items():
            self.timelines[i].add("padding", since, end, self.iterations - iterations)
            self.free_blocks(i, end)
        self.idle.clear()
        for i in self.batch:
            self.exit(i)
        self.batch = []


def make_scheduler(policy: Policy | str, trace: Trace, config: Config, quick: bool = True) -> Scheduler:
    """The scheduler of `policy`. `quick=False` keeps continuous batching off the seed loop's quick path, on
    the general one every option takes."""
    policy = Policy(batching=policy) if isinstance(policy, str) else policy
    if policy.batching == "static":
        return Static(trace, config, policy)
    return Continuous(trace, config, policy, quick=quick)

