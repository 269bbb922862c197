"""The engine's batch building: every request's tokens in one preallocated tensor (Sequences), and one iteration's
packed batch laid out from it and the KV cache's slot mirror by a few whole-tensor operations (pack).

Python walks the iteration's groups (a prefill chunk, a decoder, a padding row), never its tokens, and hands
torch one flat tensor of the groups' columns a batch: on the CPU a torch call costs microseconds whatever its
size, so a batch costs a fixed handful of them (per-token Python, or a tensor made per group, cost more than the
tiny model's forward pass)."""
from __future__ import annotations

from array import array
from itertools import accumulate
from typing import NamedTuple

import torch

from sim.core.iteration import Iteration
from sim.core.shape import packed_shape

from .kv_cache import PagedKVCache
from .model import PackedBatch

PAD = 0  # the token padding rows compute on (their output is thrown away)


def long_tensor(values: list[int], device: torch.device) -> torch.Tensor:
    """A tensor of Python ints by way of a typed array: several times quicker than torch.tensor on a list."""
    if not values:
        return torch.zeros(0, dtype=torch.long, device=device)
    tensor = torch.frombuffer(array("q", values), dtype=torch.long)
    return tensor if device.type == "cpu" else tensor.to(device)


class Sequences:
    """Each request's tokens, its prompt then what it generated (and during a speculative step its draft tokens
    after those), a row of `row` tokens a request in one tensor on the model's device, and a last row of padding
    tokens; `flat` is the same tensor as one row (token i of request r is flat[r * row + i])."""

    def __init__(self, prompts: list[bytes], row: int, device: torch.device):
        self.row, self.device = row, device
        self.prompt = [len(p) for p in prompts]
        self.length = list(self.prompt)  # tokens each holds: prompt + generated
        self.drafts: dict[int, int] = {}  # speculative decoding: draft tokens each decoder verifies now
        self.steady: Steady | None = None  # the last batch, when the next may be it moved on (pack)
        self.made: torch.Tensor | None = None  # the tokens it made, in order
        rows = b"".join(p.ljust(row, bytes([PAD])) for p in prompts) + bytes([PAD]) * row
        self.tokens = torch.frombuffer(bytearray(rows), dtype=torch.uint8).view(-1, row).long().to(device)
        self.flat = self.tokens.view(-1)
        self._arange = torch.arange(row, device=device)
        # causal[p]: the positions a token at position p may attend (rows of it make the batch's mask: one copy,
        # where comparing in place would be an elementwise pass over the whole mask)
        self.causal = (self._arange <= self._arange.unsqueeze(1)).view(row, 1, 1, row)

    def arange(self, n: int) -> torch.Tensor:
        """0, 1, ..., n - 1, sliced from a tensor made once (grown when a batch is longer)."""
        if n > len(self._arange):
            self._arange = torch.arange(2 * n, device=self.device)
        return self._arange[:n]

    def append(self, requests: list[int], chosen: torch.Tensor, at: torch.Tensor) -> None:
        """Each of `requests` made one token, `chosen` (in order), written at its next position (`at`, flat)."""
        self.flat.index_copy_(0, at, chosen)
        self.made = chosen
        length = self.length
        for i in requests:
            length[i] += 1

    def extend(self, made: dict[int, list[int]]) -> None:
        """Each request of `made` made those tokens (a speculative step: one or more each), written in one go."""
        self.made = None
        at, tokens, length, row = [], [], self.length, self.row
        for i, new in made.items():
            at += range(i * row + length[i], i * row + length[i] + len(new))
            tokens += new
            length[i] += len(new)
        self.flat.index_copy_(0, long_tensor(at, self.device), long_tensor(tokens, self.device))

    def outputs(self) -> list[bytes]:
        """What each request generated."""
        rows = self.tokens.tolist()
        return [bytes(row[start:end]) for row, start, end in zip(rows, self.prompt, self.length)]


class Steady(NamedTuple):
    """A decode batch (one token a decoder, no padding, no drafts) kept for the next iteration: when the same
    decoders decode again, each feeds the token it just made, one position on, so that batch is this one moved
    on by one: no layout in Python, no token gather."""
    decoders: list[int]
    request: torch.Tensor
    positions: torch.Tensor
    at: torch.Tensor  # each row's place in Sequences.flat (and in the cache's slot mirror)
    wanted: torch.Tensor
    longest: int


class Packed(NamedTuple):
    batch: PackedBatch
    emitters: list[int]  # the requests whose next token the batch's output rows give, in order
    shape: tuple[int, int, int]  # (groups, query, longest)
    emit_at: torch.Tensor  # where each emitter's one token goes in Sequences.flat (not for a speculative step)


class Layout:
    """One batch's groups as Python lists (a group: a request's tokens from one position on), made tensors in one
    go: each group's request, first position and tokens, and the wanted rows."""

    def __init__(self):
        self.request, self.first, self.count, self.wanted, self.emitters = [], [], [], [], []
        self.rows = 0

    def add(self, i: int, first: int, n: int, emits: bool) -> None:
        """Request i's tokens first ... first + n - 1; `emits`: its last row's logits are wanted."""
        self.request.append(i), self.first.append(first), self.count.append(n)
        self.rows += n
        if emits:
            self.wanted.append(self.rows - 1)
            self.emitters.append(i)

    def add_singles(self, requests: list[int], positions: list[int], emit: bool) -> None:
        """One token a request, at its position (decoders, padding rows), in bulk."""
        rows = self.rows
        self.request += requests
        self.first += positions
        self.count += [1] * len(requests)
        self.rows += len(requests)
        if emit:
            self.wanted += range(rows, rows + len(requests))
            self.emitters += requests


def pack(it: Iteration, cache: PagedKVCache, sequences: Sequences, done: list[int],
         device: torch.device) -> Packed | None:
    """Lay out one iteration: prefill chunks, one token for each decoder (the next one it has not fed: in the
    teaching mode the first decode feeds the prompt's last token again; with its draft tokens after it in a
    speculative step), and padding rows; `done` (positions whose K and V the cache holds) moves on. None when
    nothing is computed."""
    padding = it.padding + it.graph_padding  # padded rows are computed, and their output discarded
    steady, sequences.steady = sequences.steady, None
    if (steady is not None and sequences.made is not None and not it.prefill and not padding
            and not sequences.drafts and steady.decoders == list(it.decoding)):
        return _step_on(steady, it, cache, sequences, done)
    layout = Layout()
    emitting = set(it.prefill_emits)
    for i, start, n in it.prefill:
        if n == 0:  # nothing to compute now: a static batch member whose prompt an earlier tick of the batch
            done[i] = max(done[i], start)  # prefill prefilled, or a prompt a prefix cache held whole
            if i in emitting:  # its prefill ends now and samples its token: its last prompt token again
                layout.add(i, done[i] - 1, 1, True)
            continue
        done[i] = start + n
        layout.add(i, start, n, i in emitting)
    _decoders(it, sequences, done, layout)
    if padding:
        layout.add_singles([cache.pad_row] * padding, [0] * padding, False)
    if not layout.request:
        return None
    cache.sync_tables(it.blocks, layout.request[:len(layout.request) - padding])
    shape = packed_shape(layout.first, layout.count)[1:]  # (groups, query, longest)
    row, length = sequences.row, sequences.length
    emit_at = [i * row + length[i] for i in layout.emitters]
    batch, emit_at, request, at = _tensors(cache, sequences, layout, emit_at, shape, device)
    if not it.prefill and not padding and not sequences.drafts:  # (moved on once the tokens it makes are in)
        sequences.steady, sequences.made = Steady(layout.emitters, request, batch.positions, at, batch.out_rows,
                                                  shape[2]), None
    return Packed(batch, layout.emitters, shape, emit_at)


def _step_on(steady: Steady, it: Iteration, cache: PagedKVCache, sequences: Sequences, done: list[int]) -> Packed:
    """The same decoders as the last batch, each one position on, feeding the token it made."""
    for i in steady.decoders:
        done[i] += 1
    cache.sync_tables(it.blocks, steady.decoders, grown_only=True)  # (each held its blocks since: they only grow)
    positions, at, longest = steady.positions + 1, steady.at + 1, steady.longest + 1
    batch = PackedBatch(sequences.made, positions, cache.flat_slots.index_select(0, at), None, None,
                        cache.slots.index_select(0, steady.request)[:, :longest],
                        sequences.causal.index_select(0, positions)[..., :longest], steady.wanted)
    sequences.steady, sequences.made = steady._replace(positions=positions, at=at, longest=longest), None
    return Packed(batch, steady.decoders, (len(steady.decoders), 1, longest), at + 1)


def pack_tokens(cache: PagedKVCache, sequences: Sequences, requests: list[int], positions: list[int],
                device: torch.device) -> PackedBatch:
    """A batch of one token a request, each at its position (a draft pass of speculative decoding), every row's
    logits wanted."""
    layout = Layout()
    layout.add_singles(requests, positions, True)
    return _tensors(cache, sequences, layout, [], (len(requests), 1, max(positions) + 1), device)[0]


def _decoders(it: Iteration, sequences: Sequences, done: list[int], layout: Layout) -> None:
    """Each decoder's group: its next token (and its drafts)."""
    decoders = list(it.decoding)
    if not decoders:
        return
    length, drafts = sequences.length, sequences.drafts
    feed = [min(done[i], length[i] - 1) for i in decoders]
    if drafts:
        for i, position in zip(decoders, feed):
            n = 1 + drafts.get(i, 0)
            done[i] = position + n
            layout.add(i, position, n, False)
            layout.wanted += range(layout.rows - n, layout.rows)
        layout.emitters += decoders
        return
    for i, position in zip(decoders, feed):
        done[i] = position + 1
    layout.add_singles(decoders, feed, True)


def _tensors(cache: PagedKVCache, sequences: Sequences, layout: Layout, emit_at: list[int],
             shape: tuple[int, int, int], device: torch.device) -> tuple[PackedBatch, torch.Tensor, ...]:
    """The batch's tensors from one tensor of the layout's columns: the token rows, their cache slots, and each
    group's key slots and causal mask (sliced from the cache's slot mirror); where the emitters' tokens go, each
    group's request and each row's place in Sequences.flat."""
    if layout.rows == shape[0]:  # one token a group (decodes): tensors too small for torch to fork threads
        return _layout_tensors(cache, sequences, layout, emit_at, shape, device)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # the batch's tensors are small: forking CPU threads for them costs more than it saves
    try:
        return _layout_tensors(cache, sequences, layout, emit_at, shape, device)
    finally:
        torch.set_num_threads(threads)


def _layout_tensors(cache: PagedKVCache, sequences: Sequences, layout: Layout, emit_at: list[int],
                    shape: tuple[int, int, int], device: torch.device) -> tuple[PackedBatch, torch.Tensor, ...]:
    groups, query, longest = shape
    single = layout.rows == groups  # one token a group: the rows are the groups
    row, request, first = sequences.row, layout.request, layout.first
    if single:
        parts = [request, first, layout.wanted, emit_at, [i * row + p for i, p in zip(request, first)]]
    else:  # each group's tokens as packed rows from `start` on: row r holds position r - start + first
        starts = list(accumulate(layout.count, initial=0))[:-1]
        offsets = [p - start for p, start in zip(first, starts)]
        parts = [request, first, layout.wanted, emit_at, layout.count, starts, offsets,
                 [i * row + offset for i, offset in zip(request, offsets)]]
    flat = long_tensor([v for part in parts for v in part], device)
    request, first, wanted, emit_at, *rest = flat.split_with_sizes([len(part) for part in parts])
    if single:
        (at,), positions, query_index, query_valid = rest, first, None, None
        mask = sequences.causal.index_select(0, first)[..., :longest]
    else:
        count, starts, offsets, bases = rest
        group = torch.repeat_interleave(sequences.arange(groups), count, output_size=layout.rows)
        rows = sequences.arange(layout.rows)
        positions, at = offsets.index_select(0, group) + rows, bases.index_select(0, group) + rows
        columns = sequences.arange(query)
        query_valid = columns < count.unsqueeze(1)
        query_index = (starts.unsqueeze(1) + columns).clamp_(max=layout.rows - 1)  # (padded query rows: dropped)
        own = (first.unsqueeze(1) + columns).clamp_(max=longest - 1).view(-1)
        mask = sequences.causal[..., :longest].index_select(0, own).view(groups, 1, query, longest)
    batch = PackedBatch(sequences.flat.index_select(0, at), positions, cache.flat_slots.index_select(0, at),
                        query_index, query_valid, cache.slots.index_select(0, request)[:, :longest], mask, wanted)
    return batch, emit_at, request, at
