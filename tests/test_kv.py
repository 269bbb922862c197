"""sim/core/kv.py: blocks_for and the paged KV cache's BlockManager, by hand and on random operations (hypothesis)."""
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sim.core.kv import BlockManager, blocks_for

# -- blocks_for ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("tokens", "block_size", "blocks"),
                         [(0, 4, 0), (1, 4, 1), (3, 4, 1), (4, 4, 1), (5, 4, 2), (8, 4, 2), (9, 4, 3),
                          (7, 1, 7), (1, 16, 1), (16, 16, 1), (17, 16, 2)])
def test_blocks_for(tokens, block_size, blocks):
    assert blocks_for(tokens, block_size) == blocks


@given(st.integers(0, 10_000), st.integers(1, 64))
def test_blocks_for_is_the_fewest_blocks_that_hold_the_tokens(tokens, block_size):
    blocks = blocks_for(tokens, block_size)
    assert blocks == math.ceil(tokens / block_size)
    assert blocks * block_size >= tokens  # they hold the tokens...
    assert blocks == 0 or (blocks - 1) * block_size < tokens  # ...and one block fewer would not


# -- BlockManager by hand ------------------------------------------------------------------------------------

def test_a_new_manager_has_every_block_free():
    kv = BlockManager(6, 4)
    assert (kv.num_blocks, kv.block_size, kv.free, kv.used, kv.tables) == (6, 4, 6, 0, {})
    assert (kv.held(0), kv.capacity(0)) == (0, 0)
    with pytest.raises(RuntimeError):  # no more than it holds
        kv.allocate(0, 7)
    assert kv.grow_to(0, 24) and not kv.grow_to(1, 1)  # all six blocks, then none left


def test_allocate_hands_out_the_lowest_free_ids_in_order():
    kv = BlockManager(6, 4)
    assert kv.allocate(7, 2) == [0, 1]
    assert kv.allocate(3, 3) == [2, 3, 4]
    assert kv.allocate(7, 1) == [5]  # appended to the request's table, in token order
    assert kv.tables == {7: [0, 1, 5], 3: [2, 3, 4]}
    assert (kv.free, kv.used, kv.held(7), kv.capacity(7), kv.held(3)) == (0, 6, 3, 12, 3)
    assert kv.allocate(3, 0) == [] and not kv.grow_to(3, 13)  # nothing left to take


def test_allocate_beyond_the_free_blocks_raises_and_takes_nothing():
    kv = BlockManager(3, 2)
    kv.allocate(0, 2)
    with pytest.raises(RuntimeError, match="asked for 2 blocks with 1 free"):
        kv.allocate(1, 2)
    assert (kv.free, kv.tables) == (1, {0: [0, 1]})


def test_free_request_returns_its_blocks_and_they_are_reused_lowest_first():
    kv = BlockManager(6, 4)
    kv.allocate(0, 2)  # [0, 1]
    kv.allocate(1, 2)  # [2, 3]
    kv.allocate(2, 1)  # [4]
    assert kv.free_request(1) == 2
    assert kv.free_request(0) == 2
    assert 0 not in kv.tables and 1 not in kv.tables
    assert (kv.free, kv.used) == (5, 1)
    assert kv.allocate(3, 5) == [0, 1, 2, 3, 5]  # the freed ids first, lowest first, then the never-used 5


def test_free_request_of_a_request_holding_nothing_frees_nothing():
    kv = BlockManager(2, 4)
    kv.allocate(0, 1)
    assert kv.free_request(9) == 0
    assert kv.free_request(0) == 1
    assert kv.free_request(0) == 0  # a second free finds nothing
    assert (kv.free, kv.tables) == (2, {})


def test_grow_to_takes_only_the_missing_blocks():
    kv = BlockManager(8, 4)
    assert kv.grow_to(0, 5)  # ceil(5 / 4) = 2 blocks
    assert kv.tables[0] == [0, 1]
    assert kv.grow_to(0, 8)  # 2 blocks hold 8 tokens: nothing taken
    assert (kv.tables[0], kv.free) == ([0, 1], 6)
    assert kv.grow_to(0, 3)  # fewer tokens than it holds: nothing taken, nothing given back
    assert kv.tables[0] == [0, 1]
    assert kv.grow_to(0, 9)
    assert (kv.tables[0], kv.capacity(0), kv.free) == ([0, 1, 2], 12, 5)


def test_grow_to_zero_tokens_takes_nothing():
    kv = BlockManager(2, 4)
    assert kv.grow_to(0, 0)
    assert (kv.free, kv.held(0)) == (2, 0)


def test_grow_to_takes_nothing_when_the_pool_is_short():
    kv = BlockManager(4, 2)
    kv.allocate(0, 2)
    kv.allocate(1, 1)
    assert not kv.grow_to(1, 7)  # needs 4 blocks, holds 1: 3 missing, 1 free
    assert (kv.tables, kv.free) == ({0: [0, 1], 1: [2]}, 1)
    assert not kv.grow_to(2, 3)  # a new request: 2 missing, 1 free
    assert 2 not in kv.tables and kv.free == 1
    assert kv.grow_to(1, 4)  # exactly the free block
    assert (kv.tables[1], kv.free) == ([2, 3], 0)


# -- BlockManager on random operations (hypothesis) ----------------------------------------------------------

REQUESTS = 5
operations = st.lists(st.one_of(
    st.tuples(st.just("allocate"), st.integers(0, REQUESTS - 1), st.integers(0, 6)),
    st.tuples(st.just("grow_to"), st.integers(0, REQUESTS - 1), st.integers(0, 40)),
    st.tuples(st.just("free_request"), st.integers(0, REQUESTS - 1), st.just(0)),
), max_size=60)
pools = st.tuples(st.integers(1, 16), st.integers(1, 5))  # (num_blocks, block_size)


def apply(kv, op, request, amount):
    """Do one operation; (its result, or "raised" when allocate refused)."""
    if op == "allocate":
        try:
            return kv.allocate(request, amount)
        except RuntimeError:
            return "raised"
    return kv.grow_to(request, amount) if op == "grow_to" else kv.free_request(request)


@given(pools, operations)
def test_blocks_are_never_double_allocated_and_free_plus_used_is_the_pool(pool, ops):
    num_blocks, block_size = pool
    kv = BlockManager(num_blocks, block_size)
    for op, request, amount in ops:
        held_before = kv.held(request)
        result = apply(kv, op, request, amount)
        ids = [block for table in kv.tables.values() for block in table]
        assert len(ids) == len(set(ids))  # no block in two tables, nor twice in one
        assert set(ids) <= set(range(num_blocks))
        assert kv.free + kv.used == num_blocks
        assert kv.used == len(ids) == sum(kv.held(r) for r in range(REQUESTS))
        assert 0 <= kv.free <= num_blocks
        for r in range(REQUESTS):
            assert kv.capacity(r) == kv.held(r) * block_size
        if op == "free_request":
            assert result == held_before and kv.held(request) == 0 and request not in kv.tables


@given(pools, operations)
def test_the_lowest_free_ids_are_handed_out_first(pool, ops):
    # A model of the pool kept apart: the ids free are those no table holds; a request that gets blocks gets the
    # lowest of them, in increasing order, at the end of its table.
    num_blocks, block_size = pool
    kv = BlockManager(num_blocks, block_size)
    model: dict[int, list[int]] = {}
    for op, request, amount in ops:
        free = sorted(set(range(num_blocks)) - {b for table in model.values() for b in table})
        result = apply(kv, op, request, amount)
        if op == "allocate":
            if amount > len(free):
                assert result == "raised"
            else:
                assert result == free[:amount]
                model.setdefault(request, []).extend(free[:amount])
        elif op == "grow_to":
            missing = max(0, math.ceil(amount / block_size) - len(model.get(request, [])))
            assert result == (missing <= len(free))
            if result and missing:
                model.setdefault(request, []).extend(free[:missing])
        else:
            assert result == len(model.pop(request, []))
        assert {r: t for r, t in kv.tables.items() if t} == {r: t for r, t in model.items() if t}


@given(pools, operations, st.integers(0, REQUESTS - 1), st.integers(0, 60))
def test_grow_to_takes_nothing_when_short(pool, ops, request, tokens):
    num_blocks, block_size = pool
    kv = BlockManager(num_blocks, block_size)
    for op in ops:
        apply(kv, *op)
    before = ({r: list(t) for r, t in kv.tables.items() if t}, kv.free, kv.used)
    missing = blocks_for(tokens, block_size) - kv.held(request)
    grown = kv.grow_to(request, tokens)
    after = ({r: list(t) for r, t in kv.tables.items() if t}, kv.free, kv.used)
    if missing > before[1]:
        assert not grown and after == before  # short: False, and not one block taken
    else:
        assert grown and kv.capacity(request) >= tokens
        assert kv.free == before[1] - max(0, missing)
