"""nano-vllm's own scheduler as an oracle: its files stay in ../shared/oracles/nano-vllm (never copied here);
this loads them under stand-in modules for the parts of the nanovllm package that need a GPU (the oracle's
README recipe) and steps the scheduler tick by tick through a trace with no model, as bench/options_4k.py and
tests/test_presets.py do.

A step at tick t (its arrivals added first, then `schedule()` and `postprocess()` with a dummy token a
sequence) emits one token for each sequence it scheduled, at t + 1, the simulator's convention. Each request's
dummy token is its own: nano-vllm takes a block whose hash entry is stale (the block was given to another
request since) as a cache hit when its token ids are equal, so one shared dummy token would let requests "find"
each other's generated blocks, which no real model's outputs would."""
from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NANO_VLLM = ROOT.parent / "shared" / "oracles" / "nano-vllm"
MADE = 1_000_000  # + the request's index: the token each request makes


def missing() -> str | None:
    """Why the oracle cannot run here (None: it can)."""
    if not (NANO_VLLM / "nanovllm" / "engine" / "scheduler.py").exists():
        return f"{NANO_VLLM} is not present"
    for needed in ("numpy", "xxhash"):  # its block manager hashes token ids with them (not the project's needs)
        if importlib.util.find_spec(needed) is None:
            return f"it needs {needed} (pip install {needed})"
    return None


@dataclass(frozen=True)
class Setup:
    max_num_seqs: int
    max_num_batched_tokens: int
    block_size: int
    num_blocks: int


def _modules(setup: Setup):
    """nano-vllm's Scheduler, Sequence and SamplingParams, with a Config of `setup`."""
    package, engine, config = (types.ModuleType(name) for name in ("nanovllm", "nanovllm.engine", "nanovllm.config"))
    package.__path__ = [str(NANO_VLLM / "nanovllm")]
    engine.__path__ = [str(NANO_VLLM / "nanovllm" / "engine")]

    class Config:
        max_num_seqs = setup.max_num_seqs
        max_num_batched_tokens = setup.max_num_batched_tokens
        eos = -1
        kvcache_block_size = setup.block_size
        num_kvcache_blocks = setup.num_blocks

    config.Config = Config
    sys.modules.update({"nanovllm": package, "nanovllm.engine": engine, "nanovllm.config": config})
    if str(NANO_VLLM) not in sys.path:
        sys.path.insert(0, str(NANO_VLLM))
    # Imported by name: the oracle lives in ../shared, not among the project's requirements.
    scheduler = importlib.import_module("nanovllm.engine.scheduler")
    sequence = importlib.import_module("nanovllm.engine.sequence")
    sampling = importlib.import_module("nanovllm.sampling_params")
    sequence.Sequence.set_block_size(setup.block_size)
    return scheduler.Scheduler, sequence.Sequence, sampling.SamplingParams, Config


def run(requests: list[tuple[int, list[int], int]], setup: Setup, limit: int = 100_000) -> list[list[int]]:
    """Step nano-vllm through `requests` ((arrival tick, prompt token ids, output tokens), in arrival order);
    per request, the ticks its tokens are emitted at."""
    scheduler_class, sequence_class, params_class, config = _modules(setup)
    scheduler = scheduler_class(config())
    sequences = [sequence_class(list(tokens), params_class(max_tokens=output, ignore_eos=True))
                 for _, tokens, output in requests]
    index = {seq.seq_id: i for i, seq in enumerate(sequences)}
    emitted: list[list[int]] = [[] for _ in requests]
    tick, i, n = 0, 0, len(requests)
    while i < n or not scheduler.is_finished():
        if scheduler.is_finished() and requests[i][0] > tick:
            tick = requests[i][0]  # nothing to run until the next arrival
        while i < n and requests[i][0] <= tick:
            scheduler.add(sequences[i])
            i += 1
        seqs, _ = scheduler.schedule()
        scheduler.postprocess(seqs, [MADE + index[seq.seq_id] for seq in seqs])
        for seq in seqs:
            emitted[index[seq.seq_id]].append(tick + 1)
        tick += 1
        if tick > limit:
            raise RuntimeError(f"nano-vllm did not finish within {limit} ticks")
    return emitted
