"""Static batching: a batch is formed only when the last one has finished, and held until its longest member
finishes."""
from __future__ import annotations

from ..trace.trace import Trace
from .config import Config, Policy
from .iteration import Iteration
from .queue import NEVER
from .request import PREFILL
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
        self.next_prefill = 0  # position in the batch of the prompt being prefilled
        self.prefilled_now = 0  # tokens of that prompt already prefilled
        self.padding_left = 0  # padded prompt positions not yet prefilled
        self.idle: dict[int, tuple[float, int]] = {}  # done members: (when, iterations then)

    def plan(self, now: float, max_repeat: int = 1) -> Iteration | None:
        self.planning(now)
        if not self.batch and not self.take_batch(now):
            return None
        if self.prefilling():
            return self.hand_over(self.plan_prefill())
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
        ends."""
        super().at_start(now)
        if self.batch and len(self.idle) == len(self.batch):
            self.end_batch(now)

    def take_batch(self, now: float) -> bool:
        """The next batch: waiting requests in the policy's order while a slot is free and the KV cache can
        reserve all each will hold. False when none waits."""
        if self.queue.sorts:
            self.queue.refresh(now)
        position = -1
        while len(self.batch) < self.seq_limit:
            i, position = self.queue.next(NEVER - 1, position)
            if i < 0:
                break
            need = self.states[i].peak_kv
            if self.memory.short(need):
                break  # the batch is as large as the KV cache allows
            self.queue.remove(i)
            self.admit(i, now)
            self.memory.take(i, need, now)
            self.batch.append(i)
        if not self.batch:
            return False
        prompts = [self.requests[i].prompt for i in self.batch]
        self.next_prefill, self.prefilled_now = 0, 0
        self.padding_left = max(prompts) * len(prompts) - sum(prompts)
        return True

    def prefill_tick(self) -> tuple[list[tuple[int, int, int]], tuple[int, int], int]:
        """The next tick of the padded batch prefill, from where it stands (it changes nothing): real prompt tokens
        first, padding positions after. The members' prompt tokens it computes, in order (request, first position,
        tokens), where the prefill stands after it (next_prefill, prefilled_now), and its padding positions."""
        budget, takes, batch, requests = self.config.token_budget, [], self.batch, self.requests
        next_prefill, prefilled_now = self.next_prefill, self.prefilled_now
        while budget and next_prefill < len(batch):
            i = batch[next_prefill]
            take = min(requests[i].prompt - prefilled_now, budget)
            takes.append((i, prefilled_now, take))
            budget -= take
            prefilled_now += take
            if prefilled_now == requests[i].prompt:
                next_prefill, prefilled_now = next_prefill + 1, 0
        return takes, (next_prefill, prefilled_now), min(self.padding_left, budget)

    def prefilling(self) -> bool:
        """Whether the batch's padded prefill is still under way."""
        return self.next_prefill < len(self.batch) or bool(self.padding_left)

    def plan_prefill(self) -> Iteration:
        """The next tick of the padded batch prefill (prefill_tick). Every member is listed, with the tokens it
        gets (maybe 0): it is in the batch prefill throughout."""
        takes, (next_prefill, _), padding = self.prefill_tick()
        tokens, first = dict.fromkeys(self.batch, 0), dict.fromkeys(self.batch, 0)
        for i, at, n in takes:  # (a member's prompt is walked once: it is met at most once a tick)
            tokens[i], first[i] = n, at
        phase = self.phases.of
        member = {i for i in self.batch if phase[i] == PREFILL}  # a cancelled member's prompt is still
        gone = sum(n for i, n in tokens.items() if i not in member)  # computed in the padded batch: padding
        prefill = [(i, first[i], n) for i, n in tokens.items() if i in member]
        it = Iteration(prefill=prefill, padding=padding + gone, prefill_tokens=sum(n for _, _, n in prefill))
        if next_prefill == len(self.batch) and padding == self.padding_left:
            it.prefill_done = [i for i in self.batch if i in member]
            if self.prefill_emits:
                it.prefill_emits = list(it.prefill_done)
                it.finishing = [i for i in it.prefill_done if self.requests[i].output == 1]
        self.route(it)
        return it

    def give_back_slot(self, i: int, now: float) -> None:
        """A cancelled member stops computing; its slot stays in the batch as padding."""
        self.idle[i] = (now, self.recorder.iterations)

    def commit(self, it: Iteration, start: float, end: float) -> None:
        if self.prefilling():  # (the tick `it` planned) the batch prefill moves on
            _, (self.next_prefill, self.prefilled_now), padding = self.prefill_tick()
            self.padding_left -= padding
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
