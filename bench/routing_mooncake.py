"""Routers on the shared Mooncake trace (FAST'25, its hash_ids prefix blocks of 512 tokens): the prompt tokens found
in the prefix cache across 4 replicas under round-robin, least-requests and prefix-affinity, and under one replica
with the same total cache.

The whole trace (3,993 requests, 1 tick = 1 s of its timestamps), token budget 16,384 a tick, 64 sequences,
chunked prefill of 2,048, prefix caching, 20,000 KV blocks of 16 tokens a replica (80,000 for the one replica).
Not a timing: each router's hit rate, once (the runs are deterministic).
Usage: python bench/routing_mooncake.py [--limit N]
"""
import argparse
import sys
from dataclasses import replace

from common import SHARED

from sim.core.cluster import Routing, simulate_cluster
from sim.core.config import Config, Policy
from sim.core.engine import simulate
from sim.report.metrics import compute
from sim.trace.importers import ImportOptions, import_mooncake
from sim.trace.trace import Trace

parser = argparse.ArgumentParser()
parser.add_argument("--limit", type=int, help="only the first N requests")
args = parser.parse_args()

path = SHARED / "traces" / "mooncake_synthetic_trace.jsonl"
if not path.exists():
    sys.exit(f"{path} is not present: this benchmark routes it")
source = import_mooncake(path.read_bytes(), ImportOptions(ms_per_tick=1000)).trace
trace = Trace(source.requests[:args.limit])
REPLICAS, BLOCKS = 4, 20_000
config = Config(16384, max_seqs=64, kv_blocks=BLOCKS, block_size=16, prefix_block=512)
policy = Policy(prefix_cache=True, chunk_size=2048)
print(f"{len(trace.requests):,} requests, {REPLICAS} replicas of {BLOCKS:,} blocks of 16 tokens")
for router in ("round-robin", "least-requests", "prefix-affinity"):
    metrics = [compute(s) for s in simulate_cluster(trace, config, policy, Routing(REPLICAS, router)).schedules]
    queried, hits = sum(m.prefix_queried for m in metrics), sum(m.prefix_hits for m in metrics)
    print(f"{router:>16}: {hits:,} of {queried:,} prompt tokens found cached, hit rate {hits / queried:.1%}")
one = compute(simulate(trace, replace(config, kv_blocks=REPLICAS * BLOCKS), policy))
print(f"{'one replica':>16}: {one.prefix_hits:,} of {one.prefix_queried:,} with {REPLICAS * BLOCKS:,} blocks, "
      f"hit rate {one.prefix_hit_rate:.1%}")
