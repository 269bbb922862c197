"""One request's scheduling state (RequestState), where every request is (Phases, the one table of phases), and
decode progress, counted lazily (DecodeRounds)."""
from __future__ import annotations

import heapq
import random
from dataclasses import dataclass

from ..trace.trace import Request
from .schedule import RequestTimeline, Segment

# Where a request is: waiting in the queue, holding a batch slot (prefilling, decoding, or swapping back in from
# host memory), swapped out, or done (finished, cancelled or rejected).
WAITING, PREFILL, DECODE, SWAPPED, SWAP_IN, DONE = range(6)
RUNNING = (PREFILL, DECODE, SWAP_IN)  # the phases that hold a batch slot
STOP_EVENTS = {"cancelled": "cancel", "disconnected": "disconnect"}  # a stop's finish reason -> its event


@dataclass(slots=True, eq=False)
class RequestState:
    """What the scheduler knows of one request. The request and its timeline (what the Schedule records) are
    read through it; everything else changes as it is scheduled."""
    index: int  # its place in the trace (and in the Schedule's timelines)
    request: Request
    timeline: RequestTimeline
    target: int  # tokens its next prefill processes: the prompt, or prompt + tokens made after a recompute
    prefilled: int = 0  # of `target`
    made: int = 0  # output tokens made when it last started decoding (see DecodeRounds)
    since: int | None = None  # the decode round it last started decoding at (None: not in the decode rounds)
    last_round: int = -1  # the decode round of its last token (heap entries naming another round are stale)
    block_round: int = -1  # overcommit: the decode round that needs its next block (likewise)
    stop_at: float | None = None  # its cancel, timeout or client's disconnect, the earliest
    stop_reason: str = "cancelled"  # or "disconnected": its client went away
    swapped_blocks: int = 0  # blocks it has in host memory while swapped out
    draws: Draws | None = None  # speculative decoding: its own seeded draws

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


class Draws:
    """Speculative decoding's draws for one request, from its own seeded stream, drawn ahead: a plan reads the
    next ones, `drawn[at:]` (at least k), without drawing, and the commit of its step moves `at` past those it
    read (`use`). A step reads at most k: one for each draft it accepts, and one for the draft it rejects."""
    __slots__ = ("random", "k", "drawn", "at", "last")
    AHEAD = 16  # draws made at a time, at least

    def __init__(self, seed: int, k: int):
        self.random, self.k, self.drawn, self.at = random.Random(seed).random, k, [], 0
        self.more()

    def use(self, n: int) -> None:
        """A step read the next `n` draws."""
        self.at += n
        if self.at > self.last:
            self.more()

    def more(self) -> None:
        """Draw more: the draws not read yet stay first, and k at least follow `at`."""
        draw = self.random
        self.drawn = self.drawn[self.at:] + [draw() for _ in range(max(self.k, self.AHEAD))]
        self.at, self.last = 0, len(self.drawn) - self.k


class Phases:
    """Where every request is: the one table of phases. `of[i]` is request i's phase; with it, for the loops that
    walk them, the requests holding a batch slot (`running`, in admission order) and, of those, the ones in their
    prefill (`prefilling`) and the ones decoding (`decoding`, in the order they started). Only these methods move
    a request, so the three always agree with `of`."""
    __slots__ = ("of", "running", "prefilling", "decoding")

    def __init__(self, requests: int):
        self.of = [WAITING] * requests
        self.running: dict[int, None] = {}
        self.prefilling: dict[int, None] = {}
        self.decoding: dict[int, None] = {}

    def admit(self, i: int) -> None:
        """Request i takes a batch slot to prefill."""
        self.running[i] = None
        self.prefilling[i] = None
        self.of[i] = PREFILL

    def swap_in(self, i: int) -> None:
        """Swapped-out request i takes a slot while its blocks come back."""
        self.running[i] = None
        self.of[i] = SWAP_IN

    def decode(self, i: int) -> None:
        """Request i decodes from the next decode round on (its prefill done, or its swap-in)."""
        self.prefilling.pop(i, None)
        self.decoding[i] = None
        self.of[i] = DECODE

    def prefilled(self, i: int) -> None:
        """Request i's prefill is done and made its last token: it finishes in this commit."""
        del self.prefilling[i]

    def stop_decoding(self, i: int) -> None:
        del self.decoding[i]

    def leave(self, i: int) -> None:
        """Request i gives its batch slot back."""
        del self.running[i]
        self.prefilling.pop(i, None)

    def wait(self, i: int, phase: int) -> None:
        """Request i, out of the batch, waits (WAITING: in the queue, to prefill again) or is SWAPPED out."""
        self.of[i] = phase

    def done(self, i: int, leaves: bool = False) -> None:
        """Request i is done; `leaves`: it gives its batch slot back too (`leave`)."""
        self.decoding.pop(i, None)
        self.of[i] = DONE
        if leaves:
            del self.running[i]
            self.prefilling.pop(i, None)


class DecodeRounds:
    """Decode progress, counted lazily: the one trick of the scheduler's bookkeeping, explained here once.

    In every decode round each running decoder makes one token. Counting them one by one would cost
    O(decoders) a round, and a merged run of identical rounds would cost as much as its ticks. Instead the
    rounds are counted once (`now`), and a decoder keeps the round it started decoding at (`since`) and the
    tokens it had made by then (`made`): it has made `made + now - since` tokens. Whatever changes a decoder
    alone adjusts `made`: a round that passes it by (a stall) takes one back, accepted draft tokens add theirs.
    When it stops decoding (it finishes, is preempted or cancelled) its count is frozen into `made` (and `since`
    is None until it decodes again).

    The context the decoders read (prompt + tokens made, each) is counted the same way, for latency models whose
    iterations cost more as it grows: `held` sums `prompt + made - since` over the decoders, so together they
    read `held + decoders * now`, and a heap of the same keys (with `states`) gives the longest in O(log n)."""
    __slots__ = ("now", "held", "count", "states", "tallest")

    def __init__(self, states: list[RequestState] | None = None):
        """`states`: every request's state, by index, to keep the longest context (a profile cost model's)."""
        self.now = 0  # decode rounds so far
        self.held = 0  # the sum of prompt + made - since over the decoders
        self.count = 0  # decoders
        self.states = states
        self.tallest: list[tuple[int, int]] = []  # heap of (-(prompt + made - since), request); stale entries too

    def made(self, state: RequestState) -> int:
        since = state.since
        return state.made if since is None else state.made + self.now - since

    def start(self, state: RequestState) -> None:
        state.since = self.now
        self.count += 1
        self.held += state.request.prompt + state.made - self.now
        if self.states is not None:
            heapq.heappush(self.tallest, (self.now - state.request.prompt - state.made, state.index))

    def stop(self, state: RequestState) -> None:
        self.count -= 1
        self.held -= state.request.prompt + state.made - state.since
        state.made, state.since = self.made(state), None

    def adjust(self, state: RequestState, tokens: int) -> None:
        """Decoder `state` made `tokens` more than the rounds say (accepted drafts), or fewer (a round passed it
        by)."""
        state.made += tokens
        self.held += tokens
        if self.states is not None:
            heapq.heappush(self.tallest, (state.since - state.request.prompt - state.made, state.index))

    def pass_by(self, states: list[RequestState], rounds: int) -> None:
        """`rounds` rounds passed these decoders by (they waited): `adjust(state, -rounds)` for each."""
        self.held -= rounds * len(states)
        for state in states:
            state.made -= rounds
        if self.states is not None:
            for state in states:
                heapq.heappush(self.tallest, (state.since - state.request.prompt - state.made, state.index))

    def advance(self, rounds: int) -> None:
        self.now += rounds

    def context(self) -> int:
        """Tokens of context all decoders read: the sum of each one's prompt and tokens made."""
        return self.held + self.count * self.now

    def longest(self) -> int:
        """The longest context of a decoder (needs `states`; 0 without decoders). An entry of the heap is stale
        when its request stopped decoding or its key changed since (it was noted again then)."""
        heap = self.tallest
        if heap and self.noted(*heap[0]):
            return self.now - heap[0][0]
        noted = [key for key, i in heap if self.noted(key, i)]  # (it takes nothing off the heap: drop_stale does)
        return self.now - min(noted) if noted else 0

    def noted(self, key: int, i: int) -> bool:
        """Whether a heap entry is decoder i's key as now noted (else it is stale)."""
        s = self.states[i]
        return s.since is not None and s.since - s.request.prompt - s.made == key

    def drop_stale(self) -> None:
        """Stale entries at the heap's top go (at an iteration's start), so `longest` reads it off the top."""
        heap = self.tallest
        while heap and not self.noted(*heap[0]):
            heapq.heappop(heap)


class Pauses:
    """Iterations in which every decoder waits (prefill-first mixing runs each prefill without decodes), noted
    once for all decoders: the other trick of the bookkeeping.

    A prefill-first run pauses the decode rounds at every prefill. Writing a stall on every decoder's timeline
    at each pause would cost O(decoders) a pause. But every decoder whose decode segment spans pauses k..m has
    the same segments from pause k's stall to pause m's: the stalls, and between two of them a decode of the
    rounds in between. So they are made once, in order (`shared`: stall 0, decode 0-1, stall 1, decode 1-2, ...),
    and a decoder's open decode segment, when it closes (`draw`), takes its own first and last decode and the
    shared run between them: the same segments as writing them one by one."""
    __slots__ = ("shared", "ends", "since")

    def __init__(self):
        self.shared: list[Segment] = []
        self.ends: list[tuple[float, int]] = []  # per pause that ended: (its end, the decode round it held up)
        self.since: float | None = None  # start of the pause under way

    def begin(self, start: float, round_now: int) -> None:
        """Every decoder waits from `start` on."""
        if self.since is None:
            if self.ends:  # the decode between the last pause and this one
                end, round_then = self.ends[-1]
                self.shared.append(Segment("decode", end, start, round_now - round_then))
            self.since = start

    def end(self, start: float, round_now: int) -> None:
        """A decode round starts at `start`: the pause under way (if any) ends."""
        if self.since is not None:
            self.shared.append(Segment("stalled", self.since, start, 0))
            self.ends.append((start, round_now))
            self.since = None

    def draw(self, timeline: RequestTimeline, opened: tuple[float, int, int, int], end: float, made: int) -> None:
        """Write a decode segment opened as (start, tokens made, decode round, pauses ended) and closed at `end`,
        with `made` tokens then: decode pieces, and a stall for each pause between them."""
        start, made_then, round_then, first = opened
        if not self.ends and self.since is None:  # (no pause yet: one decode)
            timeline.add("decode", start, end, made - made_then)
            return
        last = len(self.ends) - 1
        if first <= last:
            stall = self.shared[2 * first]
            timeline.add("decode", start, stall.start, self.ends[first][1] - round_then)
            timeline.add("stalled", stall.start, stall.end, 0)
            timeline.segments += self.shared[2 * first + 1:2 * last + 1]
            start, made_then = self.ends[last][0], made_then + self.ends[last][1] - round_then
        if self.since is not None and self.since < end:  # it waits in the pause under way
            timeline.add("decode", start, self.since, made - made_then)
            timeline.add("stalled", self.since, end, 0)
        else:
            timeline.add("decode", start, end, made - made_then)
