"""Preset scenarios of the trace lab: a trace, the budgets it is meant for, the two policies to compare, and a
sentence (the translation `preset_<key>_note`) on what to look at."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sim.core.config import Config, CostModel, Policy
from sim.trace.generate import Fixed, LogNormal, Uniform, generate, shared_prefix
from sim.trace.trace import SEED_BUDGET, SEED_CSV, Trace, read_csv, validate

STATIC, CONTINUOUS = Policy(batching="static"), Policy()


@dataclass(frozen=True)
class Preset:
    key: str
    build: Callable[[], Trace]
    config: Config
    policy_a: Policy = STATIC
    policy_b: Policy = CONTINUOUS


def _rows(*groups: Trace, **columns: Callable) -> Trace:
    """Several traces as one, with optional columns computed from each request."""
    rows = []
    for trace in groups:
        for r in trace.requests:
            row = r._asdict()
            row.update({name: make(r) for name, make in columns.items()})
            rows.append(row)
    return validate(rows)


def _long_short() -> Trace:
    """Short chat turns arriving steadily, plus a few long documents whose prompts fill most of the budget."""
    return _rows(generate(36, rate=0.5, prompt=Uniform(1, 3), output=Uniform(2, 6), seed=11, prefix="s"),
                 generate(4, rate=0.08, prompt=Uniform(12, 16), output=Fixed(8), seed=12, prefix="L"))


def _long_prompt() -> Trace:
    """Chats arriving every 10 ms and decoding for a while; at 60 ms a 96-token document arrives."""
    chats = [{"name": f"chat{i:02d}", "arrival": 10 * i, "prompt": 4, "output": 10} for i in range(12)]
    return validate([*chats, {"name": "document", "arrival": 60, "prompt": 96, "output": 4}])


def _vip() -> Trace:
    free = generate(30, rate=1.0, prompt=Uniform(2, 6), output=Uniform(4, 10), burstiness=0.3, seed=21, prefix="f")
    vip = generate(8, rate=0.25, prompt=Uniform(2, 6), output=Uniform(4, 10), seed=22, prefix="vip")
    return _rows(free, vip, tenant=lambda r: "vip" if r.name.startswith("vip") else "free",
                 priority=lambda r: 0 if r.name.startswith("vip") else 1)


def _stops() -> Trace:
    """Every third user stops their answer a few ticks after it starts."""
    base = generate(18, rate=0.6, prompt=Uniform(2, 6), output=Uniform(10, 20), seed=31)
    return _rows(base, cancel_at=lambda r: r.arrival + 6 if int(r.name[1:]) % 3 == 0 else None)


PRESETS = {p.key: p for p in (
    Preset("seed", lambda: read_csv(SEED_CSV), Config(SEED_BUDGET)),
    Preset("bursty", lambda: generate(40, rate=0.6, prompt=Uniform(1, 8), output=Uniform(1, 12), burstiness=0.2,
                                      seed=3), Config(8)),
    Preset("long_short", _long_short, Config(16)),
    Preset("azure_like", lambda: generate(120, rate=0.35, prompt=LogNormal(16, 0.8, high=64),
                                          output=LogNormal(16, 0.9, high=120), seed=5), Config(64, max_seqs=16)),
    Preset("long_prompt", _long_prompt,
           Config(128, cost=CostModel("linear", c0=5.0, c_prefill=0.5, c_decode=0.5, c_attn=0.0)),
           CONTINUOUS, Policy(chunk_size=16)),
    Preset("kv_thrash", lambda: generate(10, rate=1.0, prompt=Fixed(8), output=Fixed(25), seed=41),
           Config(32, kv_blocks=16, block_size=4), CONTINUOUS, Policy(kv_admission="overcommit")),
    Preset("vip", _vip, Config(16, max_seqs=4), CONTINUOUS, Policy(order="priority", preemptive_priority=True)),
    Preset("user_stop", _stops, Config(16)),
    Preset("graph_buckets", lambda: generate(24, rate=0.5, prompt=Uniform(2, 8), output=Uniform(4, 24), seed=51),
           Config(32), CONTINUOUS, Policy(graph_buckets=(1, 2, 4, 8, 16, 32))),
    Preset("speculation", lambda: generate(16, rate=0.5, prompt=Uniform(2, 8), output=Fixed(32), seed=61),
           Config(32), CONTINUOUS, Policy(spec_tokens=3, spec_accept=0.6, seed=7)),
    # Mooncake-shaped: one system prompt of 48 tokens in every conversation, 3 turns each, hash_ids of 8 tokens
    Preset("shared_prefix", lambda: shared_prefix(40, 0.02, 48, Uniform(4, 16), Uniform(4, 12), turns=3, block=8,
                                                  seed=71),
           Config(256, 8, kv_blocks=96, block_size=4, prefix_block=8,
                  cost=CostModel("linear", c0=5.0, c_prefill=0.5, c_decode=0.5, c_attn=0.0)),
           Policy(kv_admission="overcommit"), Policy(kv_admission="overcommit", prefix_cache=True)),
)}
