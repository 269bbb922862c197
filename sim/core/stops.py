"""Stops: when each request is stopped (its `cancel_at`, its arrival + the policy's timeout, or its client's
`disconnect_at`, the earliest), in a heap, so that a plan finds the stops due in O(log n) each."""
from __future__ import annotations

import heapq

from .request import DONE, RUNNING, Phases, RequestState


class Stops:
    def __init__(self, states: list[RequestState], phases: Phases, timeout: int | None):
        self.phase = phases.of  # (read only: whether a request is done, or running)
        self.timeout = timeout
        self.heap: list[tuple[float, int]] = []  # (stop time, request)
        if timeout is None and not any(s.request.cancel_at is not None or s.request.disconnect_at is not None
                                       for s in states):
            return  # (nobody is ever stopped)
        for s in states:
            self.add(s, push=False)
        heapq.heapify(self.heap)

    def add(self, s: RequestState, push: bool = True) -> None:
        """Request s's stop, if it has one (`push`: into the heap as it is; else the caller heapifies)."""
        r, timeout = s.request, self.timeout
        stops = [(t, reason) for t, reason in ((r.cancel_at, "cancelled"), (r.disconnect_at, "disconnected"),
                                               (None if timeout is None else r.arrival + timeout, "cancelled"))
                 if t is not None]
        if stops:
            s.stop_at, s.stop_reason = min(stops)
            (heapq.heappush if push else list.append)(self.heap, (s.stop_at, s.index))

    def __bool__(self) -> bool:
        return bool(self.heap)

    def due(self, clock: float) -> list[tuple[float, int]]:
        """The stops due by `clock` of requests not done, taken out of the heap. A running request stopped at
        `clock` itself is left for the next boundary: the iteration starting now still holds it."""
        heap = self.heap
        if not heap or heap[0][0] > clock:
            return []
        due, held_back = [], []
        while heap and heap[0][0] <= clock:
            entry = heapq.heappop(heap)
            phase = self.phase[entry[1]]
            if phase == DONE:
                continue
            (held_back if phase in RUNNING and entry[0] == clock else due).append(entry)
        for entry in held_back:
            heapq.heappush(heap, entry)
        return due

    def drop_done(self) -> None:
        """The stops at the heap's top of requests done go (at an iteration's start), so a plan reads the next
        stop off the top."""
        heap = self.heap
        while heap and self.phase[heap[0][1]] == DONE:
            heapq.heappop(heap)

    def next_stop(self) -> float | None:
        """The earliest stop of a request not done yet: a run of identical iterations must not pass it (a
        running request leaves at the first boundary after it; a waiting one leaving may unblock the queue). It
        takes nothing off the heap."""
        heap, phase = self.heap, self.phase
        if not heap or phase[heap[0][1]] != DONE:
            return heap[0][0] if heap else None
        return min((stop for stop, i in heap if phase[i] != DONE), default=None)
