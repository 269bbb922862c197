"""CUDA graphs for decode batches. A graph replays a recorded sequence of kernels on fixed buffers, so every
shape in it is static: one graph a batch size (a bucket, the policy's `graph_buckets`), each reading a fixed
number of key slots (the model's whole context). The scheduler pads a decode-only batch up to the next bucket
(sim's graph padding); such a batch, one token a row, is copied into its graph's buffers and replayed. A larger
batch, or one with prefill chunks or speculative steps (several tokens a row), runs eagerly. Graphs need CUDA:
on the CPU every batch runs eagerly, the padded rows computed as the scheduler planned them.

Not run by this project: no CUDA machine was available to it. The buffers a graph is replayed on are built by
`static_batch` and checked on the CPU against the eager pass (tests/test_real_engine_features.py); the capture
itself (`GraphRunner.capture`) follows PyTorch's recipe (warm-up on a side stream, then torch.cuda.graph)."""
from __future__ import annotations

import time
from collections.abc import Sequence

import torch

from sim.core.iteration import Iteration

from .kv_cache import PagedKVCache
from .model import GPT, PackedBatch, forward_packed


def replays(it: Iteration, batch: PackedBatch, buckets: Sequence[int], cuda: bool) -> bool:
    """Whether this iteration's batch replays a captured graph: on CUDA, a decode-only batch of one token a row
    whose size is a bucket."""
    return cuda and not it.prefill and batch.query_index is None and len(batch.tokens) in buckets


def blank_batch(size: int, longest: int, scratch: int, device: torch.device) -> PackedBatch:
    """A graph's input buffers: `size` padding rows (token 0 at position 0, writing and reading the scratch slot)
    over `longest` key slots."""
    mask = torch.zeros((size, 1, 1, longest), dtype=torch.bool, device=device)
    mask[..., 0] = True
    zeros = torch.zeros(size, dtype=torch.long, device=device)
    return PackedBatch(zeros, zeros.clone(), torch.full((size,), scratch, device=device), None, None,
                       torch.full((size, longest), scratch, device=device), mask,
                       torch.arange(size, device=device))


def static_batch(batch: PackedBatch, buffers: PackedBatch, scratch: int) -> PackedBatch:
    """Copy a decode batch into a graph's buffers (of its size): the key slots beyond the batch's longest span
    read the scratch slot, masked out. Returns the buffers."""
    longest = batch.key_slots.shape[1]
    buffers.tokens.copy_(batch.tokens)
    buffers.positions.copy_(batch.positions)
    buffers.write_slots.copy_(batch.write_slots)
    buffers.key_slots[:, :longest].copy_(batch.key_slots)
    buffers.key_slots[:, longest:].fill_(scratch)
    buffers.mask[..., :longest].copy_(batch.mask)
    buffers.mask[..., longest:].fill_(False)
    return buffers


class GraphRunner:
    """The captured graphs of one run, a bucket each, captured the first time a batch of that size comes."""

    def __init__(self, model: GPT, cache: PagedKVCache, buckets: Sequence[int]):
        self.model, self.cache, self.buckets = model, cache, tuple(buckets)
        self.cuda = cache.k.device.type == "cuda"
        self.why_not = "" if self.cuda else "cpu"  # graphs need CUDA
        self.graphs: dict[int, tuple[torch.cuda.CUDAGraph, PackedBatch, torch.Tensor]] = {}
        self.capture_seconds = 0.0
        self.captured = False  # some iteration replayed a graph

    def can_replay(self, it: Iteration, batch: PackedBatch) -> bool:
        return replays(it, batch, self.buckets, self.cuda)

    def replay(self, batch: PackedBatch) -> torch.Tensor:
        """The logits of the batch's wanted rows, from its bucket's graph (captured now if it is the first)."""
        size = len(batch.tokens)
        if size not in self.graphs:
            self.graphs[size] = self.capture(size)
        graph, buffers, logits = self.graphs[size]
        static_batch(batch, buffers, self.cache.scratch)
        graph.replay()
        self.captured = True
        return logits[batch.out_rows]

    def capture(self, size: int) -> tuple[torch.cuda.CUDAGraph, PackedBatch, torch.Tensor]:
        """Record the forward pass of a decode batch of `size` rows over the whole context on CUDA: warm-up
        passes on a side stream first (as PyTorch asks), then the capture (under the engine's inference mode);
        the buffers and the output it replays on. Its padding rows only write the scratch slot."""
        started = time.perf_counter()
        buffers = blank_batch(size, self.model.config.context, self.cache.scratch, self.cache.k.device)
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(2):
                forward_packed(self.model, buffers, self.cache.k, self.cache.v)
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            logits = forward_packed(self.model, buffers, self.cache.k, self.cache.v)
        torch.cuda.synchronize()
        self.capture_seconds += time.perf_counter() - started
        return graph, buffers, logits
