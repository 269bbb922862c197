"""The shape of a packed batch: how the real engine lays out one iteration (gpu_demo.batch.pack) and what a
measured profile times (CostModel.shape_duration). Both the engine's packer and the simulator's profile cost
(sim.core.engine.batch_shape) count it here, so a prediction and a measurement name the same batch.

A batch is groups of token rows, each a request's tokens from some position on: a prefill chunk, a decoder's
token (with its draft tokens in a speculative step), a padding row. A group reads the KV of every position up to
its last token, so its span is its first position plus its tokens."""
from __future__ import annotations

from collections.abc import Sequence
from operator import add
from typing import NamedTuple


class BatchShape(NamedTuple):
    rows: int  # token rows: every group's tokens
    groups: int  # sequences: each prefill chunk, decoder and padding row
    query: int  # the most tokens of one group
    longest: int  # the longest KV span a group reads


def packed_shape(firsts: Sequence[int], counts: Sequence[int], singles: int = 0, single_rows: int = 0,
                 single_span: int = 1) -> BatchShape:
    """A batch of groups, the g-th `counts[g]` tokens of a request from position `firsts[g]` on, and `singles` more
    named in sum only (decoders and padding rows, `single_rows` tokens in all, none of them read past
    `single_span`), each counted as a query of one token: the simulator knows its decoders' contexts in sum and
    at most, not how many drafts each verifies (the engine lists every group)."""
    groups = len(counts)
    return BatchShape(sum(counts) + single_rows, groups + singles, max(counts) if groups else 1,
                      max(max(map(add, firsts, counts)) if groups else 1, single_span if singles else 1))
