"""Paged KV cache bookkeeping: a fixed pool of blocks and the block table of every request that holds some.

The same manager serves the simulator and the real engine, so the blocks the lab draws are the blocks a
model's KV cache uses (block ids are handed out lowest first and returned on free). With prefix caching
(PrefixCache) full blocks are shared between requests and stay cached after they are freed.
"""
from __future__ import annotations

import heapq
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from itertools import takewhile


def blocks_for(tokens: int, block_size: int) -> int:
    """Blocks that hold `tokens` tokens: ceil(tokens / block_size)."""
    return -(-tokens // block_size)


class BlockManager:
    def __init__(self, num_blocks: int, block_size: int):
        self.num_blocks = num_blocks
        self.block_size = block_size
        # The free ids, handed out lowest first, so layouts are reproducible: every id from `_fresh` up, and a heap
        # of those below it given back (`_returned`). A large pool of which a few hundred blocks are in use keeps
        # a heap of a few hundred, and hands fresh ids out as a range.
        self._fresh = 0
        self._returned: list[int] = []
        # request -> its block ids, in token order: a table only grows at its end while its request holds it, and
        # is dropped (never changed) when the request frees it, so a plan sees it as it was through `Tables`
        self.tables: dict[int, list[int]] = {}
        self.lengths: dict[int, int] = {}  # request -> the blocks it holds (its table's length)

    @property
    def free(self) -> int:
        return self.num_blocks - self._fresh + len(self._returned)

    @property
    def used(self) -> int:
        return self.num_blocks - self.free

    def held(self, request: int) -> int:
        return self.lengths.get(request, 0)

    def capacity(self, request: int) -> int:
        """Tokens the request's blocks can hold."""
        return self.held(request) * self.block_size

    def allocate(self, request: int, blocks: int) -> list[int]:
        """Give `request` `blocks` more blocks; there must be as many free (`free`)."""
        if blocks > self.free:
            raise RuntimeError(f"asked for {blocks} blocks with {self.free} free")
        returned = self._returned
        if blocks <= len(returned):
            new = [heapq.heappop(returned) for _ in range(blocks)]
        else:  # every id given back is below the fresh ones
            new = sorted(returned)
            returned.clear()
            fresh = self._fresh
            self._fresh += blocks - len(new)
            new += range(fresh, self._fresh)
        self._extend(request, new)
        return new

    def _extend(self, request: int, new: list[int]) -> None:
        """The request's table grows at its end, in place: a prefill taken chunk by chunk costs each chunk its own
        blocks, not a copy of all before them (Tables keeps what a plan saw)."""
        table = self.tables.get(request)
        if table is None:
            self.tables[request] = table = list(new)
        else:
            table.extend(new)
        self.lengths[request] = len(table)

    def grow_to(self, request: int, tokens: int) -> bool:
        """Make the request's blocks hold `tokens` tokens; False (nothing taken) if the pool is short."""
        missing = blocks_for(tokens, self.block_size) - self.held(request)
        if missing <= 0:
            return True
        if missing > self.free:
            return False
        self.allocate(request, missing)
        return True

    def free_request(self, request: int) -> int:
        """Return every block of `request` to the pool; the number freed."""
        table = self.tables.pop(request, [])
        self.lengths.pop(request, None)
        returned = self._returned
        for block in reversed(table):
            if block == self._fresh - 1:  # (the last id taken: fresh again)
                self._fresh = block
            else:
                heapq.heappush(returned, block)
        return len(table)


class Tables(Mapping):
    """The block tables as a plan saw them (Iteration.blocks): each request's table and its length then. A
    value without copying a table, since a table only grows at its end while it is held and is never changed
    after it is dropped (BlockManager.tables); reading one gives a copy of its blocks then."""

    __slots__ = ("_tables", "_lengths")

    def __init__(self, pool: BlockManager):
        self._tables, self._lengths = dict(pool.tables), dict(pool.lengths)

    def __getitem__(self, request: int) -> list[int]:
        return self._tables[request][:self._lengths[request]]

    def __iter__(self) -> Iterator[int]:
        return iter(self._tables)

    def __len__(self) -> int:
        return len(self._tables)

    def __repr__(self) -> str:
        return f"Tables({dict(self)!r})"


class PrefixCache(BlockManager):
    """A block pool with automatic prefix caching, as vLLM's and nano-vllm's: a full block keeps the key of the
    tokens it holds (a hash of them and of every token before them), and a request whose next blocks have keys
    the pool knows takes those blocks as they are, their KV already computed: shared while two requests hold
    one (a reference count), and kept after the last holder frees it, until the pool needs it for other
    tokens. Free blocks are handed out in the order they were freed (the oldest first: least recently used),
    as nano-vllm's free list does, so a freed block stays cached as long as possible. With `unhashed_first`
    (vLLM's `BlockPool.free_blocks`) a freed block that holds no key (a partial last block, found by nobody)
    goes to the head of the free queue instead, to be taken again first, and keyed ones to its tail.

    Two blocks can hold the same tokens (two requests computed them before either was found). nano-vllm finds
    the newer one from then on; vLLM (`unhashed_first`: its `BlockHashToBlockMap`) keeps finding the first, and
    the others only once it is taken for other tokens, in the order they were cached.

    Keys are any hashable values: sim.core.prefix says which tokens a key stands for."""

    def __init__(self, num_blocks: int, block_size: int, unhashed_first: bool = False):
        super().__init__(num_blocks, block_size)
        self.unhashed_first = unhashed_first
        # The free queue, the longest free first: the blocks put at its head (`_head`), then every id from
        # `_fresh` up (never used, so never cached: handed out as a range, so a pool of millions costs nothing
        # until its blocks are used), then the blocks given back to its tail (`_tail`). OrderedDicts: taking the
        # first is O(1), as a dict's is not once many were taken, and a cached block found again leaves from
        # the middle.
        self._head: OrderedDict[int, None] = OrderedDict()
        self._tail: OrderedDict[int, None] = OrderedDict()
        self.refs: list[int] = []  # requests holding each block ever taken (ids below `_fresh`)
        self.key_of: dict[int, object] = {}  # block -> the key of the tokens it holds (full blocks only)
        self.block_of: dict[object, int] = {}  # key -> the block holding those tokens (the one found)
        self.later: dict[object, list[int]] = {}  # key -> other blocks holding them, found after it (vLLM)

    @property
    def free(self) -> int:
        return len(self._head) + self.num_blocks - self._fresh + len(self._tail)

    def allocate(self, request: int, blocks: int) -> list[int]:
        """`blocks` new blocks for `request`, the longest free first; a cached one forgets its key."""
        if blocks > self.free:
            raise RuntimeError(f"asked for {blocks} blocks with {self.free} free")
        refs, fresh = self.refs, self._fresh
        if not self._head and fresh + blocks <= self.num_blocks:  # all never used (so holding no key): a range
            self._fresh += blocks
            refs += [1] * blocks
            new = list(range(fresh, fresh + blocks))
            self._extend(request, new)
            return new
        new = []
        for _ in range(blocks):
            if self._head:
                block, _ = self._head.popitem(last=False)
            elif self._fresh < self.num_blocks:
                block = self._fresh
                self._fresh += 1
                refs.append(0)
            else:
                block, _ = self._tail.popitem(last=False)
            key = self.key_of.pop(block, None)
            if key is not None:
                self.forget(key, block)
            refs[block] = 1
            new.append(block)
        self._extend(request, new)
        return new

    def found(self, keys) -> list:
        """The leading `keys` the pool holds (it stops at the first it does not)."""
        return list(takewhile(self.block_of.__contains__, keys))

    def cached(self, keys) -> int:
        """How many of `keys`, from the first, the pool holds."""
        return len(self.found(keys))

    def held_by_others(self, keys) -> int:
        """How many of the cached blocks of `keys` (all cached) some request holds now: sharing those takes no
        free block, as sharing a free cached one does (it leaves the free queue)."""
        return sum(self.refs[self.block_of[key]] > 0 for key in keys)

    def share(self, request: int, keys) -> int:
        """`request` (holding no blocks yet) takes the cached blocks of its leading `keys`; how many."""
        table = []
        for key in keys:
            block = self.block_of.get(key)
            if block is None:
                break
            if self.refs[block] == 0:  # (a cached block is one given back: at the queue's head or tail)
                del (self._head if block in self._head else self._tail)[block]
            self.refs[block] += 1
            table.append(block)
        self._extend(request, table)
        return len(table)

    def remember(self, request: int, keys, start: int = 0) -> None:
        """The request's blocks from its block `start` on hold the tokens of `keys`: the pool remembers them. A
        key another block holds moves to the newer one, as in nano-vllm (the older block keeps its copy, found
        no more), or with `unhashed_first` stays with the older, as in vLLM (the newer one is found once the
        older is gone)."""
        for block, key in zip(self.tables.get(request, ())[start:start + len(keys)], keys):
            if self.key_of.get(block) != key:
                self.key_of[block] = key
                found = self.block_of.get(key)
                if found is not None and self.unhashed_first:
                    self.later.setdefault(key, []).append(block)
                else:
                    self.block_of[key] = block

    def forget(self, key, block: int) -> None:
        """`block`, taken for other tokens, holds those of `key` no more."""
        if self.block_of.get(key) == block:
            later = self.later.get(key)
            if later:
                self.block_of[key] = later.pop(0)
            else:
                del self.block_of[key]
        elif block in self.later.get(key, ()):
            self.later[key].remove(block)

    def free_request(self, request: int) -> int:
        """The request lets go of its blocks (its last ones first, so its first ones stay cached longest, as
        nano-vllm and vLLM free them); a block nobody holds becomes free and keeps its key. With
        `unhashed_first`, the keyless ones among them go to the head of the free queue, in that same order."""
        table = self.tables.pop(request, [])
        self.lengths.pop(request, None)
        head, tail, refs, first = self._head, self._tail, self.refs, []
        for block in reversed(table):
            refs[block] -= 1
            if refs[block] == 0:
                if self.unhashed_first and block not in self.key_of:
                    first.append(block)
                else:
                    tail[block] = None
        for block in reversed(first):  # (vLLM's prepend_n: the first of them ends at the head)
            head[block] = None
            head.move_to_end(block, last=False)
        return len(table)
