"""A tiny byte-level GPT (nanoGPT's shape) whose attention reads a paged KV cache, so one forward pass can
serve a packed batch of prefill chunks and decode tokens from many requests at once."""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn
from torch.nn import functional as F


@dataclass(frozen=True)
class GPTConfig:
    vocab_size: int = 256  # one token a byte: any text is a prompt, no tokenizer to ship
    context: int = 256  # positions the model has learned; a request's prompt + output must fit
    n_layer: int = 2
    n_head: int = 4
    n_embd: int = 128

    def __post_init__(self):
        if self.n_embd % self.n_head:
            raise ValueError("n_embd must be a multiple of n_head")

    @property
    def head_dim(self) -> int:
        return self.n_embd // self.n_head


class Block(nn.Module):
    def __init__(self, config: GPTConfig):
        super().__init__()
        self.ln_1 = nn.LayerNorm(config.n_embd)
        self.qkv = nn.Linear(config.n_embd, 3 * config.n_embd)
        self.proj = nn.Linear(config.n_embd, config.n_embd)
        self.ln_2 = nn.LayerNorm(config.n_embd)
        self.fc = nn.Linear(config.n_embd, 4 * config.n_embd)
        self.fc_proj = nn.Linear(4 * config.n_embd, config.n_embd)
        self.n_head = config.n_head

    def mlp(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc_proj(F.gelu(self.fc(x)))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Training and reference path: x is (batch, time, channels), causal over time."""
        b, t, c = x.shape
        q, k, v = self.qkv(self.ln_1(x)).split(c, dim=2)
        q, k, v = (y.view(b, t, self.n_head, c // self.n_head).transpose(1, 2) for y in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).reshape(b, t, c))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, config: GPTConfig):
        super().__init__()
        self.config = config
        self.wte = nn.Embedding(config.vocab_size, config.n_embd)
        self.wpe = nn.Embedding(config.context, config.n_embd)
        self.blocks = nn.ModuleList(Block(config) for _ in range(config.n_layer))
        self.ln_f = nn.LayerNorm(config.n_embd)
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.lm_head.weight = self.wte.weight  # tied, as in GPT-2: fewer parameters for the same quality
        self.apply(self._init)
        for name, p in self.named_parameters():
            if name.endswith(("proj.weight", "fc_proj.weight")):  # GPT-2's scaled init of residual outputs
                nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * config.n_layer))

    @staticmethod
    def _init(module: nn.Module) -> None:
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx: torch.Tensor, targets: torch.Tensor | None = None):
        """Training and reference path: logits for every position (and the loss when targets are given)."""
        t = idx.shape[1]
        x = self.wte(idx) + self.wpe(torch.arange(t, device=idx.device))
        for block in self.blocks:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        loss = None if targets is None else F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
        return logits, loss

    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())


@dataclass
class PackedBatch:
    """One iteration's tokens from many requests, packed: each group (a request's prefill chunk, its decode
    token, or a padding token) is contiguous. Attention reads each group's KV through its cache slots."""
    tokens: torch.Tensor  # (T,) token ids
    positions: torch.Tensor  # (T,) position of each token in its sequence
    write_slots: torch.Tensor  # (T,) cache slot each token's K and V go to
    query_index: torch.Tensor | None  # (R, Q) packed index of each group's tokens (padded); None: one token a
    query_valid: torch.Tensor | None  # (R, Q) which of those are real      group, the packed rows are the groups
    key_slots: torch.Tensor  # (R, L) cache slots each group reads (padded)
    mask: torch.Tensor  # (R, 1, Q, L) True where a token may attend a slot (causal within its sequence)
    out_rows: torch.Tensor  # (N,) packed rows whose next-token logits are wanted


def forward_packed(model: GPT, batch: PackedBatch, cache_k: torch.Tensor, cache_v: torch.Tensor,
                   layers: int | None = None) -> torch.Tensor:
    """One forward pass over a packed batch with a paged KV cache: every projection and MLP runs once on all
    T tokens, attention runs once for all groups (padded to the longest). Returns (N, vocab) logits. With one
    token a group (decodes and padding rows: `query_index` is None) no row is gathered or scattered, and no
    shape depends on the data, so the pass can be captured as a CUDA graph. `layers`: only the first blocks
    run, then the final norm and head read their output (an early exit: self-speculation's draft)."""
    x = model.wte(batch.tokens) + model.wpe(batch.positions)
    t, c = x.shape
    h = model.config.n_head
    single = batch.query_index is None
    flat = None if single else batch.query_index[batch.query_valid]  # packed order of the valid query rows
    groups, longest = batch.key_slots.shape
    slots = batch.key_slots.reshape(-1)  # (a flat index: index_select gathers rows far quicker than [index])
    for layer, block in enumerate(model.blocks if layers is None else model.blocks[:layers]):
        q, k, v = block.qkv(block.ln_1(x)).split(c, dim=1)
        cache_k[layer].index_copy_(0, batch.write_slots, k.view(t, h, -1))
        cache_v[layer].index_copy_(0, batch.write_slots, v.view(t, h, -1))
        keys = cache_k[layer].index_select(0, slots).view(groups, longest, h, -1).transpose(1, 2)  # (R, H, L, D)
        values = cache_v[layer].index_select(0, slots).view(groups, longest, h, -1).transpose(1, 2)
        if single:
            queries = q.reshape(t, h, 1, -1)  # (R, H, 1, D)
            out = F.scaled_dot_product_attention(queries, keys, values, attn_mask=batch.mask).reshape(t, c)
        else:
            queries = q.reshape(t, c).index_select(0, batch.query_index.view(-1))
            queries = queries.view(groups, -1, h, c // h).transpose(1, 2)  # (R, H, Q, D)
            y = F.scaled_dot_product_attention(queries, keys, values, attn_mask=batch.mask)
            y = y.transpose(1, 2)[batch.query_valid]  # (T, H, D), in the order of `flat`
            out = torch.empty_like(y).index_copy_(0, flat, y).reshape(t, c)
        x = x + block.proj(out)
        x = x + block.mlp(block.ln_2(x))
    return model.lm_head(model.ln_f(x.index_select(0, batch.out_rows)))
