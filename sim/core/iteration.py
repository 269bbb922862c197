"""The executor contract: an Iteration is the whole plan of one model iteration, all an executor needs to run
it (the simulator's cost model, or the real engine's one batched forward pass) without reading the scheduler.

The loop of every executor: `scheduler.advance(now)` (the events of the iteration's start); `it =
scheduler.plan(now, ...)`; run `it` (`it.repeat` identical iterations); `scheduler.commit(it, start, end)`.
A plan decides and commit does: the requests a plan brings in from the queue take their slots at commit
(`admitted`), and so do the swapped-out requests it brings back (`swapping_in`). A plan changes only the KV
side: the blocks it takes for what it plans (as vLLM's schedule() allocates slots before the model runs: the
block tables the executor runs with), the copies back it starts for a swap-in, and the preemptions a chunk's
blocks force. Between plan and commit nothing in the scheduler changes; an executor that verifies speculative
drafts itself (the real engine) says what it accepted with `scheduler.settle(it, accepted)` first.
"""
from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field


@dataclass(slots=True, eq=False)
class Iteration:
    """One model iteration as planned; `repeat` identical iterations may run back to back. A value: it holds
    copies of what it names (lists, block tables as they were when it was planned), never the scheduler's own."""
    decoding: Collection[int] = ()  # requests that decode: one token each (or a speculative step)
    admitted: Sequence[int] = ()  # waiting requests it brings in (they take their slots when it commits)
    swapping_in: Sequence[int] = ()  # swapped-out requests it brings back (their blocks taken, their slots at commit)
    prefill: list[tuple[int, int, int]] = field(default_factory=list)  # (request, first position, tokens)
    prefill_done: list[int] = field(default_factory=list)  # requests whose prompt this iteration completes
    prefill_emits: Sequence[int] = ()  # of those, the ones whose prefill samples a token
    finishing: list[int] = field(default_factory=list)  # requests whose last token it emits (a run's last iteration)
    stalled: Sequence[int] = ()  # decoders that hold a slot but do not decode in it
    paused: Sequence[int] = ()  # decoders that hold a slot but wait for their client to read (backpressure)
    accepted: Mapping[int, int] = ()  # speculative decoding: drafts accepted per request (empty without it)
    drawn: Mapping[int, int] = ()  # and the draws each one's step read (sim.core.request.Draws: used up at commit)
    prefill_tokens: int = 0  # the sum of the prefill column
    decode_work: int = 0  # the decoders' token-work (k + 1 each with speculative decoding)
    padding: int = 0  # padded prompt positions and idle decode slots (static batching)
    graph_padding: int = 0  # decode slots added to reach a captured CUDA-graph batch size
    context_read: int = 0  # KV tokens its attention reads (for the latency model)
    expert_tokens: tuple[int, ...] = ()  # MoE: tokens routed to each expert (sim.core.moe; empty when off)
    repeat: int = 1
    # The ends of its `repeat` iterations, when they differ in length (a latency model whose iterations read more
    # context each round: sim.core.continuous.Continuous.steady_reading); empty when they are alike.
    ends: tuple[float, ...] = ()
    # each request's KV block ids in token order (None: no cache), as they were when it was planned: a table only
    # grows at its end, so this keeps each one's length then rather than a copy (sim.core.kv.Tables)
    blocks: Mapping[int, list[int]] | None = None
    # Swap preemption, for an executor that moves real KV blocks (copying out first: a block freed by a swap-out
    # may be taken again in the same plan): each request swapped out since the last iteration, with the blocks it
    # held, and each swapping back in, with its new blocks (sim.core.memory; copies).
    swapped_out: Mapping[int, list[int]] = ()
    swapped_in: Mapping[int, list[int]] = ()

    @property
    def decode(self) -> int:
        """Requests decoding in it."""
        return len(self.decoding)

    @property
    def token_work(self) -> int:
        return self.prefill_tokens + self.decode_work + self.padding
