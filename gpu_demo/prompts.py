"""Prompts for the real model: a trace's prompts given in words (under a chat template), or snippets of the
training corpus's validation files cut to each request's prompt length; and traces scaled to fit the model's
context."""
from __future__ import annotations

import random
from functools import lru_cache

from sim.trace.chat import BYTES, with_template
from sim.trace.trace import Request, Trace, validate

from .train import corpus

CODE_WORDS = tuple(w.encode() for w in ("def ", "return ", "if ", "for ", "self.", "class ", "import ", "raise ",
                                         "elif ", "else:", "try:", "with ", "while ", "except ", "from "))


@lru_cache(maxsize=1)
def _validation_text() -> bytes:
    return corpus(train=False)[1]


def snippets(lengths: list[int], seed: int = 0) -> list[bytes]:
    """One piece of real Python source per length (deterministic for a seed). Each starts at a line start and,
    where one of a few hundred tries finds it, ends just before a statement's first word (def, return, if,
    ...): the model then goes on writing code, not a data table or a docstring's padding."""
    text = _validation_text()
    rng = random.Random(seed)
    out = []
    for length in lengths:
        piece = None
        for _ in range(300):
            start = text.find(b"\n", rng.randrange(len(text) - length - 2)) + 1
            end = start + length
            if text[end - 1:end] in (b" ", b"\n") and text.startswith(CODE_WORDS, end):
                piece = text[start:end]
                break
        out.append(piece if piece is not None and len(piece) == length else text[start:start + length])
    return out


def prompts_for(trace: Trace, seed: int = 0, prefix_block: int | None = None) -> list[bytes]:
    """Each request's prompt: its `text` (UTF-8 bytes, one token a byte) or a snippet of its prompt length. With
    `prefix_block`, a request with `hash_ids` is made of one piece of the corpus of that many bytes an id (the
    same for every request that has the id, so prompts share what their ids say they share), cut to its length,
    and a snippet of its own after them."""
    by_id = _id_pieces(trace, seed, prefix_block) if prefix_block else {}
    shared = [_from_ids(r, by_id) if r.text is None else b"" for r in trace.requests]
    drawn = iter(snippets([r.prompt - len(s) for r, s in zip(trace.requests, shared)
                           if r.text is None and len(s) < r.prompt], seed))
    return [r.text.encode("utf-8") if r.text is not None else s + (next(drawn) if len(s) < r.prompt else b"")
            for r, s in zip(trace.requests, shared)]


def _id_pieces(trace: Trace, seed: int, size: int) -> dict[int, bytes]:
    """A different piece of `size` bytes of the corpus (no longer than the longest prompt: the rest would be cut)
    for each hash id of the trace's requests given by length (cut anywhere: pieces cut at statements would often
    be the same run of indentation)."""
    ids = sorted({h for r in trace.requests if r.text is None for h in r.hash_ids or ()})
    size = min(size, max((r.prompt for r in trace.requests), default=1))
    text, rng, pieces, taken = _validation_text(), random.Random(seed + 1), {}, set()
    for h in ids:
        for _ in range(100):  # (a few tries: pieces of a byte or two cannot all differ)
            start = rng.randrange(len(text) - size)
            piece = text[start:start + size]
            if piece not in taken:
                break
        pieces[h] = piece
        taken.add(piece)
    return pieces


def _from_ids(request: Request, by_id: dict[int, bytes]) -> bytes:
    """The request's prompt as far as its hash ids name it (its length at most)."""
    return b"".join(by_id[h] for h in request.hash_ids or () if h in by_id)[:request.prompt]


def with_text_lengths(trace: Trace, template: str = "none") -> Trace:
    """A trace whose requests given in words (text, system, messages) have as their text what the model
    prefills, the messages under the chat template `template`, and as their prompt length that text's bytes:
    the model is byte-level, whichever tokenizer the simulator counts with."""
    return with_template(trace, template, BYTES)


def fit_to_context(trace: Trace, context: int) -> Trace:
    """The trace with prompt and output lengths scaled down (together, by one factor) so that every request
    fits the model's context; arrivals and names unchanged."""
    longest = max(r.prompt + r.output for r in trace.requests)
    if longest <= context:
        return trace
    scale = context / longest
    rows = [r._asdict() | {"prompt": max(1, int(r.prompt * scale)), "output": max(1, int(r.output * scale)),
                           "text": None} for r in trace.requests]
    return validate(rows)
