"""One request's scheduling state (RequestState), and its decode progress, counted lazily (DecodeRounds)."""
from __future__ import annotations

import random
from dataclasses import dataclass

from ..trace.trace import Request
from .schedule import RequestTimeline

# Where a request is: waiting in the queue, holding a batch slot (prefilling, decoding, or swapping back in from
# host memory), swapped out, or done (finished, cancelled or rejected).
WAITING, PREFILL, DECODE, SWAPPED, SWAP_IN, DONE = range(6)
RUNNING = (PREFILL, DECODE, SWAP_IN)  # the phases that hold a batch slot


@dataclass(slots=True, eq=False)
class RequestState:
    """What the scheduler knows of one request. The request and its timeline (what the Schedule records) are
    read through it; everything else changes as it is scheduled."""
    index: int  # its place in the trace (and in the Schedule's timelines)
    request: Request
    timeline: RequestTimeline
    target: int  # tokens its next prefill processes: the prompt, or prompt + tokens made after a recompute
    phase: int = WAITING
    prefilled: int = 0  # of `target`
    made: int = 0  # output tokens made when it last started decoding (see DecodeRounds)
    since: int = 0  # the decode round it last started decoding at
    decoding: bool = False  # in the decode rounds
    last_round: int = -1  # the decode round of its last token (heap entries naming another round are stale)
    block_round: int = -1  # overcommit: the decode round that needs its next block (likewise)
    stop_at: float | None = None  # its cancel or timeout, the earlier of the two
    swapped_blocks: int = 0  # blocks it has in host memory while swapped out
    rng: random.Random | None = None  # speculative decoding: its own seeded draws

    @property
    def prompt(self) -> int:
        return self.request.prompt

    @property
    def output(self) -> int:
        return self.request.output

    @property
    def peak_kv(self) -> int:
        """The most KV tokens it ever holds: prompt + output - 1. An iteration writes the KV of the tokens it
        feeds (the last one made), not of the token it makes, so its last output token never needs any, as in
        vLLM and nano-vllm. (In the teaching mode, where the first token comes from a decode, the first decode
        feeds the prompt's last token again: the same count.)"""
        return self.request.prompt + self.request.output - 1


class DecodeRounds:
    """Decode progress, counted lazily: the one trick of the scheduler's bookkeeping, explained here once.

    In every decode round each running decoder makes one token. Counting them one by one would cost
    O(decoders) a round, and a merged run of identical rounds would cost as much as its ticks. Instead the
    rounds are counted once (`now`), and a decoder keeps the round it started decoding at (`since`) and the
    tokens it had made by then (`made`): it has made `made + now - since` tokens. Whatever changes a decoder
    alone adjusts `made`: a round that passes it by (a stall) takes one back, accepted draft tokens add theirs.
    When it stops decoding (it finishes, is preempted or cancelled) its count is frozen into `made`."""
    __slots__ = ("now",)

    def __init__(self):
        self.now = 0  # decode rounds so far

    def made(self, state: RequestState) -> int:
        return state.made + (self.now - state.since if state.decoding else 0)

    def start(self, state: RequestState) -> None:
        state.decoding, state.since = True, self.now

    def stop(self, state: RequestState) -> None:
        state.made, state.decoding = self.made(state), False

    def advance(self, rounds: int) -> None:
        self.now += rounds
