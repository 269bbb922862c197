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
    """One client: it reads the tokens it got, in order, at `rate` a time unit while it has any (a fluid), so all
    it needs to know is `done`, when it will have read every token it got: at t it has `rate * (done - t)` left
    to read (none from `done` on). With credits, a step fits once it holds at most `room` tokens unread, which
    it does from `full_until` on."""
    __slots__ = ("rate", "done", "arrived", "slack", "full_until")

    def __init__(self, rate: float, room: int = 0):
        self.rate = rate
        self.done = 0.0
        self.arrived = 0  # tokens it got
        self.slack = (room + _WHOLE) / rate  # how long before `done` it holds `room` unread (and a hair more)
        self.full_until = -math.inf

    def emit(self, now: float, tokens: int) -> None:
        """`tokens` arrive at `now`: it reads them once it has read the earlier ones."""
        done = self.done if self.done > now else now
        self.done = done = done + tokens / self.rate
        self.full_until = done - self.slack
        self.arrived += tokens

    def unread(self, now: float) -> int:
        """Tokens not read whole by `now`."""
        return math.ceil(self.rate * (self.done - now) - _WHOLE) if self.done > now else 0

    def sent(self, now: float) -> int:
        """Tokens read whole by `now`."""
        return self.arrived - self.unread(now)

    def room_at(self, room: int) -> float:
        """When it holds `room` tokens unread, to be read (`full_until` without the hair)."""
        return self.done - room / self.rate


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
        self.room = self.credits - self.step if self.credits is not None else 0  # unread tokens a step may find
        self.ticks = ticks
        self.checked = 0.0  # when the clients were last asked for credit
        self.readers: dict[int, Reader] = {}
        for s in states:
            self.add(s)
        self.held: list[tuple[float, int]] = []  # heap (when its client has room again, request)
        self.held_until: dict[int, float] = {}  # the requests in `held`

    def add(self, s: RequestState) -> None:
        """Request s's reader, when credits bound what its client may hold unread."""
        rate = s.timeline.read_rate
        if self.credits is not None and rate is not None:
            self.readers[s.index] = Reader(rate, self.room)

    def __bool__(self) -> bool:
        return bool(self.readers)

    def out_of_credit(self, decoding: dict, now: float) -> list[int]:
        """Decoders whose client has not read enough for another step: with `unread + tokens a step can make >
        credits` they wait."""
        readers, self.checked = self.readers, now
        return [i for i in decoding if i in readers and readers[i].full_until > now]

    def streaming(self, decoding: dict) -> bool:
        """Whether a decoder's client may run out of credit: then every iteration is planned on its own."""
        return not self.readers.keys().isdisjoint(decoding)

    def next_credit(self, decoding: dict) -> float | None:
        """When the first paused decoder's client will have read enough for another step (None: none waits)."""
        room, readers, checked = self.room, self.readers, self.checked
        return min((readers[i].room_at(room) for i in decoding if i in readers and readers[i].full_until > checked),
                   default=None)

    def hold(self, i: int) -> None:
        """Request i, released (release_paused), waits out of every queue until its client has read enough."""
        until = self.readers[i].room_at(self.room)
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
