"""The seed's loop with no option on, on a quicker path: the one fast path the scheduler keeps.

`make_scheduler` chooses it for continuous batching with the default Policy, no KV cache, no stops and the
tick cost model: then the general steps (sim.core.policies.Continuous) check nothing that could apply, and
doing the same work in one plan and one commit with the checks left out runs production traces about 1.6
times as fast. It computes exactly what the general steps do (tests/test_properties.py holds the two to the
same schedules, merged and one tick at a time); read Continuous for what each step means.
"""
from __future__ import annotations

import heapq

from .iteration import Iteration
from .policies import Continuous
from .request import DECODE, DONE, PREFILL
from .schedule import Segment, Step, iteration_length


class PlainContinuous(Continuous):
    def plan(self, now: float, max_repeat: int = 1, clock: float | None = None) -> Iteration | None:
        requests, queue, running = self.requests, self.queue, self.running
        while self.arrived < len(requests) and requests[self.arrived].arrival <= now:  # arrivals just queue
            queue.push(self.arrived, requests[self.arrived].prompt)
            self.arrived += 1
        it = Iteration()
        budget = self.config.token_budget - len(self.decoders)
        if self.decoders:  # step 1: every decoder decodes (the slot limit keeps them within the budget)
            it.decoding, it.decode_work, it.finishing = self.decoders.keys(), len(self.decoders), self.finishing_now()
        budget = self.admit_whole(it, now, budget)
        if it.prefill or it.finishing:
            return it
        if not it.decoding:
            return None
        # Step 4: ticks until a request finishes or an arrival could come in; arrivals that could not just queue.
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

    def admit_whole(self, it: Iteration, now: float, budget: int) -> int:
        """Step 3: waiting prompts that fit the budget left come in whole (Continuous.admit_waiting, Scheduler.admit,
        Continuous.prefill); the budget left."""
        queue, running, states = self.queue, self.running, self.states
        while budget > 0 and len(running) < self.seq_limit and queue.count:
            i, _ = queue.next(budget)
            if i < 0:
                break
            queue.remove(i)
            s = states[i]
            if now > s.timeline.arrival:
                s.timeline.segments.append(Segment("queued", s.timeline.arrival, now, 0))
            self.enter(i)
            s.phase = PREFILL
            self.prefilling[i] = None
            it.prefill.append((i, 0, s.prompt))
            it.prefill_tokens += s.prompt
            it.prefill_done.append(i)
            if self.prefill_emits:
                it.prefill_emits = [*it.prefill_emits, i]
                if s.output == 1:
                    it.finishing.append(i)
            budget -= s.prompt
        return budget

    def commit(self, it: Iteration, start: float, end: float) -> None:
        self.schedule.add_step(Step(start, end, it.repeat, it.prefill_tokens, it.decode_work, 0, len(self.running),
                                    len(it.decoding), changes=self.changes or ()), self.version)
        if self.changes:
            self.changes = []
        states, rounds = self.states, self.rounds
        if it.decoding:
            if self.starting:  # their first decode round opens their decode segment (Recording.open_decodes)
                first_end = start + iteration_length(start, end, it.repeat)
                for i in self.starting:
                    self.decode_open[i] = (start, states[i].made, rounds.now, 0)
                    if states[i].timeline.first_token is None:
                        states[i].timeline.first_token = first_end
                self.starting.clear()
            rounds.advance(it.repeat)
        for i, _, tokens in it.prefill:
            states[i].timeline.segments.append(Segment("prefill", start, end, tokens))
            states[i].prefilled = tokens
        for i in it.prefill_emits:
            s = states[i]
            s.made = 1
            s.timeline.prefill_emits.append(end)
            s.timeline.first_token = end
        for i in it.prefill_done:  # start decoding (Scheduler.start_decoding)
            del self.prefilling[i]
            s = states[i]
            if s.made < s.output:
                s.phase = DECODE
                rounds.start(s)
                self.decoders[i] = self.starting[i] = None
                s.last_round = rounds.now + s.output - s.made - 1
                heapq.heappush(self.last_tokens, (s.last_round, i))
        self.finish_all(it, end)
        self.iterations += it.repeat

    def finish_all(self, it: Iteration, end: float) -> None:
        """Step 2: what made its last token finishes and leaves the batch (Recording.finish, Scheduler.exit)."""
        states, rounds = self.states, self.rounds
        for i in it.finishing:
            s = states[i]
            opened = self.decode_open.pop(i, None)
            if opened is not None:
                s.timeline.segments.append(Segment("decode", opened[0], end, rounds.made(s) - opened[1]))
                del self.decoders[i]
                rounds.stop(s)
            s.phase = DONE
            s.timeline.completion, s.timeline.finish_reason = end, "finished"
            self.remaining -= 1
            self.exit(i)
