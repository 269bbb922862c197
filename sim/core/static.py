"""Static batching: a batch is formed only when the last one has finished, and held until its longest member
finishes."""
from __future__ import annotations

from ..trace.trace import Trace
from .config import Config, Policy
from .iteration import Iteration
from .queue import NEVER
from .request import PREFILL, WAITING
from .scheduler import Scheduler


class Static(Scheduler):
    """Static batching: a batch of waiting requests (up to the slot limit, and the KV room) is formed only
    when the last one has finished; prompts are padded to the longest and prefilled together, spread over as
    many ticks as the token budget needs; then every member holds its slot, as padding once done, until the
    longest finishes. A cancelled member stops but, like a finished one, its slot stays padding."""

    def __init__(self, trace: Trace, config: Config, policy: Policy, unit: str | None = None,
                 replica: str = ""):
        super().__init__(trace, config, policy, unit, replica)
        self.batch: list[int] = []
        # where the batch's padded prefill stands: the member whose prompt is being prefilled (its position in
        # the batch), the tokens of that prompt already prefilled, and the padded positions not yet prefilled
        self.progress = (0, 0, 0)
        self.idle: dict[int, tuple[float, int]] = {}  # done members: (when, iterations then)

    def plan(self, now: float, max_repeat: int = 1) -> Iteration | None:
        self.planning(now)
        if not self.batch:  # the next batch, which takes its slots at commit
            batch = self.take_batch(now)
            if not batch:
                return None
            it = self.plan_prefill(batch, self.prefill_start(batch))
            it.admitted = batch
            return self.hand_over(it)
        if self.prefilling():
            return self.hand_over(self.plan_prefill(self.batch, self.progress))
        decoding = self.phases.decoding
        it = Iteration(decoding=list(decoding), decode_work=len(decoding), padding=len(self.idle),
                       finishing=self.finishing_now(), graph_padding=self.graph_padding(len(self.batch)))
        if self.config.moe.experts:  # every iteration routes anew: none repeats
            self.route(it)
        elif not it.finishing and self.config.cost.kind not in ("profile", "roofline"):  # (their decodes grow
            # with the context)
            length = self.config.cost.duration(0, len(self.batch) + it.graph_padding, 0)
            it.repeat = self.steady_limit(now, length, min(max_repeat, self.rounds_to_next_finish()))
        return self.hand_over(it)

    def at_start(self, now: float) -> None:
        """What happens at an iteration's start: arrivals and stops; a batch whose last members were cancelled
        ends; with no batch, an order that changes as requests wait (aging) is made afresh."""
        super().at_start(now)
        if self.batch and len(self.idle) == len(self.batch):
            self.end_batch(now)
        if not self.batch and self.queue.sorts:
            self.queue.refresh(now)

    def take_batch(self, now: float) -> list[int]:
        """The next batch: waiting requests in the policy's order while a slot is free and the KV cache can
        reserve all each will hold (taken now: the plan's blocks). Empty when none waits."""
        batch, position = [], -1
        while len(batch) < min(self.seq_limit, self.queue.count):
            i, position = self.queue.next(NEVER - 1, position)
            if i < 0:
                break
            need = self.states[i].peak_kv
            if self.memory.short(need):
                break  # the batch is as large as the KV cache allows
            self.memory.take(i, need, now)
            batch.append(i)
        return batch

    def prefill_start(self, batch: list[int]) -> tuple[int, int, int]:
        """A new batch's prefill, before it starts: at its first member, with every padded position to come."""
        prompts = [self.requests[i].prompt for i in batch]
        return 0, 0, max(prompts) * len(prompts) - sum(prompts)

    def prefill_tick(self, batch: list[int], progress: tuple[int, int, int]
                     ) -> tuple[list[tuple[int, int, int]], tuple[int, int, int], int]:
        """The next tick of the padded batch prefill, from `progress` (it changes nothing): real prompt tokens
        first, padding positions after. The members' prompt tokens it computes, in order (request, first position,
        tokens), the progress after it, and its padding positions."""
        budget, takes, requests = self.config.token_budget, [], self.requests
        next_prefill, prefilled_now, padding_left = progress
        while budget and next_prefill < len(batch):
            i = batch[next_prefill]
            take = min(requests[i].prompt - prefilled_now, budget)
            takes.append((i, prefilled_now, take))
            budget -= take
            prefilled_now += take
            if prefilled_now == requests[i].prompt:
                next_prefill, prefilled_now = next_prefill + 1, 0
        padding = min(padding_left, budget)
        return takes, (next_prefill, prefilled_now, padding_left - padding), padding

    def prefilling(self) -> bool:
        """Whether the batch's padded prefill is still under way."""
        return self.progress[0] < len(self.batch) or bool(self.progress[2])

    def plan_prefill(self, batch: list[int], progress: tuple[int, int, int]) -> Iteration:
        """The next tick of the padded batch prefill (prefill_tick). Every member is listed, with the tokens it
        gets (maybe 0): it is in the batch prefill throughout."""
        takes, (next_prefill, _, padding_left), padding = self.prefill_tick(batch, progress)
        tokens, first = dict.fromkeys(batch, 0), dict.fromkeys(batch, 0)
        for i, at, n in takes:  # (a member's prompt is walked once: it is met at most once a tick)
            tokens[i], first[i] = n, at
        phase = self.phases.of
        member = {i for i in batch if phase[i] in (PREFILL, WAITING)}  # a cancelled member's prompt is still
        gone = sum(n for i, n in tokens.items() if i not in member)  # computed in the padded batch: padding
        prefill = [(i, first[i], n) for i, n in tokens.items() if i in member]
        it = Iteration(prefill=prefill, padding=padding + gone, prefill_tokens=sum(n for _, _, n in prefill))
        if next_prefill == len(batch) and not padding_left:
            it.prefill_done = [i for i in batch if i in member]
            if self.prefill_emits:
                it.prefill_emits = list(it.prefill_done)
                it.finishing = [i for i in it.prefill_done if self.requests[i].output == 1]
        self.route(it)
        return it

    def give_back_slot(self, i: int, now: float) -> None:
        """A cancelled member stops computing; its slot stays in the batch as padding."""
        self.idle[i] = (now, self.recorder.iterations)

    def commit(self, it: Iteration, start: float, end: float) -> None:
        if it.admitted:  # a new batch: its members take their slots
            self.bring_in(it, start)
            self.batch, self.progress = list(it.admitted), self.prefill_start(it.admitted)
        if self.prefilling():  # (the tick `it` planned) the batch prefill moves on
            self.progress = self.prefill_tick(self.batch, self.progress)[1]
        self.record_step(it, start, end)
        self.commit_decodes(it, start, end)
        self.commit_prefill(it, start, end)
        for i in it.finishing:
            self.finish(i, end)
            self.idle[i] = (end, self.recorder.iterations)
        if self.batch and len(self.idle) == len(self.batch):
            self.end_batch(end)

    def end_batch(self, end: float) -> None:
        """The batch is done: every member's idle slot was padding until now; slots and blocks go back."""
        iterations = self.recorder.iterations
        for i, (since, then) in self.idle.items():
            self.states[i].timeline.add("padding", since, end, iterations - then)
            self.free_blocks(i, end)
        self.idle.clear()
        for i in self.batch:
            self.exit(i)
        self.batch = []
