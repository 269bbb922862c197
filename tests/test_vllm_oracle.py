"""`--preset vllm-v1 --first-token prefill` against vLLM 0.33.0's own V1 Scheduler (a differential test): seeded
random traces run through vllm.v1.core.sched.scheduler.Scheduler by kit/vllm_oracle.py in vLLM's own environment
(kit/vllm_oracle_env.sh builds it in .vllm-oracle/, as the README's test command does before the tests;
VLLM_ORACLE_PYTHON names another interpreter; without either every test here skips), and through the simulator;
every request's token ticks must be equal.

Six groups (GROUPS): roomy and tight KV caches, shared prefixes in each, scheduler_reserve_full_isl off, and budgets
of a few tokens. All 1,800 traces agree, since the preset follows these rules of vLLM 0.33.0 (lines at the v0.33.0
release, commit 4ba787ec9, the wheel's vllm/_version.py; sim.core.presets.VllmV1), each of which, undone by hand,
makes traces differ (tests/test_prefix_cache.py tests each on an example vLLM gave, without vLLM):
(a) blocks are taken chunk by chunk: the scheduler calls `KVCacheManager.allocate_slots` for each step's new
    tokens (vllm/v1/core/sched/scheduler.py:914 for running requests, :1435 for waiting ones;
    vllm/v1/core/kv_cache_manager.py:380);
(b) `BlockPool.free_blocks` (vllm/v1/core/block_pool.py:816) puts the freed blocks with no hash (a partial last
    block) at the head of the free queue (`prepend_n`, :845) and hashed ones at the tail (`append_n`, :847);
(c) `scheduler_reserve_full_isl` (vllm/config/scheduler.py:190, default True; read at kv_cache_manager.py:531)
    admits a waiting request only when its whole prompt fits; off (`--kv-admission chunk`), its first chunk
    suffices, as at the commit b4622cf9 the README named before;
(d) the blocks to allocate are the prompt's less its prefix-cache hit, plus the hit blocks that are free
    (`get_num_blocks_to_allocate`, vllm/v1/core/single_type_kv_cache_manager.py:176);
(e) of two blocks holding the same tokens, the first cached is found (`BlockHashToBlockMap.get_one_block`,
    block_pool.py:63).
The preemption rule itself: `self.running.pop()` (scheduler.py:970), and nobody admitted in a step that
preempted (:1050).
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
ORACLE = os.environ.get("VLLM_ORACLE_PYTHON") or str(ROOT / ".vllm-oracle" / "bin" / "python")
pytestmark = pytest.mark.skipif(
    not os.access(ORACLE, os.X_OK),
    reason="vLLM oracle: run kit/vllm_oracle_env.sh (the README's test command does), or set VLLM_ORACLE_PYTHON")
SEEDS = range(300)  # per group; one process runs all the traces in seconds
# (group, what it varies): roomy and tight KV caches; prompts sharing prefixes (hash_ids) in a roomy and a tight
# cache; a tight cache with vLLM's scheduler_reserve_full_isl off (kv_admission chunk); token budgets of a few
# tokens, as many as the sequence limit at most (vLLM asks max_num_batched_tokens >= max_num_seqs), so decodes
# and chunks fight for every token of the budget.
GROUPS = ("roomy", "tight", "shared", "shared-tight", "first-chunk", "small-budget")


def trace(seed: int, group: str) -> dict:
    """A random trace and budgets: prompts longer than the token budget (so prefills are chunked) beside short
    ones. A roomy cache holds every request at once; a tight one holds the longest request and a few blocks.
    Shared prompts draw their hash blocks from a few common prefixes (as a system prompt or a conversation's
    earlier turns), so the prefix cache finds blocks computed by another request, running or done."""
    rng = random.Random(seed * len(GROUPS) + GROUPS.index(group))
    block_size = rng.choice((2, 4, 8))
    prefix_block = block_size * rng.choice((1, 2))
    budget = rng.randint(2, 6) if group == "small-budget" else rng.randint(8, 32)
    shared = group.startswith("shared")
    roots = [[rng.randrange(10**6) for _ in range(6)] for _ in range(rng.randint(1, 3))]
    arrival, requests = 0, []
    for i in range(rng.randint(3, 12 if shared else 10)):
        arrival += rng.choice((0, 0, 1, 2, 5))
        r = {"name": f"r{i}", "arrival": arrival, "prompt": rng.randint(1, 40), "output": rng.randint(1, 12)}
        if shared:  # a common prefix of a few hash blocks, then blocks of its own
            ids = rng.choice(roots)[:rng.randint(0, 6)]
            r["hash_ids"] = ids + [10**6 + i * 100 + k for k in range(-(-r["prompt"] // prefix_block) - len(ids))]
        requests.append(r)
    blocks = [math.ceil((r["prompt"] + r["output"]) / block_size) for r in requests]
    tight = group != "roomy" and group != "shared"
    kv_blocks = max(blocks) + rng.randint(0, 3) if tight else sum(blocks) + 1
    return {"requests": requests, "token_budget": budget,
            "max_seqs": rng.randint(2, budget) if group == "small-budget" else rng.randint(2, 8),
            "kv_blocks": kv_blocks, "block_size": block_size, "prefix_cache": True, "prefix_block": prefix_block,
            "reserve_full_isl": group != "first-chunk"}


def simulated(setup: dict) -> dict[str, list[int]]:
    """The trace through `--preset vllm-v1 --first-token prefill` (the CLI's Config and Policy for those flags;
    `--kv-admission chunk` where vLLM's scheduler_reserve_full_isl is off)."""
    config = Config(setup["token_budget"], setup["max_seqs"], first_token="prefill", kv_blocks=setup["kv_blocks"],
                    block_size=setup["block_size"], prefix_block=setup["prefix_block"])
    policy = Policy(preset="vllm-v1", kv_admission="overcommit" if setup["reserve_full_isl"] else "chunk")
    schedule = simulate(validate(setup["requests"]), config, policy)
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
def oracle() -> dict[tuple[int, str], dict]:
    """Every trace through vLLM's scheduler, in one process (importing vLLM takes seconds, a trace milliseconds)."""
    keys = [(seed, group) for group in GROUPS for seed in SEEDS]
    done = subprocess.run([ORACLE, str(ROOT / "kit" / "vllm_oracle.py")], capture_output=True, text=True,
                          input=json.dumps([trace(*key) for key in keys]), timeout=600, check=True)
    results = json.loads(done.stdout)
    assert {r["vllm"] for r in results} == {"0.33.0"}
    return dict(zip(keys, results))


def test_the_groups_test_what_they_say(oracle):
    """The tight groups do run short (vLLM preempts in most of their traces), and the shared ones do share
    (in most traces some request's prompt begins with blocks another's also begins with)."""
    for group in ("tight", "shared-tight", "first-chunk"):
        assert sum(oracle[seed, group]["preemptions"] > 0 for seed in SEEDS) > len(SEEDS) // 2, group
    for group in ("shared", "shared-tight"):
        sharing = 0
        for seed in SEEDS:
            firsts = [tuple(r["hash_ids"][:1]) for r in trace(seed, group)["requests"] if r["prompt"] >= 16]
            sharing += len(firsts) > len(set(firsts))
        assert sharing > len(SEEDS) // 2, group


def test_the_worked_example_agrees(oracle):
    """The seed's example (A=(0,4,5), B=(0,2,2), C=(3,3,4), budget 8) in engine mode: each prefill samples its
    first token, so A's come at 1..5, B's at 1..2 and C's at 4..7, in vLLM and the simulator alike."""
    setup = {"requests": [{"name": "A", "arrival": 0, "prompt": 4, "output": 5},
                          {"name": "B", "arrival": 0, "prompt": 2, "output": 2},
                          {"name": "C", "arrival": 3, "prompt": 3, "output": 4}],
             "token_budget": 8, "max_seqs": 8, "kv_blocks": 64, "block_size": 4, "prefix_cache": True,
             "prefix_block": 4, "reserve_full_isl": True}
    done = subprocess.run([ORACLE, str(ROOT / "kit" / "vllm_oracle.py")], capture_output=True, text=True,
                          input=json.dumps(setup), timeout=300, check=True)
    expected = {"A": [1, 2, 3, 4, 5], "B": [1, 2], "C": [4, 5, 6, 7]}
    assert json.loads(done.stdout)["emitted"] == expected == simulated(setup)


@pytest.mark.parametrize("group", GROUPS)
@pytest.mark.parametrize("seed", SEEDS)
def test_vllm_and_the_simulator_agree(oracle, seed, group):
    """vLLM's scheduler and the simulator give every token of every request the same tick."""
    assert first_difference(oracle[seed, group]["emitted"], simulated(trace(seed, group))) is None
