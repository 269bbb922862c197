"""The model's paged KV cache: a fixed pool of blocks in torch tensors, a mirror of the block tables as one tensor,
and the host pool that swap preemption copies blocks to and back. Which blocks a request holds is decided by
sim's block manager (the scheduler's): each Iteration carries the block tables, so the blocks the lab draws are
the blocks used here."""
from __future__ import annotations

import time
from array import array
from collections.abc import Mapping

import torch

from sim.core.kv import blocks_for

from .model import GPTConfig


class PagedKVCache:
    """K and V of every layer, `num_blocks` blocks of `block_size` token slots, plus one scratch block that
    padding rows write to and read (flat slot = block * block_size + offset; `scratch` is its first slot).

    `slots` mirrors sim's block tables as each request's slot for every position it can hold (a row a request,
    and a last row, all scratch, for padding rows; positions beyond a request's blocks read the scratch block):
    batches are laid out by indexing it, never by walking Python lists. Its rows are kept in a typed array that
    the tensor shares on the CPU (a table that grew by a block is a few ints written, no torch call) and that is
    copied over whole when one changed on CUDA."""

    def __init__(self, config: GPTConfig, num_blocks: int, block_size: int, device: torch.device,
                 dtype: torch.dtype, requests: int = 0):
        self.block_size, self.num_blocks = block_size, num_blocks
        self.scratch = num_blocks * block_size
        shape = (config.n_layer, (num_blocks + 1) * block_size, config.n_head, config.head_dim)
        self.k = torch.zeros(shape, device=device, dtype=dtype)
        self.v = torch.zeros(shape, device=device, dtype=dtype)
        self.width = blocks_for(config.context, block_size)  # blocks a request's positions can ever need
        self.row = self.width * block_size  # positions a row of `slots` holds
        self._host = array("q", range(self.scratch, self.scratch + block_size)) * (self.width * (requests + 1))
        self.host = torch.frombuffer(self._host, dtype=torch.long).view(requests + 1, self.row)
        self.slots = self.host if device.type == "cpu" else self.host.to(device)
        self.flat_slots = self.slots.view(-1)
        self.offsets = torch.arange(block_size)
        self.pad_row = requests
        self._known: list[list[int]] = [[] for _ in range(requests)]  # each request's blocks as last written

    def sync_tables(self, tables: Mapping[int, list[int]], requests: list[int], grown_only: bool = False) -> None:
        """Bring the slots of `requests` whose block tables changed since they were last seen up to date (a list
        compare a request; `grown_only`: the requests kept their blocks since, so only a longer table changed):
        a table that grew gets its new blocks' slots written, the others (new admissions, swap-ins) are written
        again whole, in one go."""
        known, fresh, changed = self._known, [], False
        for i in requests:
            table, old = tables[i], known[i]
            if len(table) == len(old) if grown_only else table == old:
                continue
            if old and table[:len(old)] == old:
                self._grow(i, len(old), table)
            else:
                fresh.append(i)
            known[i], changed = list(table), True
        if fresh:
            self._rewrite(fresh, tables)
        if changed and self.slots is not self.host:
            self.slots.copy_(self.host)

    def _grow(self, i: int, keep: int, table: list[int]) -> None:
        """Request i's blocks from its block `keep` on are new: their slots go into the shared array."""
        size, start, new = self.block_size, i * self.row, table[keep:self.width]
        at = start + keep * size
        self._host[at:at + len(new) * size] = array("q", [b * size + o for b in new for o in range(size)])

    def _rewrite(self, requests: list[int], tables: Mapping[int, list[int]]) -> None:
        """Whole rows: each request's blocks, then the scratch block up to the row's end."""
        flat = []
        for i in requests:
            row = tables[i][:self.width]
            flat += row + [self.num_blocks] * (self.width - len(row))
        blocks = torch.frombuffer(array("q", flat), dtype=torch.long).view(len(requests), self.width, 1)
        rows = torch.frombuffer(array("q", requests), dtype=torch.long)
        self.host.index_copy_(0, rows, (blocks * self.block_size + self.offsets).view(len(requests), -1))

    def blocks(self, layer_cache: torch.Tensor) -> torch.Tensor:
        """A cache tensor seen block by block: (layers, blocks + 1, block_size, heads, head_dim)."""
        n_layer, _, heads, dim = layer_cache.shape
        return layer_cache.view(n_layer, self.num_blocks + 1, self.block_size, heads, dim)


class HostPool:
    """Swap's host memory: K and V blocks copied out of the device cache and back (page-locked host memory on
    CUDA, as a server's swap space is; a separate tensor pool on the CPU). Grows when more blocks are out at once
    than it holds; each copy is timed, the device synchronized before the clock is read. (A request's host
    blocks need not be adjacent, so a copy gathers them: a production server would copy block by block with DMA.)"""

    def __init__(self, cache: PagedKVCache, blocks: int | None = None):
        self.cache = cache
        device = cache.k.device
        self.pinned = device.type == "cuda"
        self.sync = torch.cuda.synchronize if self.pinned else (lambda: None)
        self.k = self._empty(blocks or cache.num_blocks)
        self.v = self._empty(blocks or cache.num_blocks)
        self.free = list(range(len(self.k[0])))
        self.held: dict[int, list[int]] = {}  # request -> its host blocks, in token order

    def _empty(self, blocks: int) -> torch.Tensor:
        n_layer, _, heads, dim = self.cache.k.shape
        return torch.empty((n_layer, blocks, self.cache.block_size, heads, dim), dtype=self.cache.k.dtype,
                           pin_memory=self.pinned)

    def _grow(self, needed: int) -> None:
        old = len(self.k[0])
        size = max(2 * old, old + needed)
        for name in ("k", "v"):
            bigger = self._empty(size)
            bigger[:, :old] = getattr(self, name)
            setattr(self, name, bigger)
        self.free += range(old, size)

    def swap_out(self, request: int, blocks: list[int], cache: PagedKVCache | None = None) -> float:
        """Copy `blocks` of the device cache (the request's, in token order) to host blocks; seconds taken.
        `cache`: another device cache of the same shape than the pool's own (a fleet's transfer store: one
        replica's blocks out, another's in)."""
        cache = cache or self.cache
        if len(blocks) > len(self.free):
            self._grow(len(blocks) - len(self.free))
        host = self.held[request] = [self.free.pop() for _ in blocks]
        self.sync()
        start = time.perf_counter()
        source, target = torch.tensor(blocks, device=cache.k.device), torch.tensor(host)
        for device_cache, host_cache in ((cache.k, self.k), (cache.v, self.v)):
            host_cache[:, target] = cache.blocks(device_cache)[:, source].cpu()  # (read here: no async copy)
        self.sync()
        return time.perf_counter() - start

    def swap_in(self, request: int, blocks: list[int], cache: PagedKVCache | None = None) -> float:
        """Copy the request's host blocks back into device `blocks` (its new ones, in token order) and free them;
        seconds taken. `cache`: as swap_out's."""
        cache = cache or self.cache
        host = self.held.pop(request)
        self.sync()
        start = time.perf_counter()
        source, target = torch.tensor(host), torch.tensor(blocks[:len(host)], device=cache.k.device)
        for device_cache, host_cache in ((cache.k, self.k), (cache.v, self.v)):
            cache.blocks(device_cache)[:, target] = host_cache[:, source].to(device_cache.device,
                                                                             non_blocking=self.pinned)
        self.sync()
        self.free += host
        return time.perf_counter() - start
