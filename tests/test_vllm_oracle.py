"""`--preset vllm-v1 --first-token prefill` against vLLM 0.33.0's own V1 Scheduler (a differential test, groundwork
for issue 28 item 1): seeded random traces run through vllm.v1.core.sched.scheduler.Scheduler by kit/vllm_oracle.py
in vLLM's own environment (kit/vllm_oracle_env.sh builds it; VLLM_ORACLE_PYTHON names its interpreter, and
without it every test here skips), and through the simulator; every request's token ticks are compared.

Two groups. Roomy KV caches (never short, so only the token budget, the sequence limit and chunked prefill
decide): the simulator must agree exactly. Tight KV caches (preemptions): known to differ today, so that group
is xfail (not strict) until the simulator follows these rules of vLLM 0.33.0 (lines at the v0.33.0 release,
commit 4ba787ec9, the wheel's vllm/_version.py). Run on 2026-12-03: roomy 300 of 300 seeds agree; tight
193 of 200 (125 of them with preemptions); seed 172's first difference is r2's only token, at 10 in vLLM and 11
in the simulator, after vLLM preempted r2 mid-prefill at tick 8 and resumed it at 9 from its cached blocks.
The rules:
(a) blocks are taken chunk by chunk: the scheduler calls `KVCacheManager.allocate_slots` for each step's new
    tokens (vllm/v1/core/sched/scheduler.py:914 for running requests, :1435 for waiting ones;
    vllm/v1/core/kv_cache_manager.py:380), where the simulator takes a whole prompt's blocks at admission;
(b) `BlockPool.free_blocks` (vllm/v1/core/block_pool.py:816) puts the freed blocks with no hash (a partial last
    block, or any block with caching off) at the head of the free queue (`prepend_n`, :845) and hashed ones at
    the tail (`append_n`, :847), where the simulator appends all at the tail;
(c) `scheduler_reserve_full_isl` (vllm/config/scheduler.py:190, default True; read at
    kv_cache_manager.py:531) admits a waiting request only when its whole prompt fits, like the simulator,
    while the README's pinned commit b4622cf9 let the first chunk suffice. The preemption rule itself is the
    same: `self.running.pop()` (scheduler.py:970), and nobody admitted in a step that preempted (:1050).
"""
import json
import math
import os
import random
import subprocess
from pathlib import Path

import pytest

from sim.core.config import Config, Policy
from sim.core.engine import simulate
from sim.trace.trace import validate

ROOT = Path(__file__).resolve().parents[1]
ORACLE = os.environ.get("VLLM_ORACLE_PYTHON", "")
pytestmark = pytest.mark.skipif(
    not (ORACLE and os.access(ORACLE, os.X_OK)),
    reason="vLLM oracle: set VLLM_ORACLE_PYTHON to the interpreter kit/vllm_oracle_env.sh prints")
SEEDS = range(100)  # per group; one process runs all 200 traces in seconds
TIGHT_RULES = ("vLLM takes KV blocks chunk by chunk (allocate_slots), the simulator a whole prompt's at admission; "
               "vLLM's free_blocks puts unhashed blocks at the free queue's head, the simulator all at its tail")


def trace(seed: int, tight: bool) -> dict:
    """A random trace and budgets: prompts longer than the token budget (so prefills are chunked) beside short
    ones. A roomy cache holds every request at once; a tight one holds the longest request and a few blocks."""
    rng = random.Random(seed * 2 + tight)
    block_size = rng.choice((2, 4, 8))
    budget = rng.randint(8, 32)
    arrival, requests = 0, []
    for i in range(rng.randint(3, 10)):
        arrival += rng.choice((0, 0, 1, 2, 5))
        requests.append({"name": f"r{i}", "arrival": arrival, "prompt": rng.randint(1, 40),
                         "output": rng.randint(1, 12)})
    blocks = [math.ceil((r["prompt"] + r["output"]) / block_size) for r in requests]
    kv_blocks = max(blocks) + rng.randint(0, 3) if tight else sum(blocks) + 1
    return {"requests": requests, "token_budget": budget, "max_seqs": rng.randint(2, 8), "kv_blocks": kv_blocks,
            "block_size": block_size, "prefix_cache": True}


def simulated(setup: dict) -> dict[str, list[int]]:
    """The trace through `--preset vllm-v1 --first-token prefill` (the CLI's Config and Policy for those flags)."""
    config = Config(setup["token_budget"], setup["max_seqs"], first_token="prefill", kv_blocks=setup["kv_blocks"],
                    block_size=setup["block_size"])
    schedule = simulate(validate(setup["requests"]), config, Policy(preset="vllm-v1"))
    return {r.name: [int(t) for t in times] for r, times in zip(schedule.requests, schedule.emitted())}


def first_difference(vllm: dict[str, list[int]], sim: dict[str, list[int]]) -> str | None:
    """The first request (in trace order) whose token ticks differ, and where: None when all agree."""
    for name, ticks in vllm.items():
        if sim.get(name) != ticks:
            mine = sim.get(name, [])
            at = next((k for k, (a, b) in enumerate(zip(ticks, mine)) if a != b), min(len(ticks), len(mine)))
            return f"{name}: token {at}: vLLM {ticks[at:at + 1]} simulator {mine[at:at + 1]} ({ticks} / {mine})"
    return None


@pytest.fixture(scope="module")
def oracle() -> dict[tuple[int, bool], dict[str, list[int]]]:
    """Every trace through vLLM's scheduler, in one process (importing vLLM takes seconds, a trace milliseconds)."""
    keys = [(seed, tight) for tight in (False, True) for seed in SEEDS]
    done = subprocess.run([ORACLE, str(ROOT / "kit" / "vllm_oracle.py")], capture_output=True, text=True,
                          input=json.dumps([trace(*key) for key in keys]), timeout=600, check=True)
    results = json.loads(done.stdout)
    assert {r["vllm"] for r in results} == {"0.33.0"}
    tight = [r["preemptions"] for key, r in zip(keys, results) if key[1]]
    assert sum(n > 0 for n in tight) > len(tight) // 2  # the tight group does run short (vLLM preempts)
    return {key: r["emitted"] for key, r in zip(keys, results)}


def test_the_worked_example_agrees(oracle):
    """The seed's example (A=(0,4,5), B=(0,2,2), C=(3,3,4), budget 8) in engine mode: each prefill samples its
    first token, so A's come at 1..5, B's at 1..2 and C's at 4..7, in vLLM and the simulator alike."""
    setup = {"requests": [{"name": "A", "arrival": 0, "prompt": 4, "output": 5},
                          {"name": "B", "arrival": 0, "prompt": 2, "output": 2},
                          {"name": "C", "arrival": 3, "prompt": 3, "output": 4}],
             "token_budget": 8, "max_seqs": 8, "kv_blocks": 64, "block_size": 4, "prefix_cache": True}
    done = subprocess.run([ORACLE, str(ROOT / "kit" / "vllm_oracle.py")], capture_output=True, text=True,
                          input=json.dumps(setup), timeout=300, check=True)
    expected = {"A": [1, 2, 3, 4, 5], "B": [1, 2], "C": [4, 5, 6, 7]}
    assert json.loads(done.stdout)["emitted"] == expected == simulated(setup)


@pytest.mark.parametrize("seed", SEEDS)
def test_roomy_kv_agrees_exactly(oracle, seed):
    """With the KV cache never short, vLLM's scheduler and the simulator give every token the same tick."""
    assert first_difference(oracle[seed, False], simulated(trace(seed, False))) is None


DIFFERING = {19, 82, 89}  # the tight seeds where rules (a) and (b) show today: expected to fail, strictly


@pytest.mark.parametrize("seed", [pytest.param(seed, marks=pytest.mark.xfail(strict=True, reason=TIGHT_RULES))
                                  if seed in DIFFERING else seed for seed in SEEDS])
def test_tight_kv_agrees(oracle, seed):
    """With a tight KV cache (preemptions), the same; not yet exact (the module's rules (a) and (b))."""
    assert first_difference(oracle[seed, True], simulated(trace(seed, True))) is None
