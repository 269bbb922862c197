"""sim is deterministic across processes: runs made under two string-hash seeds are identical, bit for bit.

Two runs in one process share Python's hash seed, so an order that follows `hash(name)` (a set of names, a
tie broken by hash) looks deterministic there; only processes with different PYTHONHASHSEED values show it."""
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

from sim.core.config import ORDERS, POLICIES, PRESETS, Config, Policy
from sim.core.engine import simulate
from sim.report.export import run_json
from sim.report.metrics import compute
from sim.trace.trace import validate

ROOT = Path(__file__).resolve().parents[1]

# Two waves of requests that tie in every sort key (arrival, prompt, priority, deadline) and differ in output,
# under a budget that admits only some of each wave at once: the order ties are broken in changes the schedule.
_COLUMNS = ("name", "arrival", "prompt", "output", "priority", "deadline", "tenant", "cancel_at")
_ROWS = (
    ("mint", 0, 3, 6, 1, 40, "a", None), ("fig", 0, 3, 2, 1, 40, "b", None), ("kiwi", 0, 3, 7, 1, 40, "a", 9),
    ("pear", 0, 3, 4, 1, 40, "b", None), ("plum", 0, 3, 5, 1, 40, "a", None), ("lime", 0, 3, 3, 1, 40, "b", None),
    ("yam", 5, 2, 5, 0, 25, "a", None), ("oat", 5, 2, 3, 0, 25, "b", None), ("rye", 5, 2, 6, 0, 25, "a", None),
    ("soy", 5, 2, 4, 0, 25, "b", 14),
)
TRACE = validate([dict(zip(_COLUMNS, row)) for row in _ROWS])
CONFIGS = (Config(6), Config(6, first_token="prefill", kv_blocks=8, block_size=2))
RUNS = (*(Policy(batching, order=order) for batching in POLICIES for order in ORDERS if order != "lpm"),
        Policy(order="sjf", sjf_key="output"), Policy(chunk_size=2),
        Policy(kv_admission="overcommit", preempt="recompute"),
        Policy(kv_admission="overcommit", preempt="swap", victim="lowest-priority"),
        Policy(order="priority", preemptive_priority=True), Policy(tenant_quotas=(("a", 0.5), ("b", 0.5))),
        Policy(timeout=12), Policy(graph_buckets=(1, 2, 4)), Policy(spec_tokens=2, spec_accept=0.5, seed=7))


# Prefix caching (the waves share a first block within a wave), its queue order and the engines' presets.
PREFIX_TRACE = validate([{**dict(zip(_COLUMNS, row)), "hash_ids": [row[1], 100 + n]}
                         for n, row in enumerate(_ROWS)])
PREFIX_CONFIG = Config(10, kv_blocks=10, block_size=2, prefix_block=2)
PREFIX_RUNS = (Policy(prefix_cache=True, kv_admission="overcommit", preempt="recompute", order="lpm"),
               *(Policy(preset=preset) for preset in PRESETS if preset))


def digest() -> str:
    """SHA-256 of every run's JSON export, canonical (sorted keys, no spaces), under every config."""
    runs = [(TRACE, config, policy) for config in CONFIGS for policy in RUNS]
    runs += [(PREFIX_TRACE, PREFIX_CONFIG, policy) for policy in PREFIX_RUNS]
    runs = [run_json(schedule, compute(schedule)) for schedule in (simulate(*run) for run in runs)]
    return hashlib.sha256(json.dumps(runs, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def digest_under(hash_seed: str) -> str:
    """digest() computed in a fresh interpreter with this PYTHONHASHSEED."""
    done = subprocess.run([sys.executable, "-c", "from tests.test_determinism import digest; print(digest())"],
                          cwd=ROOT, env={**os.environ, "PYTHONHASHSEED": hash_seed}, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_every_policy_runs_the_same_under_any_hash_seed():
    assert digest_under("1") == digest_under("2")
