"""Preset traces of the trace lab, each with the budget it is meant for and a sentence on what to look at."""
from __future__ import annotations

from dataclasses import dataclass

from sim.config import Config
from sim.generate import Fixed, LogNormal, Uniform, generate
from sim.trace import SEED_BUDGET, SEED_CSV, Trace, read_csv, validate


@dataclass(frozen=True)
class Preset:
    key: str  # its title and description are the translations `preset_<key>` and `preset_<key>_note`
    build: object  # () -> Trace
    config: Config


def _long_short() -> Trace:
    """Short chat turns arriving steadily, plus a few long documents whose prompts fill most of the budget."""
    short = generate(36, rate=0.5, prompt=Uniform(1, 3), output=Uniform(2, 6), seed=11, prefix="s")
    long = generate(4, rate=0.08, prompt=Uniform(12, 16), output=Fixed(8), seed=12, prefix="L")
    return validate([r._asdict() for r in short.requests + long.requests])


PRESETS = {p.key: p for p in (
    Preset("seed", lambda: read_csv(SEED_CSV), Config(SEED_BUDGET)),
    Preset("bursty", lambda: generate(40, rate=0.6, prompt=Uniform(1, 8), output=Uniform(1, 12), burstiness=0.2,
                                      seed=3), Config(8)),
    Preset("long_short", _long_short, Config(16)),
    Preset("azure_like", lambda: generate(120, rate=0.35, prompt=LogNormal(16, 0.8, high=64),
                                          output=LogNormal(16, 0.9, high=120), seed=5), Config(64, max_seqs=16)),
)}
