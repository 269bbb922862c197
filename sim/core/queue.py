"""The waiting queue: requests in the policy's order, and a quick way to the next one that fits.

Orders that do not change while a request waits (arrival, priority, job size, deadline) rank every request
once; a min-tree over the ranks holds the admission cost (the budget a request needs) of those waiting, so
the first one that fits is found in O(log n). Aging changes the order as time passes: it sorts the few
waiting requests again at each scheduling step.
"""
from __future__ import annotations

from ..trace.trace import Request
from .config import Policy

NEVER = 1 << 62


class MinTree:
    """Costs by position; finds the first position from `start` whose cost is at most a limit in O(log n)."""

    def __init__(self, n: int):
        self.size = 1 << max(0, (n - 1).bit_length())
        self.tree = [NEVER] * (2 * self.size)

    def set(self, position: int, cost: int) -> None:
        i = position + self.size
        tree = self.tree
        if cost <= tree[i]:  # lowered (a request comes in): each ancestor above the new cost takes it
            tree[i] = cost
            i >>= 1
            while i and tree[i] > cost:
                tree[i] = cost
                i >>= 1
            return
        tree[i] = cost
        while i > 1:
            i >>= 1
            left, right = tree[2 * i], tree[2 * i + 1]
            low = left if left < right else right
            if tree[i] == low:
                break
            tree[i] = low

    def first(self, limit: int, start: int = 0) -> int:
        """The first position >= start whose cost is <= limit, or -1."""
        tree, size = self.tree, self.size
        if tree[1] > limit or start >= size:
            return -1
        i = start + size if start else 1  # from the root when the whole range is searched
        while tree[i] > limit:  # climb to the next subtree that holds a fit, to the right of start
            while i & 1:
                i >>= 1
            if i == 0:
                return -1
            i += 1
        while i < size:
            i = 2 * i if tree[2 * i] <= limit else 2 * i + 1
        return i - size


def _static_key(request: Request, index: int, policy: Policy):
    if policy.order == "priority":
        return request.priority, index
    if policy.order == "sjf":
        return (request.prompt if policy.sjf_key == "prompt" else request.output), index
    return (NEVER if request.deadline is None else request.deadline), index  # edf


class WaitQueue:
    """Waiting requests in policy order. `next(limit, after)` walks them: the next one after position
    `after` whose admission cost is at most `limit` (head-of-line blocking: the head, whatever it costs).
    A request's cost lives in its tree leaf (NEVER when it is not waiting)."""

    def __init__(self, requests: tuple[Request, ...], policy: Policy):
        self.requests = requests
        self.head_of_line = policy.order == "fcfs"
        self.aging = policy.aging_rate if policy.order == "aging" else None
        if policy.order in ("fcfs", "fcfs-skip", "aging"):  # a trace is sorted by arrival: rank is the index
            self.by_rank = self.rank = list(range(len(requests)))
        else:
            self.by_rank = sorted(range(len(requests)), key=lambda i: _static_key(requests[i], i, policy))
            self.rank = [0] * len(requests)
            for position, i in enumerate(self.by_rank):
                self.rank[i] = position
        self.tree = MinTree(len(requests))
        self.count = 0
        self.waiting: set[int] = set()  # kept for aging, which sorts them again at every step
        self._sorted: list[int] | None = None  # aging: this step's order, made at time _now
        self._now = 0.0

    def __len__(self) -> int:
        return self.count

    def cost(self, request: int) -> int:
        return self.tree.tree[self.rank[request] + self.tree.size]

    def __contains__(self, request: int) -> bool:
        return self.cost(request) < NEVER

    def push(self, request: int, cost: int) -> None:
        self.count += 1
        self.tree.set(self.rank[request], cost)
        if self.aging is not None:
            self.waiting.add(request)
            if self._sorted is not None:  # keep this step's order: re-sort at the time it was made for
                self.refresh(self._now)

    def remove(self, request: int) -> None:
        self.count -= 1
        self.tree.set(self.rank[request], NEVER)
        self.waiting.discard(request)

    def refresh(self, now: float) -> None:
        """Aging: order the waiting requests by priority minus the credit their wait has earned."""
        requests, rate = self.requests, self.aging
        credit = {i: requests[i].priority - rate * (now - requests[i].arrival) for i in self.waiting}
        self._sorted, self._now = sorted(self.waiting, key=lambda i: (credit[i], i)), now

    def ahead(self, i: int, j: int, now: float) -> bool:
        """Whether request i comes before request j in this queue's order at `now`."""
        if self.aging is not None:
            requests, rate = self.requests, self.aging
            return ((requests[i].priority - rate * (now - requests[i].arrival), i)
                    < (requests[j].priority - rate * (now - requests[j].arrival), j))
        return self.rank[i] < self.rank[j]

    def next(self, limit: int, after: int = -1) -> tuple[int, int]:
        """(request, position) of the next candidate after position `after`, or (-1, -1)."""
        if self._sorted is not None:
            for position in range(after + 1, len(self._sorted)):
                request = self._sorted[position]
                if self.cost(request) <= limit:
                    return request, position
                if self.head_of_line:
                    break
            return -1, -1
        position = self.tree.first(NEVER - 1 if self.head_of_line else limit, after + 1)
        if position < 0:
            return -1, -1
        request = self.by_rank[position]
        if self.cost(request) > limit:  # head-of-line: the head does not fit, so nothing behind it runs
            return -1, -1
        return request, position
