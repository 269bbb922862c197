"""Streaming to clients, a part of the scheduler with its own state (Streams): each request's tokens go to a
client that reads them at its own pace (a Reader), and bounded output credits (backpressure): a request may hold
at most `stream_credits` tokens made but not yet read, and with no credit left it does not decode (it is paused,
holding its slot and KV blocks).

A client reads its tokens in order at `rate` tokens a time unit, as a fluid: while it has tokens to read it
reads `rate` of them a time unit; a token counts as sent once it is read whole. Tokens arrive only when an
iteration emits them, so between two emissions the read count grows linearly until it catches up. As in a
server's bounded per-stream output buffer (an HTTP/2 flow-control window, or a queue between the engine and
the API server), credits are checked before the iteration: a decoder with `unread + tokens its step can make >
credits` waits, so it never holds more than `credits` unread tokens."""
from __future__ import annotations

import heapq
import math
from collections.abc import Iterable

from .config import Policy
from .iteration import Iteration
from .request import RequestState

_WHOLE = 1e-9  # a read count within this of a whole token has read it (float rates such as 0.1 a tick)


class Reader:
    """One client: how much it has read by `at`, of the tokens it had by then."""
    __slots__ = ("rate", "read", "at", "arrived")

    def __init__(self, rate: float):
        self.rate = rate
        self.read = 0.0  # tokens read by `at` (a fluid count)
        self.at = 0.0
        self.arrived = 0  # tokens emitted to it by `at`

    def advance(self, now: float) -> None:
        """Read from `at` until `now` (no token arrives in between)."""
        if now > self.at:
            if self.read < self.arrived:
                read = self.read + self.rate * (now - self.at)
                self.read = read if read < self.arrived else self.arrived
            self.at = now

    def emit(self, now: float, tokens: int) -> None:
        """`tokens` arrive at `now`."""
        if now > self.at:
            self.advance(now)
        self.arrived += tokens

    def sent(self, now: float) -> int:
        """Tokens read whole by `now`."""
        if now > self.at:
            self.advance(now)
        return math.floor(self.read + _WHOLE)

    def unread(self, now: float) -> int:
        return self.arrived - self.sent(now)

    def over(self, now: float, room: int) -> bool:
        """Whether it holds more than `room` unread tokens at `now` (`unread(now) > room` in one call: every
        decoder's client is asked every iteration)."""
        if now > self.at:
            if self.read < self.arrived:
                read = self.read + self.rate * (now - self.at)
                self.read = read if read < self.arrived else self.arrived
            self.at = now
        return self.arrived - math.floor(self.read + _WHOLE) > room

    def credit_back(self, credits: int, step: int) -> float:
        """The earliest time from `at` when a step of `step` tokens fits the credits again."""
        target = self.arrived + step - credits  # tokens it must have read whole
        if math.floor(self.read + _WHOLE) >= target:
            return self.at
        return self.at + (target - self.read) / self.rate


def sent_by(emitted: Iterable[float], rate: float | None, until: float | None) -> int:
    """Tokens a client reading at `rate` (None: as fast as they come) has read whole by `until` (None: ever) of
    the tokens emitted at the times `emitted` (in order)."""
    times = list(emitted)
    if until is not None:
        times = [t for t in times if t <= until]
    if rate is None or until is None:
        return len(times)
    reader = Reader(rate)
    for t in times:
        reader.emit(t, 1)
    return reader.sent(until)


class Streams:
    """The streaming part of the scheduler, with its own state: a Reader for each request whose client reads at a
    rate, when credits bound what it may hold unread (without credits a slow client changes nothing in the
    schedule: what it read is worked out afterwards), and the requests released for their client (`held`)."""

    def __init__(self, policy: Policy, states: list[RequestState], ticks: bool):
        """`ticks`: the clock is in whole ticks (a released request comes back at an iteration boundary)."""
        self.credits, self.step = policy.stream_credits, 1 + policy.spec_tokens
        self.ticks = ticks
        self.readers: dict[int, Reader] = {}
        for s in states:
            self.add(s)
        self.held: list[tuple[float, int]] = []  # heap (when its client has room again, request)
        self.held_until: dict[int, float] = {}  # the requests in `held`

    def add(self, s: RequestState) -> None:
        """Request s's reader, when credits bound what its client may hold unread."""
        rate = s.timeline.read_rate
        if self.credits is not None and rate is not None:
            self.readers[s.index] = Reader(rate)

    def __bool__(self) -> bool:
        return bool(self.readers)

    def out_of_credit(self, decoding: dict, now: float) -> list[int]:
        """Decoders whose client has not read enough for another step: with `unread + tokens a step can make >
        credits` they wait."""
        room, readers = self.credits - self.step, self.readers
        return [i for i in decoding if i in readers and readers[i].over(now, room)]

    def streaming(self, decoding: dict) -> bool:
        """Whether a decoder's client may run out of credit: then every iteration is planned on its own."""
        return not self.readers.keys().isdisjoint(decoding)

    def next_credit(self, decoding: dict) -> float | None:
        """When the first paused decoder's client will have read enough for another step (None: none waits)."""
        credits, step, readers = self.credits, self.step, self.readers
        times = [readers[i].credit_back(credits, step) for i in decoding
                 if i in readers and readers[i].unread(readers[i].at) + step > credits]
        return min(times, default=None)

    def hold(self, i: int) -> None:
        """Request i, released (release_paused), waits out of every queue until its client has read enough."""
        until = self.readers[i].credit_back(self.credits, self.step)
        if self.ticks:
            until = math.ceil(until)  # (it comes back at an iteration boundary)
        heapq.heappush(self.held, (until, i))
        self.held_until[i] = until

    def drop(self, i: int) -> bool:
        """Request i was stopped: whether it was held (then it is in no queue)."""
        return self.held_until.pop(i, None) is not None

    def due(self, now: float) -> list[int]:
        """Released requests whose client has read enough by `now`: they go back."""
        due = []
        while self.held and self.held[0][0] <= now:
            _, i = heapq.heappop(self.held)
            if self.held_until.pop(i, None) is not None:  # (else: stopped while held)
                due.append(i)
        return due

    def next_return(self) -> float | None:
        return self.held[0][0] if self.held else None

    def emit(self, it: Iteration, end: float) -> None:
        """The tokens an iteration emitted reach their clients at `end`."""
        readers, accepted = self.readers, it.accepted
        for i in it.decoding:
            reader = readers.get(i)
            if reader is not None:
                reader.emit(end, 1 + accepted.get(i, 0) if accepted else 1)
        for i in it.prefill_emits:
            if i in readers:
                readers[i].emit(end, 1)
