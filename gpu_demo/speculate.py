"""Speculative decoding on the real model by self-speculation: the draft is the model's own first layer, read by
its final norm and head (an early exit, as in Draft & Verify or LayerSkip). Its K and V are the model's own
layer-0 K and V, so it needs no weights and no cache of its own: a draft pass writes layer 0 of the cache at the
position it feeds, and the verifying pass writes both layers there again. The model verifies each decoder's
drafts in the iteration's one batched forward pass (k + 1 positions a decoder, beside the other requests'
prefill chunks), and greedy acceptance keeps the drafts up to the first one the model would not have chosen,
then the model's own token there: the output is plain greedy decoding's, token for token."""
from __future__ import annotations

import time

import torch

from sim.core.iteration import Iteration

from .batch import Sequences, pack_tokens
from .kv_cache import PagedKVCache
from .model import GPT, forward_packed

DRAFT_LAYERS = 1  # the early exit: the draft runs this many of the model's blocks


class Drafter:
    """Proposes each decoder's draft tokens, k of them (never past its last token), and verifies them."""

    def __init__(self, model: GPT, k: int, outputs: list[int]):
        self.model, self.k, self.outputs = model, k, outputs
        self.proposals: dict[int, list[int]] = {}  # this step's drafts, per decoder

    def propose(self, it: Iteration, cache: PagedKVCache, sequences: Sequences, done: list[int],
                device: torch.device) -> tuple[float, float]:
        """k draft passes, each one token for every decoder still drafting, batched: the drafts go after each
        decoder's last token in `sequences`, and how many it has to `sequences.drafts`. Returns the seconds
        spent building the passes' batches and in the draft's forward passes (device synchronized)."""
        decoders = list(it.decoding)
        length, prompt = sequences.length, sequences.prompt
        drafts = sequences.drafts = {i: min(self.k, self.outputs[i] - (length[i] - prompt[i]) - 1) for i in decoders}
        self.proposals = {i: [] for i in decoders}
        cache.sync_tables(it.blocks, decoders)
        feed = {i: min(done[i], length[i] - 1) for i in decoders}  # where each decoder's step starts
        sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
        pack_seconds = model_seconds = 0.0
        for step in range(self.k):
            active = [i for i in decoders if drafts[i] > step]
            if not active:
                break
            started = time.perf_counter()
            batch = pack_tokens(cache, sequences, active, [feed[i] + step for i in active], device)
            model_start = time.perf_counter()
            chosen = forward_packed(self.model, batch, cache.k, cache.v, layers=DRAFT_LAYERS).argmax(dim=-1)
            listed = chosen.tolist()
            sync()
            done_at = time.perf_counter()
            index = torch.tensor([active, [feed[i] + step + 1 for i in active]]).to(device)
            sequences.tokens[index[0], index[1]] = chosen  # the next pass feeds it
            for i, token in zip(active, listed):
                self.proposals[i].append(token)
            pack_seconds += model_start - started + time.perf_counter() - done_at
            model_seconds += done_at - model_start
        return pack_seconds, model_seconds

    def verify(self, emitters: list[int], chosen: list[int], sequences: Sequences) -> tuple[dict, dict[int, int]]:
        """Greedy acceptance over the verifying pass's tokens (`chosen`, in the order of `emitters`' rows: a
        prefill that samples its token has one, a decoder 1 + its drafts). Returns the tokens each request made
        (written to `sequences`) and the drafts each decoder accepted."""
        made, accepted, row = {}, {}, 0
        for i in emitters:
            proposal = self.proposals.get(i)
            if proposal is None:  # a prefill that samples a token
                made[i] = chosen[row:row + 1]
                row += 1
                continue
            target = chosen[row:row + len(proposal) + 1]
            n = 0
            while n < len(proposal) and target[n] == proposal[n]:
                n += 1
            made[i], accepted[i] = target[:n + 1], n
            row += len(proposal) + 1
        sequences.extend(made)
        self.proposals = {}
        return made, accepted
