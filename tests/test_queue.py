"""sim/core/queue.py: MinTree and the WaitQueue's orders, by hand and against brute force (hypothesis)."""
import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.core.config import Policy
from sim.core.queue import NEVER, MinTree, WaitQueue
from sim.trace.trace import Request

ANY = NEVER - 1  # a limit every waiting request fits; NEVER itself marks a position that holds nothing


def requests(*rows):
    """Requests from (prompt, output, priority, deadline) tuples, arriving 0, 1, 2, ... (a trace's order)."""
    return tuple(Request(f"r{i}", i, *row) for i, row in enumerate(rows))


def walk(queue, limit):
    """The requests next() offers one after another under `limit`, taking none."""
    offered, position = [], -1
    while True:
        request, position = queue.next(limit, position)
        if request < 0:
            return offered
        offered.append(request)


def drain(queue, limit=ANY):
    """Take out the next request that fits until none does: the order they come out in."""
    out = []
    while True:
        request, _ = queue.next(limit)
        if request < 0:
            return out
        queue.remove(request)
        out.append(request)


# -- MinTree by hand -------------------------------------------------------------------------------------------

def test_an_empty_tree_finds_nothing():
    tree = MinTree(5)
    assert tree.size == 8  # rounded up to a power of two
    assert tree.first(ANY) == -1 and tree.first(0, 3) == -1


def test_first_finds_the_first_position_from_start_within_the_limit():
    tree = MinTree(10)
    for position, cost in [(2, 7), (3, 4), (6, 2), (9, 4)]:
        tree.set(position, cost)
    assert tree.first(10) == 2
    assert tree.first(4) == 3
    assert tree.first(3) == 6
    assert tree.first(1) == -1
    assert tree.first(4, start=4) == 6
    assert tree.first(4, start=7) == 9
    assert tree.first(4, start=9) == 9
    assert tree.first(4, start=10) == -1
    assert tree.first(4, start=16) == -1  # past the tree


def test_set_raises_and_lowers_a_cost():
    tree = MinTree(4)
    tree.set(1, 3)
    tree.set(2, 5)
    tree.set(1, NEVER)  # taken out
    assert tree.first(4) == -1 and tree.first(5) == 2
    tree.set(2, 9)  # raised
    assert tree.first(5) == -1 and tree.first(9) == 2
    tree.set(2, 1)  # lowered
    assert tree.first(1) == 2


def test_a_tree_of_one():
    tree = MinTree(1)
    assert tree.first(ANY) == -1
    tree.set(0, 0)
    assert tree.first(0) == 0 and tree.first(0, 1) == -1


# -- MinTree against a brute-force scan (hypothesis) -----------------------------------------------------------

costs = st.integers(0, 12) | st.just(NEVER)


@given(st.integers(1, 40).flatmap(lambda n: st.tuples(st.just(n), st.lists(st.one_of(
    st.tuples(st.just("set"), st.integers(0, n - 1), costs),
    st.tuples(st.just("first"), st.integers(0, 12) | st.just(ANY), st.integers(0, n + 3)),
), max_size=80))))
def test_min_tree_first_agrees_with_a_scan(case):
    n, ops = case
    tree, cost = MinTree(n), [NEVER] * n
    for op, a, b in ops:
        if op == "set":
            tree.set(a, b)
            cost[a] = b
        else:
            limit, start = a, b
            expected = next((p for p in range(start, n) if cost[p] <= limit), -1)
            assert tree.first(limit, start) == expected
            assert tree.first(limit) == next((p for p in range(n) if cost[p] <= limit), -1)


# -- WaitQueue by hand ---------------------------------------------------------------------------------------------

def test_push_remove_len_contains_and_cost():
    queue = WaitQueue(requests((2, 1, 0, None), (3, 1, 0, None), (4, 1, 0, None)), Policy())
    assert len(queue) == 0 and 0 not in queue and queue.cost(0) == NEVER
    queue.push(2, 4)
    queue.push(0, 2)
    assert len(queue) == 2 and 0 in queue and 2 in queue and 1 not in queue
    assert (queue.cost(0), queue.cost(2)) == (2, 4)
    queue.remove(0)
    assert len(queue) == 1 and 0 not in queue and queue.cost(0) == NEVER
    assert drain(queue) == [2]
    assert len(queue) == 0


def test_fcfs_skip_passes_a_request_that_does_not_fit():
    queue = WaitQueue(requests((5, 1, 0, None), (2, 1, 0, None), (3, 1, 0, None)), Policy(order="fcfs-skip"))
    for i, cost in enumerate((5, 2, 3)):
        queue.push(i, cost)
    assert queue.next(3) == (1, 1)
    assert queue.next(3, 1) == (2, 2)
    assert queue.next(3, 2) == (-1, -1)
    assert walk(queue, 1) == [] and walk(queue, 5) == [0, 1, 2]
    assert not queue.head_of_line


def test_fcfs_blocks_at_the_head_of_the_line():
    queue = WaitQueue(requests((5, 1, 0, None), (2, 1, 0, None), (3, 1, 0, None)), Policy(order="fcfs"))
    for i, cost in enumerate((5, 2, 3)):
        queue.push(i, cost)
    assert queue.head_of_line
    assert queue.next(3) == (-1, -1)  # the head costs 5: nothing behind it runs
    assert walk(queue, 5) == [0, 1, 2]
    queue.remove(0)
    assert queue.next(3) == (1, 1)
    assert queue.next(2, 1) == (-1, -1)  # the new head after 1, request 2, costs 3
    assert walk(queue, 3) == [1, 2]


def test_priority_order_lower_value_first_ties_by_arrival():
    queue = WaitQueue(requests((1, 1, 2, None), (1, 1, 0, None), (1, 1, 1, None), (1, 1, 0, None)),
                      Policy(order="priority"))
    for i in range(4):
        queue.push(i, 1)
    assert walk(queue, 1) == [1, 3, 2, 0]
    assert queue.ahead(1, 3, 0) and queue.ahead(2, 0, 0) and not queue.ahead(0, 1, 0)


@pytest.mark.parametrize(("sjf_key", "expected"), [("prompt", [1, 2, 0]), ("output", [2, 0, 1])])
def test_sjf_by_prompt_or_output(sjf_key, expected):
    queue = WaitQueue(requests((5, 2, 0, None), (1, 9, 0, None), (3, 1, 0, None)), Policy(order="sjf", sjf_key=sjf_key))
    for i in range(3):
        queue.push(i, 1)
    assert drain(queue) == expected


def test_edf_earliest_deadline_first_none_last():
    queue = WaitQueue(requests((1, 1, 0, None), (1, 1, 0, 9), (1, 1, 0, 5), (1, 1, 0, None), (1, 1, 0, 5)),
                      Policy(order="edf"))
    for i in range(5):
        queue.push(i, 1)
    assert drain(queue) == [2, 4, 1, 0, 3]


def test_aging_orders_by_priority_minus_the_credit_of_the_wait():
    # At 4, at rate 1: r0 (priority 3, arrived 0) scores 3 - 4 = -1, r1 (0, arrived 1) -3, r2 (0, arrived 4) 0.
    rows = (Request("r0", 0, 1, 1, 3), Request("r1", 1, 1, 1, 0), Request("r2", 4, 1, 1, 0))
    queue = WaitQueue(rows, Policy(order="aging", aging_rate=1.0))
    assert queue.aging == 1.0 and not queue.head_of_line
    for i in range(3):
        queue.push(i, 1)
    assert queue.waiting == {0, 1, 2}
    queue.refresh(4)
    assert walk(queue, 1) == [1, 0, 2]
    assert queue.ahead(1, 0, 4) and queue.ahead(0, 2, 4) and not queue.ahead(2, 0, 4)


def test_aging_at_a_lower_rate_keeps_more_of_the_priority_order():
    # At 4, at rate 0.5: r0 scores 3 - 2 = 1, r1 0 - 1.5, r2 0 - 0: the old low-priority r0 now comes last.
    rows = (Request("r0", 0, 1, 1, 3), Request("r1", 1, 1, 1, 0), Request("r2", 4, 1, 1, 0))
    queue = WaitQueue(rows, Policy(order="aging", aging_rate=0.5))
    for i in range(3):
        queue.push(i, 1)
    queue.refresh(4)
    assert walk(queue, 1) == [1, 2, 0]
    assert queue.ahead(2, 0, 4)


def test_aging_skips_a_request_that_does_not_fit_and_a_removed_one():
    rows = (Request("r0", 0, 1, 1, 0), Request("r1", 1, 1, 1, 0), Request("r2", 2, 1, 1, 0))
    queue = WaitQueue(rows, Policy(order="aging", aging_rate=1.0))
    for i, cost in enumerate((5, 2, 2)):
        queue.push(i, cost)
    queue.refresh(2)
    assert walk(queue, 2) == [1, 2]
    queue.remove(1)
    assert walk(queue, 2) == [2] and queue.waiting == {0, 2}
    assert drain(queue) == [0, 2]


def test_aging_push_after_a_refresh_takes_its_place_in_that_step_s_order():
    # Refreshed at 10 with r0 (scores 5 - 10 = -5) and r1 (5 - 9 = -4); r2 comes in afterwards and scores
    # 0 - 8 = -8: it goes first in this step's order.
    rows = (Request("r0", 0, 1, 1, 5), Request("r1", 1, 1, 1, 5), Request("r2", 2, 1, 1, 0))
    queue = WaitQueue(rows, Policy(order="aging", aging_rate=1.0))
    queue.push(0, 1)
    queue.push(1, 1)
    queue.refresh(10)
    assert walk(queue, 1) == [0, 1]
    queue.push(2, 1)
    assert walk(queue, 1) == [2, 0, 1]


# -- every order against a sort of our own (hypothesis) ----------------------------------------------------------

ORDERS = [dict(order="fcfs-skip"), dict(order="fcfs"), dict(order="priority"), dict(order="sjf", sjf_key="prompt"),
          dict(order="sjf", sjf_key="output"), dict(order="edf"), dict(order="aging", aging_rate=0.0),
          dict(order="aging", aging_rate=0.5), dict(order="aging", aging_rate=3.0)]
EACH_ORDER = settings(max_examples=50)  # for a property run once for each order


def order_id(options):
    return ",".join(str(v) for v in options.values())


@st.composite
def queues(draw):
    """(requests sorted by arrival, each one's admission cost, the time of the step)."""
    n = draw(st.integers(1, 25))
    arrivals = sorted(draw(st.lists(st.integers(0, 20), min_size=n, max_size=n)))
    rows = tuple(Request(f"r{i}", arrival, draw(st.integers(1, 8)), draw(st.integers(1, 8)), draw(st.integers(0, 3)),
                         draw(st.none() | st.integers(0, 30))) for i, arrival in enumerate(arrivals))
    return rows, draw(st.lists(st.integers(0, 9), min_size=n, max_size=n)), draw(st.integers(20, 40))


def expected_order(rows, options, now):
    """The policy's order, worked out from the requests' fields alone (ties: the earlier arrival in the trace)."""
    order = options["order"]

    def key(i):
        request = rows[i]
        if order == "priority":
            return request.priority, i
        if order == "sjf":
            return (request.prompt if options["sjf_key"] == "prompt" else request.output), i
        if order == "edf":
            return (float("inf") if request.deadline is None else request.deadline), i
        if order == "aging":
            return request.priority - options["aging_rate"] * (now - request.arrival), i
        return i  # fcfs-skip, fcfs: arrival order, and the trace is sorted by arrival

    return sorted(range(len(rows)), key=key)


def filled(rows, costs, options, now, waiting=None):
    queue = WaitQueue(rows, Policy(**options))
    for i in range(len(rows)) if waiting is None else waiting:
        queue.push(i, costs[i])
    if queue.aging is not None:
        queue.refresh(now)
    return queue


@pytest.mark.parametrize("options", ORDERS, ids=order_id)
@EACH_ORDER
@given(case=queues())
def test_requests_come_out_in_the_policy_s_order(options, case):
    rows, costs, now = case
    order = expected_order(rows, options, now)
    queue = filled(rows, costs, options, now)
    assert len(queue) == len(rows)
    for a, b in itertools.pairwise(order):
        assert queue.ahead(a, b, now) and not queue.ahead(b, a, now)
    assert drain(queue) == order
    assert len(queue) == 0 and not any(i in queue for i in range(len(rows)))


@pytest.mark.parametrize("options", ORDERS, ids=order_id)
@EACH_ORDER
@given(case=queues(), limit=st.integers(0, 9))
def test_next_offers_those_that_fit_and_fcfs_stops_at_the_head(options, case, limit):
    rows, costs, now = case
    order = expected_order(rows, options, now)
    queue = filled(rows, costs, options, now)
    if options["order"] == "fcfs":  # head-of-line: the requests in order until the first that does not fit
        expected = list(itertools.takewhile(lambda i: costs[i] <= limit, order))
    else:  # the others skip a request that does not fit
        expected = [i for i in order if costs[i] <= limit]
    assert walk(queue, limit) == expected
    assert len(queue) == len(rows)  # next() takes nothing out
    # the scheduler's walk: take each request offered, go on from its position
    taken, position = [], -1
    while True:
        request, position = queue.next(limit, position)
        if request < 0:
            break
        queue.remove(request)
        taken.append(request)
    assert taken == expected
    assert sorted(i for i in range(len(rows)) if i in queue) == sorted(set(range(len(rows))) - set(expected))


@pytest.mark.parametrize("options", ORDERS, ids=order_id)
@EACH_ORDER
@given(case=queues(), ops=st.lists(st.tuples(st.integers(0, 24), st.integers(0, 9)), max_size=60))
def test_push_and_remove_keep_the_waiting_set(options, case, ops):
    # Each op toggles a request: pushed (at a new cost) if it is not waiting, removed if it is.
    rows, costs, now = case
    costs = list(costs)
    queue = filled(rows, costs, options, now, waiting=())
    waiting: set[int] = set()
    for request, cost in ops:
        request %= len(rows)
        if request in waiting:
            queue.remove(request)
            waiting.discard(request)
        else:
            queue.push(request, cost)
            costs[request] = cost
            waiting.add(request)
        assert len(queue) == len(waiting)
        assert all((i in queue) == (i in waiting) for i in range(len(rows)))
        assert all(queue.cost(i) == (costs[i] if i in waiting else NEVER) for i in range(len(rows)))
    if queue.aging is not None:  # refreshed at `now` before the first push: each push kept that step's order
        assert queue.waiting == waiting
    assert drain(queue) == [i for i in expected_order(rows, options, now) if i in waiting]


@pytest.mark.parametrize("options", ORDERS, ids=order_id)
@EACH_ORDER
@given(case=queues(), data=st.data())
def test_quota_groups_pass_over_a_tenant_out_of_room(options, case, data):
    # Under tenant quotas each quota tenant's requests sit in a tree of their own: next() offers, in the
    # policy's order, those whose cost is within the limit and within their group's room.
    rows, costs, now = case
    groups = data.draw(st.lists(st.integers(0, 2), min_size=len(rows), max_size=len(rows)))
    rooms = [NEVER, *data.draw(st.lists(st.integers(0, 9), min_size=2, max_size=2))]
    limit = data.draw(st.integers(0, 9))
    queue = WaitQueue(rows, Policy(**options), groups)
    for i in range(len(rows)):
        queue.push(i, costs[i])
    if queue.aging is not None:
        queue.refresh(now)
    assert all(queue.cost(i) == costs[i] for i in range(len(rows)))
    fits = [costs[i] <= min(limit, rooms[groups[i]]) for i in expected_order(rows, options, now)]
    order = expected_order(rows, options, now)
    if options["order"] == "fcfs":
        expected = [i for i, _ in itertools.takewhile(lambda pair: pair[1], zip(order, fits))]
    else:
        expected = [i for i, fit in zip(order, fits) if fit]
    offered, position = [], -1
    while (found := queue.next(limit, position, rooms))[0] >= 0:
        request, position = found
        offered.append(request)
    assert offered == expected
