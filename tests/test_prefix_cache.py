"""Automatic prefix caching (sim.core.kv.PrefixCache, sim.core.prefix), cache-aware ordering (lpm), and the
presets whose engines cannot run here, each rule tested with the source line it follows."""
import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.core.config import Config, ConfigError, Policy
from sim.core.engine import simulate
from sim.core.kv import PrefixCache
from sim.core.prefix import block_keys
from sim.core.presets import PRESET_OPTIONS
from sim.report.export import run_json
from sim.report.metrics import compute
from sim.report.prometheus import prometheus_text
from sim.trace.generate import Uniform, shared_prefix
from sim.trace.trace import Request, TraceError, read_csv, validate, write_csv
from tests.scheduler_kit import per_tick, segs

ROOT = Path(__file__).resolve().parents[1]
MOONCAKE = ROOT.parent / "shared" / "traces" / "mooncake_synthetic_trace.jsonl"
CACHE = Policy(prefix_cache=True)


def shared(n=4, gap=3, prompt=20, output=4, system=(7, 8)):
    """Requests whose prompts start with the same two 8-token hash blocks, then one block of their own."""
    return validate([{"name": f"r{i}", "arrival": i * gap, "prompt": prompt, "output": output,
                      "hash_ids": [*system, 100 + i]} for i in range(n)])


CONFIG = Config(64, kv_blocks=40, block_size=4, prefix_block=8)


# -- the block pool -----------------------------------------------------------------------------------------

def test_a_shared_block_is_held_by_both_and_stays_cached_after_both_free_it():
    pool = PrefixCache(6, 4)
    pool.allocate(0, 2)
    pool.remember(0, ["a", "b"])
    assert pool.share(1, ["a", "b", "c"]) == 2  # the two it holds, not the third
    assert pool.tables[1] == pool.tables[0] and pool.refs[:2] == [2, 2] and pool.free == 4
    pool.free_request(0)
    pool.free_request(1)
    assert pool.free == 6 and pool.cached(["a", "b"]) == 2  # free, and still findable


def test_free_blocks_are_reused_oldest_first_and_forget_their_keys():
    pool = PrefixCache(3, 4)
    pool.allocate(0, 3)
    pool.remember(0, ["a", "b", "c"])
    pool.free_request(0)  # last block first, as nano-vllm frees: c, b, a
    pool.allocate(1, 1)  # takes the longest free: c's block
    assert pool.cached(["a", "b", "c"]) == 2 and pool.cached(["c"]) == 0


class OneListPool(PrefixCache):
    """The free queue as PrefixCache's docstring defines it, kept the plain way: one list of every free block,
    the longest free first (a freed block to its tail; with unhashed_first a keyless one to its head)."""

    def __init__(self, num_blocks: int, block_size: int, unhashed_first: bool):
        super().__init__(num_blocks, block_size, unhashed_first)
        self.queue, self.refs = list(range(num_blocks)), [0] * num_blocks

    @property
    def free(self) -> int:
        return len(self.queue)

    def allocate(self, request, blocks):
        new = [self.queue.pop(0) for _ in range(blocks)]
        for block in new:
            key = self.key_of.pop(block, None)
            if key is not None:
                self.forget(key, block)
            self.refs[block] = 1
        self._extend(request, new)
        return new

    def share(self, request, keys):
        table = []
        for key in keys:
            block = self.block_of.get(key)
            if block is None:
                break
            if self.refs[block] == 0:
                self.queue.remove(block)
            self.refs[block] += 1
            table.append(block)
        self._extend(request, table)
        return len(table)

    def free_request(self, request):
        table, first = self.tables.pop(request, []), []
        for block in reversed(table):
            self.refs[block] -= 1
            if self.refs[block] == 0:
                (first if self.unhashed_first and block not in self.key_of else self.queue).append(block)
        self.queue[:0] = first  # (the first of them ends at the head)
        return len(table)


@settings(max_examples=300, deadline=None)
@given(vllm=st.booleans(), blocks=st.integers(1, 12),
       ops=st.lists(st.tuples(st.sampled_from(["allocate", "share", "remember", "free"]), st.integers(0, 6),
                              st.lists(st.integers(0, 4), max_size=4)), max_size=40))
def test_the_free_queue_hands_out_the_blocks_one_list_of_every_free_block_would(vllm, blocks, ops):
    """PrefixCache keeps its free queue as a head, the fresh ids as a range, and a tail, so a pool of millions of
    blocks costs nothing until they are used: every block id it hands out, every block it finds cached and the
    queue's order are those of one list of every free block."""
    pool, plain = PrefixCache(blocks, 4, unhashed_first=vllm), OneListPool(blocks, 4, unhashed_first=vllm)
    for op, request, keys in ops:
        held = request in plain.tables
        if op == "allocate" and request >= 0:
            n = min(len(keys) + 1, plain.free)
            assert pool.allocate(request, n) == plain.allocate(request, n)
        elif op == "share" and not held:
            assert pool.share(request, keys) == plain.share(request, keys)
        elif op == "remember" and held:  # (keys as a prefix's: each names the ones before it too)
            chain = [tuple(keys[:k + 1]) for k in range(len(keys))]
            pool.remember(request, chain)
            plain.remember(request, chain)
        elif op == "free":
            assert pool.free_request(request) == plain.free_request(request)
        assert pool.tables == plain.tables and pool.free == plain.free
        assert (pool.block_of, pool.key_of, pool.later) == (plain.block_of, plain.key_of, plain.later)
        assert [*pool._head, *range(pool._fresh, blocks), *pool._tail] == plain.queue


def test_keys_name_the_whole_prefix_and_keep_requests_apart():
    a = Request("a", 0, 20, 4, hash_ids=(7, 8, 100))
    b = Request("b", 0, 20, 4, hash_ids=(7, 9, 101))
    ka, kb = block_keys(a, 0, 20, 4, 8), block_keys(b, 1, 20, 4, 8)
    assert ka[:2] == kb[:2] and ka[2] != kb[2]  # the first hash block is shared, the second is not
    assert ka[4] == ("hash", 100, 0) != kb[4]  # tokens 16-20 lie in each one's third hash block
    assert block_keys(a, 0, 28, 4, 8)[6] == ("own", 0, 6)  # past the prompt: a block of its own
    text = Request("t", 0, 8, 2, text="abcdefgh")
    other = Request("u", 0, 8, 2, text="abcdXXXX")
    assert block_keys(text, 0, 8, 4, 512)[0] == block_keys(other, 1, 8, 4, 512)[0]  # same first 4 bytes
    assert block_keys(text, 0, 8, 4, 512)[1] != block_keys(other, 1, 8, 4, 512)[1]


# -- the scheduler ------------------------------------------------------------------------------------------

def test_cached_tokens_skip_prefill_and_its_budget():
    """r1..r3 find the two 8-token hash blocks of the system prompt (16 tokens: 4 KV blocks of 4) and prefill
    the 4 tokens that are their own."""
    schedule = simulate(shared(), CONFIG, CACHE)
    assert [r.cached for r in schedule.requests] == [0, 16, 16, 16]
    assert segs(schedule, "r1")[0] == ("prefill", 3, 4, 4)
    m = compute(schedule)
    assert (m.prefix_queried, m.prefix_hits) == (80, 48) and m.prefix_hit_rate == 0.6
    assert m.prefill_tokens == 80 - 48


def test_without_the_cache_nothing_changes():
    a, b = simulate(shared(), CONFIG, Policy()), simulate(shared(), CONFIG, replace(CACHE, prefix_cache=False))
    assert [r.segments for r in a.requests] == [r.segments for r in b.requests]
    assert all(r.cached == 0 for r in a.requests)


def test_a_prompt_found_whole_computes_its_last_block_again_as_vllm_does():
    trace = validate([{"name": n, "arrival": t, "prompt": 16, "output": 2, "hash_ids": [7, 8]}
                      for n, t in (("a", 0), ("b", 4))])
    schedule = simulate(trace, CONFIG, CACHE)
    assert schedule.requests[1].cached == 12 and segs(schedule, "b")[0] == ("prefill", 4, 5, 4)


def test_a_block_is_found_only_once_its_prefill_is_planned():
    """Chunks of 4: r0's second system block (tokens 8-15) is computed in its third tick; r1, arriving in its
    first, finds only the first system block, computed then (found in the same tick, as in vLLM, whose blocks
    are cached as their tokens are scheduled). Found earlier, its attention would read KV not yet written."""
    trace = validate([{"name": f"r{i}", "arrival": i, "prompt": 20, "output": 2, "hash_ids": [7, 8, 100 + i]}
                      for i in range(2)])
    schedule = simulate(trace, replace(CONFIG, token_budget=8), replace(CACHE, chunk_size=4))
    assert schedule.requests[1].cached == 4 + 4  # blocks 0 and 1 of r0 (tokens 0-7), planned in ticks 0 and 1


def test_a_preempted_request_finds_its_own_blocks_again():
    """Overcommitted into a tight cache, the newest is preempted; its recompute finds its full blocks cached."""
    trace = validate([{"name": f"r{i}", "arrival": 0, "prompt": 8, "output": 12} for i in range(3)])
    config = Config(64, kv_blocks=13, block_size=4)
    policy = Policy(kv_admission="overcommit")
    plain, cached = simulate(trace, config, policy), simulate(trace, config, replace(policy, prefix_cache=True))
    assert sum(r.preemptions for r in plain.requests) > 0
    assert sum(r.cached for r in cached.requests) > 0
    assert sum(r.recomputed for r in cached.requests) < sum(r.recomputed for r in plain.requests)


def test_a_prefill_in_chunks_works_out_each_blocks_key_once_and_grows_one_table(monkeypatch):
    """A prompt of 2,000 blocks (of 4 tokens) prefilled in chunks of 2 blocks, blocks taken chunk by chunk: each
    chunk works out the keys of its own blocks, not of every block before it again (2,000 keys for the prefill,
    where each chunk's 2,000 would be 2,000,000), and its block table is one list that grows, never copied
    whole. Before, both grew as the square of the prompt's blocks: two prompts of 200,000 tokens in chunks of 32
    took 12 s with the cache."""
    import sim.core.memory as memory

    worked_out = []

    def counted(*args):
        keys = block_keys(*args)
        worked_out.append(len(keys))
        return keys

    monkeypatch.setattr(memory, "block_keys", counted)
    from sim.core.policies import make_scheduler
    blocks = 2_000
    trace = validate([{"name": "long", "arrival": 0, "prompt": blocks * 4, "output": 2}])
    scheduler = make_scheduler(replace(CACHE, chunk_size=8, kv_admission="chunk"), trace,
                               Config(8, kv_blocks=blocks + 2, block_size=4))
    tables, now = set(), 0
    while scheduler.remaining:
        scheduler.advance(now)
        it = scheduler.plan(now, 1)
        tables.add(id(scheduler.memory.pool.tables.get(0)))
        scheduler.commit(it, now, now + 1)
        now += 1
    assert now == blocks // 2 + 2  # a chunk a tick, then its two tokens (the seed: a prefill emits none)
    assert len(tables - {id(None)}) == 1
    # the prefill's chunks: 2,000 keys; the admission's look-up and the free add the prompt's once each
    assert blocks <= sum(worked_out) <= 3 * blocks + 2


def test_a_look_up_stops_at_the_first_block_the_cache_lacks(monkeypatch):
    """vLLM's rules: a prompt of 2,500 blocks waits, never cached, while another request decodes in a pool too
    small for both; each plan looks it up again. A look-up works out its keys one at a time and stops at the
    first the pool lacks: about one key a plan, then the prompt's own as it prefills, where each look-up
    worked out all 2,500 (about 500,000 in all)."""
    import sim.core.memory as memory

    worked_out = [0]

    def listed(*args):
        keys = block_keys(*args)
        worked_out[0] += len(keys)
        return keys

    def counted(*args):
        for key in block_keys(*args):
            worked_out[0] += 1
            yield key

    monkeypatch.setattr(memory, "block_keys", listed)
    monkeypatch.setattr(memory, "iter_block_keys", counted)
    blocks = 2_500
    trace = validate([{"name": "long", "arrival": 0, "prompt": 64, "output": 4_000},
                      {"name": "waits", "arrival": 1_000, "prompt": blocks * 16, "output": 2}])
    schedule = simulate(trace, Config(1 << 20, max_seqs=2, kv_blocks=blocks + 50, block_size=16),
                        Policy(preset="vllm-v1"))
    assert schedule.requests[1].first_token > 4_000  # it waited for the first to finish
    assert worked_out[0] < 3 * blocks


def test_json_and_prometheus_report_the_cache():
    schedule = simulate(shared(), CONFIG, CACHE)
    data = run_json(schedule, compute(schedule))
    assert data["prefix_cache"] == {"queried_tokens": 80, "hit_tokens": 48, "hit_rate": 0.6}
    assert [r["cached_tokens"] for r in data["requests"]] == [0, 16, 16, 16]
    text = prometheus_text(schedule, compute(schedule), 0.001)
    assert 'vllm:prefix_cache_queries_total{model_name="batching-classroom",engine="0"} 80.0' in text
    assert 'vllm:prefix_cache_hits_total{model_name="batching-classroom",engine="0"} 48.0' in text
    plain = simulate(shared(), CONFIG, Policy())
    assert "prefix_cache" not in run_json(plain, compute(plain))


def test_hash_ids_round_trip_and_bad_ones_are_named():
    trace = shared()
    assert read_csv(write_csv(trace)) == trace
    with pytest.raises(TraceError) as error:
        validate([{"name": "a", "arrival": 0, "prompt": 4, "output": 1, "hash_ids": "1 x"}])
    assert [(p.code, p.column) for p in error.value.problems] == [("bad_hash_ids", "hash_ids")]


def test_the_cache_needs_a_kv_cache():
    with pytest.raises(ConfigError, match="prefix_cache"):
        simulate(shared(), Config(64), CACHE)


def test_the_shared_prefix_generator_shares_the_system_prompt_and_each_turns_history():
    trace = shared_prefix(6, 0.2, 20, Uniform(5, 10), Uniform(3, 6), turns=3, block=8, seed=1)
    firsts = {r.hash_ids[:2] for r in trace}
    assert firsts == {(1, 2)}  # the system prompt's two full blocks, in every request
    by_conversation = {}
    for r in trace:
        by_conversation.setdefault(r.hash_ids[2], []).append(r)
    for turns in by_conversation.values():  # each turn's ids extend the one before
        ordered = sorted(turns, key=lambda r: r.arrival)
        for before, after in zip(ordered, ordered[1:]):
            assert after.hash_ids[:len(before.hash_ids)] == before.hash_ids and after.prompt > before.prompt
    hits = compute(simulate(trace, Config(64, kv_blocks=100, block_size=4, prefix_block=8), CACHE))
    assert hits.prefix_hit_rate > 0.4


@pytest.mark.skipif(not MOONCAKE.exists(), reason="../shared/traces is not here")
def test_on_mooncakes_trace_the_cache_reports_a_hit_rate_and_lowers_ttft():
    """The importer keeps Mooncake's hash_ids (512-token blocks); 300 requests from 900 s into the trace (where
    they share the most among themselves: a cache starts empty), under the big-GPU latency model, arrivals in
    ms. (Measured: hit rate 37%, TTFT p50 56.5 s -> 37.6 s: the trace is heavy for one server.)"""
    out = []
    for extra in ([], ["--prefix-cache"]):
        run = subprocess.run([sys.executable, "-m", "sim", "run", "--trace", str(MOONCAKE), "--format", "mooncake",
                              "--ms-per-tick", "1", "--start-s", "900", "--limit", "300", "--token-budget", "16384",
                              "--max-seqs", "64", "--chunk-size", "8192", "--kv-blocks", "100000",
                              "--block-size", "16", "--kv-admission", "overcommit", "--cost-preset", "big-gpu",
                              "--json", *extra], capture_output=True, text=True, cwd=ROOT, check=True)
        out.append(json.loads(run.stdout))
    plain, cached = out
    assert cached["prefix_cache"]["hit_rate"] > 0.2
    assert cached["percentiles"]["ttft"]["p50"] < plain["percentiles"]["ttft"]["p50"]


# -- cache-aware order (SGLang's lpm) -----------------------------------------------------------------------

def test_lpm_admits_the_longest_cached_prefix_first():
    """sglang schedule_policy.py (ad0119fd) `_sort_by_longest_prefix`: waiting requests by the prefix the cache
    holds, longest first. `late` shares the whole system prompt with `early`'s runner and goes before it."""
    rows = [{"name": "runner", "arrival": 0, "prompt": 16, "output": 6, "hash_ids": [7, 8]},
            {"name": "early", "arrival": 1, "prompt": 16, "output": 2, "hash_ids": [50, 51]},
            {"name": "late", "arrival": 2, "prompt": 16, "output": 2, "hash_ids": [7, 8]}]
    config = Config(16, 2, kv_blocks=40, block_size=4, prefix_block=8)
    order = {r.name: r.first_work for r in simulate(validate(rows), config, replace(CACHE, order="lpm")).requests}
    fcfs = {r.name: r.first_work for r in simulate(validate(rows), config, replace(CACHE, order="fcfs")).requests}
    assert order["late"] < order["early"] and fcfs["early"] < fcfs["late"]


def test_lpm_falls_back_to_arrival_order_past_128_waiting():
    """`_determine_active_policy`: `if self.policy == CacheAwarePolicy.LPM and len(waiting_queue) > 128:
    return CacheAgnosticPolicy.FCFS`."""
    from sim.core.policies import make_scheduler

    rows = [{"name": f"r{i}", "arrival": 0, "prompt": 4, "output": 1, "hash_ids": [i % 2 + 1]} for i in range(130)]
    scheduler = make_scheduler(replace(CACHE, order="lpm"), validate(rows),
                               Config(4, 1, kv_blocks=600, block_size=4, prefix_block=4))
    scheduler.arrive_until(0)
    scheduler.memory.pool.allocate(999, 1)
    scheduler.memory.pool.remember(999, [("hash", 2, 0)])  # r1, r3, ... would match one block
    scheduler.queue.refresh(0)
    assert scheduler.queue._sorted[:2] == [0, 1]  # 130 waiting: arrival order
    assert len(rows) > 128


def test_lpm_needs_the_cache():
    with pytest.raises(ConfigError, match="lpm"):
        Policy(order="lpm")


# -- presets whose code cannot run here: their rules -------------------------------------------------------

def test_the_newest_victim_is_the_last_admitted_not_the_latest_arrival():
    """vllm/v1/core/sched/scheduler.py (0.33.0, :970) and nano-vllm's scheduler preempt `self.running.pop()`, the
    request admitted last (the vllm-v1 preset's victim "newest"). Under shortest-job-first the order of
    admission is not that of arrival: at 16 the two rules preempt different requests."""
    rows = [{"name": "r0", "arrival": 2, "prompt": 4, "output": 11}, {"name": "r1", "arrival": 1, "prompt": 5,
                                                                     "output": 11},
            {"name": "r2", "arrival": 1, "prompt": 5, "output": 8}, {"name": "r3", "arrival": 3, "prompt": 6,
                                                                    "output": 12}]
    config, policy = Config(16, 3, kv_blocks=8, block_size=2), Policy(order="sjf", kv_admission="overcommit")

    def victims(rule):
        schedule = simulate(validate(rows), config, replace(policy, victim=rule))
        return [(time, schedule.requests[i].name) for time, kind, i in schedule.events if kind == "preempt"]

    newest, latest = victims("newest"), victims("latest")
    assert newest[-1] == (16, "r2") and latest[-1] == (16, "r0")  # r2 was admitted again at 10, after r0
    assert PRESET_OPTIONS["vllm-v1"]["victim"] == "newest"


def test_vllm_v1_admits_nobody_in_a_step_that_preempted():
    """`if not preempted_reqs:` before the waiting queue: r3, waiting at the step r2 is preempted in, is not
    admitted in it."""
    rows = [{"name": f"r{i}", "arrival": 0, "prompt": 4, "output": 12} for i in range(3)]
    rows.append({"name": "r3", "arrival": 4, "prompt": 2, "output": 2})
    schedule = simulate(validate(rows), Config(16, 4, kv_blocks=9, block_size=4), Policy(preset="vllm-v1"))
    preempted = [time for time, kind, _ in schedule.events if kind == "preempt"]
    assert preempted
    joined = {time for step in schedule.steps for time in [step.start] if any(c >= 0 for c in step.changes)}
    assert not set(preempted) & joined


def test_vllm_v1_chunks_a_prefill_to_the_budget_left():
    """`num_new_tokens = min(num_new_tokens, token_budget)`: a 20-token prompt under a budget of 8 runs in
    chunks of 8, 8 and 4 (no --chunk-size needed)."""
    trace = validate([{"name": "long", "arrival": 0, "prompt": 20, "output": 2}])
    schedule = simulate(trace, Config(8, kv_blocks=20, block_size=4), Policy(preset="vllm-v1"))
    assert [s[3] for s in segs(schedule, "long") if s[0] == "prefill"] == [20]  # one segment of three ticks
    assert per_tick(schedule, "prefill_tokens") == {0: 8, 1: 8, 2: 4, 3: 0, 4: 0}


# vLLM 0.33.0's block rules (the v0.33.0 release, commit 4ba787ec9), which the vllm-v1 preset follows besides its
# options (sim.core.presets.VllmV1); tests/test_vllm_oracle.py holds them to vLLM's own scheduler where it is
# installed. Each example here is one vLLM gave, run by that oracle.
def vllm_ticks(rows, budget, seqs, blocks, block_size, admission="overcommit", prefix_block=512):
    """Each request's token ticks under `--preset vllm-v1 --first-token prefill` (vLLM's model runner samples
    a token at a prompt's end), and the schedule."""
    config = Config(budget, seqs, first_token="prefill", kv_blocks=blocks, block_size=block_size,
                    prefix_block=prefix_block)
    schedule = simulate(validate(rows), config, Policy(preset="vllm-v1", kv_admission=admission))
    return {r.name: [int(t) for t in ts] for r, ts in zip(schedule.requests, schedule.emitted())}, schedule


def rows_of(*requests):
    return [{"name": n, "arrival": a, "prompt": p, "output": o} for n, a, p, o in requests]


def test_vllm_v1_takes_blocks_chunk_by_chunk():
    """`KVCacheManager.allocate_slots` (vllm/v1/core/kv_cache_manager.py:380), called for each step's new
    tokens (vllm/v1/core/sched/scheduler.py:914 for running requests, :1435 for waiting ones): a 20-token prompt
    in chunks of 8, 8 and 4 holds 2, 4 and 5 blocks of 4 as they run, not 5 from its admission on."""
    _, schedule = vllm_ticks(rows_of(("long", 0, 20, 2)), 8, None, 20, 4)
    assert schedule.requests[0].kv[:3] == [(0, 2), (1, 4), (2, 5)]


def test_vllm_v1_admits_only_a_whole_prompt_that_fits_unless_told_not_to():
    """`scheduler_reserve_full_isl` (vllm/config/scheduler.py:190, True by default; read as
    `full_sequence_must_fit` at kv_cache_manager.py:531): B's 10-token prompt needs 3 of the 4 blocks, and
    A holds 1, then 2 as it decodes, so B waits until A is done. Off (`--kv-admission chunk`, vLLM before it),
    B's first chunk of 2 tokens suffices and B starts a tick earlier."""
    rows = rows_of(("A", 0, 3, 4), ("B", 0, 10, 2))
    assert vllm_ticks(rows, 5, 2, 4, 4)[0] == {"A": [1, 2, 3, 4], "B": [6, 7]}
    assert vllm_ticks(rows, 5, 2, 4, 4, "chunk")[0] == {"A": [1, 2, 3, 4], "B": [5, 6]}


def test_vllm_v1_reuses_a_freed_unhashed_block_first():
    """`BlockPool.free_blocks` (vllm/v1/core/block_pool.py:816) puts a freed block with no hash (a partial last
    block) at the head of the free queue (`prepend_n`, :845) and hashed ones at its tail (`append_n`, :847):
    so C, admitted after A and B left, keeps B's cached blocks longer. Appending all at the tail (nano-vllm's
    rule) evicts one of them, and C and D come a tick later: C [4, 10, 11], D [11..18]."""
    rows = rows_of(("A", 0, 2, 8), ("B", 2, 3, 7), ("C", 2, 9, 3), ("D", 3, 7, 8), ("E", 4, 6, 8), ("F", 6, 9, 7))
    ticks, _ = vllm_ticks(rows, 8, 3, 6, 4)
    assert ticks["C"] == [4, 9, 10] and ticks["D"] == list(range(10, 18))


def test_vllm_v1_counts_shared_blocks_a_running_request_holds_as_free():
    """`get_num_blocks_to_allocate` (vllm/v1/core/single_type_kv_cache_manager.py:176): the blocks a waiting
    request needs are its whole prompt's less its prefix-cache hit, plus the hit blocks that are free (taking
    them empties them from the free queue). W shares 3 of its 4 blocks with R, which holds them: it needs 1
    free block, and gets in at 1 beside R, not after R is done at 8."""
    rows = [{"name": "R", "arrival": 0, "prompt": 16, "output": 8, "hash_ids": [1, 2, 3, 4]},
            {"name": "W", "arrival": 1, "prompt": 16, "output": 2, "hash_ids": [1, 2, 3, 9]}]
    ticks, schedule = vllm_ticks(rows, 32, 4, 6, 4, prefix_block=4)
    first = next(seg for seg in schedule.requests[1].segments if seg.phase == "prefill")
    assert ticks["W"][0] == 2 and (first.start, first.tokens) == (1, 4)  # (12 tokens found cached)


def test_vllm_v1_finds_the_first_block_cached_of_two_alike():
    """`BlockHashToBlockMap` (vllm/v1/core/block_pool.py:36) keeps every block cached under a hash and
    `get_one_block` returns the first: a block that computed the same tokens later is found only once the
    first is taken for other tokens. (nano-vllm's block manager moves the hash to the newer block.)"""
    from sim.core.kv import PrefixCache

    for vllm in (True, False):
        pool = PrefixCache(4, 2, unhashed_first=vllm)
        pool.allocate(0, 1)
        pool.remember(0, ["k"])  # request 0's block 0 holds the tokens of "k"
        pool.allocate(1, 1)
        pool.remember(1, ["k"])  # and so does request 1's block 1, computed beside it
        assert pool.block_of["k"] == (0 if vllm else 1)
    pool.free_request(0)
    pool.allocate(2, 3)  # takes blocks 2, 3 and then 0, the oldest freed: "k" is found in block 1 from then on
    assert pool.block_of["k"] == 1


def test_trt_guaranteed_no_evict_never_preempts_and_admits_only_what_it_can_finish():
    """GUARANTEED_NO_EVICT: a request starts only if the KV for its whole sequence is free."""
    rows = [{"name": f"r{i}", "arrival": 0, "prompt": 4, "output": 12} for i in range(4)]
    schedule = simulate(validate(rows), Config(16, kv_blocks=10, block_size=4),
                        Policy(preset="trt-guaranteed-no-evict"))
    assert not any(kind == "preempt" for _, kind, _ in schedule.events)
    assert max(s.running for s in schedule.steps) == 2  # 4 + 12 - 1 = 15 tokens: 4 blocks each, 10 in all


def test_trt_guaranteed_no_evict_stops_at_the_first_request_that_does_not_fit():
    """`// If one requests fails to be scheduled, break`: a long request that cannot reserve its whole sequence
    holds back a short one behind it that would fit."""
    rows = [{"name": "running", "arrival": 0, "prompt": 4, "output": 20},
            {"name": "long", "arrival": 1, "prompt": 8, "output": 20},
            {"name": "short", "arrival": 2, "prompt": 2, "output": 2}]
    schedule = simulate(validate(rows), Config(16, kv_blocks=10, block_size=4),
                        Policy(preset="trt-guaranteed-no-evict"))
    start = {t.name: t.first_work for t in schedule.requests}
    assert start["short"] == start["long"] == 21  # short (1 block) would fit beside "running" (6 of 10)


def test_a_preset_keeps_its_own_rules():
    with pytest.raises(ConfigError, match="order"):
        simulate(shared(), CONFIG, Policy(preset="vllm-v1", order="sjf"))
    with pytest.raises(ConfigError, match="kv_blocks"):
        simulate(shared(), Config(64), Policy(preset="sglang"))
    schedule = simulate(shared(), CONFIG, Policy(preset="sglang"))
    assert schedule.options.preset == "sglang"  # the run says which preset made it


def test_the_lpm_lesson_shows_more_hits_faster_chats_and_starved_loners():
    from ui import prefix_lesson

    fcfs, lpm = prefix_lesson.lpm_runs()
    assert lpm.metrics.prefix_hit_rate > fcfs.metrics.prefix_hit_rate + 0.1
    assert prefix_lesson.ttft_of(lpm, "chat") < prefix_lesson.ttft_of(fcfs, "chat")
    assert prefix_lesson.ttft_of(lpm, "loner") > prefix_lesson.ttft_of(fcfs, "loner")  # starvation
