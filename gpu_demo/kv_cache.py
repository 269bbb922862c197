"""The model's paged KV cache: a fixed pool of blocks in torch tensors. Which blocks a request holds is
decided by sim's block manager (the scheduler's): each Iteration carries the block tables, so the blocks the
lab draws are the blocks used here."""
from __future__ import annotations

import torch

from .model import GPTConfig


class PagedKVCache:
    """K and V of every layer, `num_blocks * block_size` token slots each, plus one scratch slot that
    padding tokens write to (flat slot = block * block_size + offset)."""

    def __init__(self, config: GPTConfig, num_blocks: int, block_size: int, device: torch.device,
                 dtype: torch.dtype):
        self.block_size = block_size
        self.scratch = num_blocks * block_size
        shape = (config.n_layer, self.scratch + 1, config.n_head, config.head_dim)
        self.k = torch.zeros(shape, device=device, dtype=dtype)
        self.v = torch.zeros(shape, device=device, dtype=dtype)
