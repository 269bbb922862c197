"""Which tokens a KV block holds, as a key: what automatic prefix caching (sim.core.kv.PrefixCache) matches.

A key names a block's tokens and every token before them, so two requests share a block only if they share
the whole prefix up to its end (vLLM and nano-vllm hash each full block with the hash of the one before it).
Where a request's prompt comes from:
- `hash_ids` (Mooncake's traces, the shared-prefix generator): each id names the prompt's prefix up to the end
  of one hash block of `prefix_block` tokens (Mooncake's are 512); a KV block that lies inside hash block h is
  ("hash", that id, its place in the hash block);
- `text` counted in bytes (the real model's tokens): a chained hash of the block's bytes and the key before;
- otherwise, and for the tokens a request made: ("own", the request, the block's index), its own blocks only,
  which it finds again after a preemption (as nano-vllm does).
"""
from __future__ import annotations

import hashlib
from collections.abc import Iterator
from itertools import chain, repeat

from ..trace.trace import Request


def block_keys(request: Request, index: int, tokens: int, block_size: int, prefix_block: int,
               start: int = 0) -> list[object]:
    """Keys of the full blocks among the request's first `tokens` tokens (its prompt, then what it made), from
    its block `start` on."""
    return list(iter_block_keys(request, index, tokens, block_size, prefix_block, start))


def iter_block_keys(request: Request, index: int, tokens: int, block_size: int, prefix_block: int,
                    start: int = 0) -> Iterator[object]:
    """The same keys one at a time: a look-up (PrefixCache.cached) stops at the first key the pool lacks, without
    working out the rest of a long prompt's."""
    blocks = tokens // block_size
    if request.hash_ids is None and request.text is None:  # ("own", index, j) for each j, made in C
        return zip(repeat("own"), repeat(index), range(start, blocks))
    shared = min(blocks, _shared_blocks(request, block_size, prefix_block))
    own = zip(repeat("own"), repeat(index), range(max(start, shared), blocks))
    if not shared:
        return own
    if request.hash_ids:
        per, ids = prefix_block // block_size, request.hash_ids
        return chain((("hash", ids[j // per], j % per) for j in range(start, shared)), own)
    # (text: each hash chains the one before, so all are worked out)
    return chain(chained_hashes(request.text.encode("utf-8", errors="replace"), block_size, shared)[start:], own)


def chained_hashes(data: bytes, block_size: int, limit: int | None = None) -> list[bytes]:
    """One hash a full block of `data` (a token a byte; the first `limit` blocks), each of the block's bytes and
    the hash before it."""
    hashes, digest = [], b""
    for j in range(min(len(data) // block_size, len(data) if limit is None else limit)):
        digest = hashlib.blake2b(digest + data[j * block_size:(j + 1) * block_size], digest_size=16).digest()
        hashes.append(digest)
    return hashes


def _shared_blocks(request: Request, block_size: int, prefix_block: int) -> int:
    """How many of the request's first blocks hold prompt tokens another request may share."""
    if request.hash_ids:
        if prefix_block % block_size:
            return 0  # a KV block would straddle two hash blocks: nothing is known to be shared
        return min(request.prompt, len(request.hash_ids) * prefix_block) // block_size
    if request.text is not None and len(request.text.encode("utf-8", errors="replace")) == request.prompt:
        return request.prompt // block_size  # (a prompt counted in bytes: its blocks are its bytes)
    return 0
