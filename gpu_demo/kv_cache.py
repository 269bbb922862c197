"""The model's paged KV cache: a fixed pool of blocks in torch tensors. Which blocks a request holds is
decided by sim's block manager (the scheduler's), so the blocks the lab draws are the blocks used here."""
from __future__ import annotations

import torch

from sim.core.kv import BlockManager

from .model import GPTConfig


class PagedKVCache:
    """K and V of every layer, `num_blocks * block_size` token slots each, plus one scratch slot that
    padding tokens write to (flat slot = block * block_size + offset)."""

    def __init__(self, config: GPTConfig, blocks: BlockManager, device: torch.device, dtype: torch.dtype):
        self.blocks = blocks
        self.block_size = blocks.block_size
        self.scratch = blocks.num_blocks * blocks.block_size
        shape = (config.n_layer, self.scratch + 1, config.n_head, config.head_dim)
        self.k = torch.zeros(shape, device=device, dtype=dtype)
        self.v = torch.zeros(shape, device=device, dtype=dtype)

    def slots(self, request: int, positions: range) -> list[int]:
        """Flat cache slots of a request's token positions, through its block table."""
        table, size = self.blocks.tables[request], self.block_size
        return [table[p // size] * size + p % size for p in positions]
