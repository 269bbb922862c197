"""Paged KV cache bookkeeping: a fixed pool of blocks and the block table of every request that holds some.

The same manager serves the simulator and the real engine, so the blocks the lab draws are the blocks a
model's KV cache uses (block ids are handed out lowest first and returned on free).
"""
from __future__ import annotations

import heapq


def blocks_for(tokens: int, block_size: int) -> int:
    """Blocks that hold `tokens` tokens: ceil(tokens / block_size)."""
    return -(-tokens // block_size)


class BlockManager:
    def __init__(self, num_blocks: int, block_size: int):
        self.num_blocks = num_blocks
        self.block_size = block_size
        self._free = list(range(num_blocks))  # a heap: the lowest free id first, so layouts are reproducible
        self.tables: dict[int, list[int]] = {}  # request -> its block ids, in token order

    @property
    def free(self) -> int:
        return len(self._free)

    @property
    def used(self) -> int:
        return self.num_blocks - len(self._free)

    def held(self, request: int) -> int:
        return len(self.tables.get(request, ()))

    def capacity(self, request: int) -> int:
        """Tokens the request's blocks can hold."""
        return self.held(request) * self.block_size

    def can_allocate(self, blocks: int) -> bool:
        return blocks <= len(self._free)

    def allocate(self, request: int, blocks: int) -> list[int]:
        """Give `request` `blocks` more blocks; the caller checked can_allocate."""
        if blocks > len(self._free):
            raise RuntimeError(f"asked for {blocks} blocks with {len(self._free)} free")
        new = [heapq.heappop(self._free) for _ in range(blocks)]
        self.tables.setdefault(request, []).extend(new)
        return new

    def grow_to(self, request: int, tokens: int) -> bool:
        """Make the request's blocks hold `tokens` tokens; False (nothing taken) if the pool is short."""
        missing = blocks_for(tokens, self.block_size) - self.held(request)
        if missing <= 0:
            return True
        if missing > len(self._free):
            return False
        self.allocate(request, missing)
        return True

    def free_request(self, request: int) -> int:
        """Return every block of `request` to the pool; the number freed."""
        table = self.tables.pop(request, [])
        for block in table:
            heapq.heappush(self._free, block)
        return len(table)
