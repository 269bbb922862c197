"""The waiting queue: requests in the policy's order, and a quick way to the next one that fits.

Orders that do not change while a request waits (arrival, priority, job size, deadline) rank every request
once; a min-tree over the ranks holds the admission cost (the budget a request needs) of those waiting, so
the first one that fits is found in O(log n). Aging changes the order as time passes: it sorts the few
waiting requests again at each scheduling step. Under tenant quotas each tenant with a quota has a tree of its
own (the rest share one), so a tenant out of room is passed over at once, not request by request.
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

    def __init__(self, requests: tuple[Request, ...], policy: Policy, groups: list[int] | None = None):
        """`groups`: each request's tree (0 for requests under no quota, g for the g-th tenant with one)."""
        self.requests = requests
        self.head_of_line = policy.order in ("fcfs", "lpm")
        self.aging = policy.aging_rate if policy.order == "aging" else None
        # lpm: a function giving a waiting request's prefix found in the cache (the scheduler sets it)
        self.prefix_found = None
        if policy.order in ("fcfs", "fcfs-skip", "aging", "lpm"):  # a trace is sorted by arrival: rank is the index
            self.by_rank = self.rank = list(range(len(requests)))
        else:
            self.by_rank = sorted(range(len(requests)), key=lambda i: _static_key(requests[i], i, policy))
            self.rank = [0] * len(requests)
            for position, i in enumerate(self.by_rank):
                self.rank[i] = position
        self.group = groups
        self.trees = [MinTree(len(requests)) for _ in range(1 + max(groups or [0]))]
        self.tree = self.trees[0]
        self.count = 0
        self.waiting: set[int] = set()  # kept for aging, which sorts them again at every step
        self._sorted: list[int] | None = None  # aging: this step's order, made at time _now
        self._now = 0.0

    def __len__(self) -> int:
        return self.count

    def tree_of(self, request: int) -> MinTree:
        return self.trees[self.group[request]] if self.group else self.tree

    def cost(self, request: int) -> int:
        tree = self.tree_of(request)
        return tree.tree[self.rank[request] + tree.size]

    def __contains__(self, request: int) -> bool:
        return self.cost(request) < NEVER

    def push(self, request: int, cost: int) -> None:
        self.count += 1
        (self.trees[self.group[request]] if self.group else self.tree).set(self.rank[request], cost)
        if self.aging is not None or self.prefix_found is not None:  # (sorts)
            self.waiting.add(request)
            if self._sorted is not None:  # keep this step's order: re-sort at the time it was made for
                self.refresh(self._now)

    def remove(self, request: int) -> None:
        self.count -= 1
        (self.trees[self.group[request]] if self.group else self.tree).set(self.rank[request], NEVER)
        if self.waiting:
            self.waiting.discard(request)

    @property
    def sorts(self) -> bool:
        """Whether the order changes while requests wait (aging, lpm): then it is made again at every step."""
        return self.aging is not None or self.prefix_found is not None

    def refresh(self, now: float) -> None:
        """Aging: order the waiting requests by priority minus the credit their wait has earned. lpm: by the
        prefix the cache holds for each, longest first, in arrival order among equals; past 128 waiting, in
        arrival order alone (SGLang turns the costly matching off then)."""
        if self.prefix_found is not None:
            found = dict.fromkeys(self.waiting, 0) if len(self.waiting) > 128 else \
                {i: -self.prefix_found(i) for i in self.waiting}
            self._sorted, self._now = sorted(self.waiting, key=lambda i: (found[i], i)), now
            return
        requests, rate = self.requests, self.aging
        credit = {i: requests[i].priority - rate * (now - requests[i].arrival) for i in self.waiting}
        self._sorted, self._now = sorted(self.waiting, key=lambda i: (credit[i], i)), now

    def ahead(self, i: int, j: int, now: float) -> bool:
        """Whether request i comes before request j in this queue's order at `now`."""
        if self.prefix_found is not None:
            return (-self.prefix_found(i), i) < (-self.prefix_found(j), j)
        if self.aging is not None:
            requests, rate = self.requests, self.aging
            return ((requests[i].priority - rate * (now - requests[i].arrival), i)
                    < (requests[j].priority - rate * (now - requests[j].arrival), j))
        return self.rank[i] < self.rank[j]

    def next(self, limit: int, after: int = -1, rooms: list[int] | None = None) -> tuple[int, int]:
        """(request, position) of the next candidate after position `after`, or (-1, -1). `rooms`: under
        quotas, the most each tree's requests may cost (their tenant's room), besides `limit`."""
        if self._sorted is not None:
            for position in range(after + 1, len(self._sorted)):
                request = self._sorted[position]
                if self.cost(request) <= self.limit(request, limit, rooms):
                    return request, position
                if self.head_of_line:
                    break
            return -1, -1
        if len(self.trees) == 1:  # (no quotas: one tree, its leaf at the position holds the request's cost)
            tree = self.tree
            position = tree.first(NEVER - 1 if self.head_of_line else limit, after + 1)
            if position < 0 or tree.tree[position + tree.size] > limit:  # head-of-line: the head does not fit
                return -1, -1
            return self.by_rank[position], position
        if self.head_of_line:
            position = self.first(NEVER - 1, after + 1, None)
        else:
            position = self.first(limit, after + 1, rooms)
        if position < 0:
            return -1, -1
        request = self.by_rank[position]
        if self.cost(request) > self.limit(request, limit, rooms):  # head-of-line: the head does not fit
            return -1, -1
        return request, position

    def limit(self, request: int, limit: int, rooms: list[int] | None) -> int:
        return min(limit, rooms[self.group[request]]) if rooms else limit

    def first(self, limit: int, start: int, rooms: list[int] | None) -> int:
        """The first position from `start` of a request that costs at most `limit` (and its tree's room)."""
        if len(self.trees) == 1:
            return self.tree.first(limit, start)
        found = [p for g, tree in enumerate(self.trees)
                 if (p := tree.first(min(limit, rooms[g]) if rooms else limit, start)) >= 0]
        return min(found) if found else -1
