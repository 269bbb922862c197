"""The KV side of the scheduler, a part with its own state: the paged block pool (blocks taken and freed, and drawn
on each request's timeline), overcommit's growth before each decode round, and swap's queues and block copies.
The scheduler (sim.core.scheduler) calls it with explicit arguments and decides what a shortage does (preemption).
"""
from __future__ import annotations

import heapq
from collections.abc import Iterator

from ..trace.trace import Request
from .config import Config, Policy
from .kv import BlockManager, PrefixCache, Tables, blocks_for
from .prefix import block_keys, iter_block_keys
from .queue import NEVER
from .request import RequestState


class Memory:
    """The block pool (`pool`, None without a KV cache), overcommit's growth heap and swap's queues."""

    def __init__(self, config: Config, policy: Policy, states: list[RequestState]):
        self.config, self.states = config, states
        self.block_size = config.block_size
        pool = PrefixCache if policy.prefix_cache else BlockManager
        self.pool = pool(config.kv_blocks, config.block_size) if config.kv_blocks else None
        self.prefix = self.pool if policy.prefix_cache else None  # the pool, when it caches prefixes
        # prefix caching: how many of each request's first blocks the pool remembers already (their keys stay
        # theirs while it holds them: only a free block is taken for other tokens), so a block is remembered
        # once, not again with every chunk after it
        self.remembered: dict[int, int] = {}
        self.overcommit = self.pool is not None and policy.kv_admission in ("overcommit", "chunk")
        self.block_due: list[tuple[int, int]] = []  # overcommit: heap (decode round needing a block, request)
        self.swapped: list[int] = []  # heap of swapped-out requests waiting to come back (earliest arrival first)
        self.swap_done: list[tuple[float, int]] = []  # heap (when its swap-in ends, request)
        # swap's block copies since the last committed iteration, which carries them (Iteration.swapped_out, .in)
        self.copies_out: dict[int, list[int]] = {}
        self.copies_in: dict[int, list[int]] = {}

    # -- blocks -------------------------------------------------------------------------------------------------
    def held(self, i: int) -> int:
        return self.pool.held(i) if self.pool is not None else 0

    @property
    def free_count(self) -> int:
        """Free blocks (0 without a KV cache)."""
        return self.pool.free if self.pool is not None else 0

    @property
    def used(self) -> int:
        return self.pool.used

    def capacity(self, i: int) -> int:
        """Tokens request i's blocks can hold."""
        return self.pool.capacity(i)

    def table(self, i: int) -> list[int]:
        """Request i's block ids (the pool's own list: read it before the request frees them)."""
        return self.pool.tables.get(i, []) if self.pool is not None else []

    def tables(self) -> Tables | None:
        """Each request's block ids now, as they will stay for whoever holds them (sim.core.kv.Tables)."""
        return Tables(self.pool) if self.pool is not None else None

    def short(self, tokens: int) -> bool:
        """Whether `tokens` tokens need more blocks than are free."""
        return self.pool is not None and blocks_for(tokens, self.block_size) > self.pool.free

    def never_fits(self, tokens: int) -> bool:
        return self.pool is not None and blocks_for(tokens, self.block_size) > self.pool.num_blocks

    def take(self, i: int, tokens: int, now: float) -> bool:
        """Grow request i's blocks to hold `tokens` tokens; False (nothing taken) if the pool is short."""
        pool = self.pool
        if pool is None:
            return True
        held = pool.held(i)
        if not pool.grow_to(i, tokens):
            return False
        grown = pool.held(i)
        if grown != held:
            self.states[i].timeline.kv.append((now, grown))
        return True

    def take_prompt(self, i: int, tokens: int | None, now: float, keep_all: bool = False) -> int:
        """Admission: request i takes the blocks for `tokens` tokens (None: only the cached ones); with prefix
        caching its leading blocks the cache holds are shared, not computed (`hit`). The tokens found cached
        (they skip prefill)."""
        if self.prefix is None:
            if tokens:
                self.take(i, tokens, now)
            return 0
        found = self.prefix.share(i, self.hit(i, keep_all))
        if tokens:
            self.take(i, tokens, now)  # (its blocks are found once their prefill is planned: Continuous.prefill)
        cached = found * self.block_size
        timeline = self.states[i].timeline
        timeline.queried += self.states[i].target
        timeline.cached += cached
        if timeline.preemptions:  # (a recompute prefills again only what the cache did not keep)
            timeline.recomputed -= cached
        return cached

    def hit(self, i: int, keep_all: bool = False) -> list[object]:
        """The keys of the cached blocks waiting request i would share: the leading blocks of its prefill the
        prefix cache holds, but never all of it: then the last block is computed again, as vLLM's lookup stops
        a token short of the end (`keep_all`: all of it, as nano-vllm)."""
        if not self.may_be_cached(i):
            return []
        target = self.states[i].target
        keys = self.prefix.found(self.iter_block_keys(i, target))
        if keys and len(keys) * self.block_size >= target and not keep_all:
            keys.pop()
        return keys

    def hit_held(self, i: int) -> tuple[int, int]:
        """Waiting request i's prefix-cache hit: (the tokens it covers, how many of its blocks another request
        holds now). Sharing a held block takes no free block; a free cached one leaves the free queue, so it
        counts, as in vLLM's `get_num_blocks_to_allocate`."""
        if self.prefix is None:
            return 0, 0
        keys = self.hit(i)
        return len(keys) * self.block_size, self.prefix.held_by_others(keys)

    def free(self, i: int, computed: int, now: float) -> None:
        """Request i frees its blocks at `now`; with prefix caching its full blocks of `computed` tokens stay
        findable."""
        if self.pool is not None and self.pool.held(i):
            if self.prefix is not None:
                self.remember(i, computed)
                self.remembered.pop(i, None)
            self.pool.free_request(i)
            self.states[i].timeline.kv.append((now, 0))

    def remember(self, i: int, tokens: int) -> None:
        """Prefix caching: request i's blocks of its first `tokens` tokens can be found from now on (those it
        remembered already are not looked at again: a prefill in chunks costs each chunk its own blocks)."""
        start, end, held = self.remembered.get(i, 0), tokens // self.block_size, self.pool.held(i)
        if end > held:
            end = held
        if end > start:
            self.prefix.remember(i, self.block_keys(i, end * self.block_size, start), start)
            self.remembered[i] = end

    def found_prefix(self, i: int) -> int:
        """Tokens of waiting request i's prefill the prefix cache holds now (what lpm orders by)."""
        if not self.may_be_cached(i):
            return 0
        return self.prefix.cached(self.iter_block_keys(i, self.states[i].target)) * self.block_size

    def shares(self, i: int) -> bool:
        """Whether request i's prompt has blocks other requests may compute too (hash_ids, or text: sim.core.
        prefix). Else each of its keys is its own, which only it, once preempted, looks up."""
        request = self.states[i].request
        return request.hash_ids is not None or request.text is not None

    def may_be_cached(self, i: int) -> bool:
        """Whether a block of request i's can be in the prefix cache: it shares (`shares`), or it computed blocks
        of its own before (it held blocks once, and was preempted). Else no look-up is made."""
        return self.shares(i) or bool(self.states[i].timeline.kv)

    def block_keys(self, i: int, tokens: int, start: int = 0) -> list[object]:
        request: Request = self.states[i].request
        return block_keys(request, i, tokens, self.block_size, self.config.prefix_block, start)

    def iter_block_keys(self, i: int, tokens: int) -> Iterator[object]:
        """Request i's keys one at a time, for a look-up that stops at the first the pool lacks."""
        request: Request = self.states[i].request
        return iter_block_keys(request, i, tokens, self.block_size, self.config.prefix_block)

    # -- overcommit's growth ------------------------------------------------------------------------------------
    def watch(self, i: int, fed: int, round_now: int) -> None:
        """Overcommit: note the decode round whose `fed` tokens no longer fit request i's blocks."""
        s = self.states[i]
        s.block_round = round_now + max(0, self.pool.capacity(i) - fed + 1)
        heapq.heappush(self.block_due, (s.block_round, i))

    def next_due(self, round_now: int, decoding: dict) -> int:
        """The next decoder whose fed tokens need a new block by `round_now` (-1: none); entries of requests that
        left the decode rounds or were noted again since are stale and dropped."""
        heap, states = self.block_due, self.states
        while heap and heap[0][0] <= round_now:
            due, i = heapq.heappop(heap)
            if i in decoding and due == states[i].block_round:
                return i
        return -1

    def noted(self, due: int, i: int, decoding: dict) -> bool:
        """Whether a growth heap entry is decoder i's as now noted (else it is stale)."""
        return i in decoding and due == self.states[i].block_round

    def drop_stale(self, decoding: dict) -> None:
        """Stale entries at the growth heap's top go (at an iteration's start), so a plan reads the next off it."""
        heap, states = self.block_due, self.states
        while heap and (heap[0][1] not in decoding or heap[0][0] != states[heap[0][1]].block_round):
            heapq.heappop(heap)

    def rounds_to_next_block(self, round_now: int, decoding: dict) -> int:
        """Overcommit: decode rounds until a decoder needs another block (the heap's top is not stale after
        `drop_stale`; should a plan have made it so, the first entry noted is found without taking any off)."""
        heap = self.block_due
        if heap and self.noted(*heap[0], decoding):
            return heap[0][0] - round_now
        noted = [due for due, i in heap if self.noted(due, i, decoding)]
        return min(noted) - round_now if noted else NEVER

    # -- swap ---------------------------------------------------------------------------------------------------
    def swap_out(self, i: int, table: list[int] | None, held: int) -> None:
        """Request i's `held` blocks (`table`, freed just now: an executor copies them out first) go to host
        memory."""
        if table is not None:
            self.copies_out[i] = table
        self.states[i].swapped_blocks = held

    def wait_swapped(self, i: int) -> None:
        heapq.heappush(self.swapped, i)

    def waiting_swapped(self) -> bool:
        """Whether a swapped-out request waits to come back (then nothing queued passes it)."""
        return bool(self.swapped)

    def unswap(self, i: int) -> None:
        """Swapped-out request i leaves the swap-in queue (it was stopped)."""
        self.swapped.remove(i)
        heapq.heapify(self.swapped)

    def next_swap_in(self) -> int:
        """The swapped-out request that comes back next, if the blocks it needs are free (-1: none, or it waits)."""
        if not self.swapped:
            return -1
        i = self.swapped[0]
        if self.pool is not None and self.states[i].swapped_blocks > self.pool.free:
            return -1
        return i

    def swap_in(self, i: int, now: float, swap_cost: int) -> None:
        """Request i's blocks come back: it takes them now, and the copy ends `swap_cost` later."""
        heapq.heappop(self.swapped)
        self.take(i, self.states[i].swapped_blocks * self.block_size, now)
        if self.pool is not None:
            self.copies_in[i] = list(self.pool.tables.get(i, ()))
        heapq.heappush(self.swap_done, (now + swap_cost, i))  # done at a later plan, never this one

    def swaps_done(self, now: float) -> list[int]:
        """Swap-ins whose copy ended by `now`, in the order they end."""
        done = []
        while self.swap_done and self.swap_done[0][0] <= now:
            done.append(heapq.heappop(self.swap_done)[1])
        return done

    def stop_swap_in(self, i: int) -> None:
        self.swap_done = [(t, j) for t, j in self.swap_done if j != i]
        heapq.heapify(self.swap_done)

    def next_swap_end(self) -> float | None:
        return self.swap_done[0][0] if self.swap_done else None

    def hand_copies(self) -> tuple[dict, dict]:
        """The block copies made since the last committed iteration, for the one being planned to carry."""
        return dict(self.copies_out), dict(self.copies_in)

    def copies_made(self) -> None:
        """The iteration that carried the copies committed: later ones start afresh."""
        if self.copies_out or self.copies_in:
            self.copies_out, self.copies_in = {}, {}
