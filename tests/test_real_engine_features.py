"""The real engine does what the simulator draws (issue 17): a lean batch layout (the vectorised pack, the steady
decode batch moved on), swap preemption with real copies to a host pool, speculative decoding verified by the
model, and CUDA-graph buckets (the decision and the buffers a graph replays on; the capture needs CUDA)."""
import json

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from gpu_demo import batch as batch_module
from gpu_demo import kv_cache as kv_module
from gpu_demo.batch import PAD, Sequences, pack
from gpu_demo.engine import engine_config, hashed_prompts, run
from gpu_demo.graphs import GraphRunner, blank_batch, replays, static_batch
from gpu_demo.kv_cache import HostPool, PagedKVCache
from gpu_demo.loading import load_model
from gpu_demo.model import GPTConfig, forward_packed
from gpu_demo.prompts import prompts_for
from sim.core.config import Config, Policy
from sim.core.iteration import Iteration
from sim.core.policies import make_scheduler
from sim.report.metrics import compute
from sim.trace.generate import Uniform, generate
from sim.trace.trace import validate
from tests.test_chat import cli
from tests.test_gpu_demo import OUTPUTS, PROMPTS, alone, trace_of
from ui.numbers import duration, share

CPU = torch.device("cpu")


@pytest.fixture(scope="module")
def model64():
    return load_model("cpu", "float64")


@pytest.fixture(scope="module")
def reference(model64):
    return [alone(model64, p, n) for p, n in zip(PROMPTS, OUTPUTS)]


def served(model, config, policy, prompts=PROMPTS, outputs=OUTPUTS):
    return run(model, trace_of(prompts, outputs), prompts, config, policy)


# -- the lean loop: the vectorised layout is the per-token one ---------------------------------------------------

def per_token_layout(it, tables, sequences, done, block_size, scratch):
    """The batch as the engine once laid it out, a Python loop over every token: (request, position, token)
    rows, each group's (request, first position, tokens) and the wanted rows."""
    rows, groups, wanted = [], [], []
    emitting = set(it.prefill_emits)

    def group(request, first, n, emits):
        groups.append((request, first, n))
        for position in range(first, first + n):
            token = PAD if request is None else sequences[request][position]
            slot = scratch if request is None else tables[request][position // block_size] * block_size \
                + position % block_size
            rows.append((position, token, slot))
        if emits:
            wanted.extend(range(len(rows) - (n if emits == "all" else 1), len(rows)))

    for i, first, n in it.prefill:
        if n == 0:
            if i in emitting:
                group(i, done[i] - 1, 1, True)
            continue
        group(i, first, n, i in emitting)
        done[i] = first + n
    for i in it.decoding:
        index = min(done[i], len(sequences[i]) - 1)
        group(i, index, 1, True)
        done[i] = index + 1
    for _ in range(it.padding + it.graph_padding):
        group(None, 0, 1, False)
    return rows, groups, wanted


POLICIES = {"continuous": Policy(), "chunked": Policy(chunk_size=16), "static": Policy(batching="static"),
            "graphs": Policy(graph_buckets=(2, 4, 8)), "overcommit": Policy(kv_admission="overcommit")}


@pytest.mark.parametrize("policy", POLICIES.values(), ids=POLICIES.keys())
@pytest.mark.parametrize("first_token", ["decode", "prefill"])
def test_the_packed_batch_is_the_per_token_layout(monkeypatch, policy, first_token):
    """Every iteration of a scheduler's run, packed by whole-tensor operations (and moved on as a steady decode
    batch), holds the tokens, positions, cache slots, key slots and causal mask a loop over its tokens gives."""
    moved = []
    real = batch_module._step_on
    monkeypatch.setattr(batch_module, "_step_on", lambda *a: moved.append(1) or real(*a))
    model_config = GPTConfig()
    trace = generate(14, rate=2.0, prompt=Uniform(4, 60), output=Uniform(1, 24), seed=11)
    kv = 60 if policy.kv_admission == "overcommit" else None
    config = engine_config(Config(64, max_seqs=5, first_token=first_token, kv_blocks=kv), _Model(model_config))
    scheduler = make_scheduler(policy, trace, config, unit="ms")
    cache = PagedKVCache(model_config, config.kv_blocks, config.block_size, CPU, torch.float64, len(trace))
    prompts = [bytes(65 + (i + j) % 26 for j in range(r.prompt)) for i, r in enumerate(trace.requests)]
    sequences = Sequences(prompts, cache.row, CPU)
    mirror = [list(p) for p in prompts]  # the per-token side's own sequences
    done, mirror_done, now = [0] * len(trace), [0] * len(trace), 0
    while scheduler.remaining:
        scheduler.advance(now)
        it = scheduler.plan(now, 1)
        if it is None:
            now = scheduler.next_event()
            continue
        packed = pack(it, cache, sequences, done, CPU)
        rows, groups, wanted = per_token_layout(it, it.blocks, mirror, mirror_done, config.block_size, cache.scratch)
        _same_batch(packed.batch, rows, groups, wanted, it.blocks, config.block_size)
        made = [(7 * now + i) % 250 + 1 for i in range(len(packed.emitters))]  # any tokens, known to both sides
        sequences.append(packed.emitters, torch.tensor(made, dtype=torch.long), packed.emit_at)
        for i, token in zip(packed.emitters, made):
            mirror[i].append(token)
        scheduler.commit(it, now, now + 1)
        now += 1
    assert sequences.outputs() == [bytes(m[len(p):]) for m, p in zip(mirror, prompts)]
    if policy.batching == "continuous" and not policy.graph_buckets:  # (padding rows are laid out afresh)
        assert len(moved) > 10  # decode iterations move the last batch on


class _Model:  # what engine_config reads of a model
    def __init__(self, config):
        self.config = config


def _same_batch(batch, rows, groups, wanted, tables, block_size):
    assert batch.positions.tolist() == [r[0] for r in rows]
    assert batch.tokens.tolist() == [r[1] for r in rows]
    assert batch.write_slots.tolist() == [r[2] for r in rows]
    assert batch.out_rows.tolist() == wanted
    start = 0
    for g, (request, first, n) in enumerate(groups):
        own = batch.mask[g, 0]  # (Q, L)
        for q in range(n):
            assert own[q].tolist() == [k <= first + q for k in range(own.shape[1])]  # causal, from its first
        if request is not None:  # the keys it reads, up to its last token, are its own slots
            table = tables[request]
            assert batch.key_slots[g, :first + n].tolist() == [table[k // block_size] * block_size + k % block_size
                                                              for k in range(first + n)]
        if batch.query_index is not None:
            assert batch.query_index[g, :n].tolist() == list(range(start, start + n))
            assert batch.query_valid[g].tolist() == [q < n for q in range(batch.query_valid.shape[1])]
        start += n


def test_a_moved_on_batch_reads_a_block_taken_since(model64):
    """The steady batch reads the slot mirror as it is now: a decoder that took a new block since the last
    iteration writes and reads it."""
    config = GPTConfig()
    cache = PagedKVCache(config, 40, 4, CPU, torch.float64, 2)
    sequences = Sequences([b"abcdefg", b"xyz"], cache.row, CPU)
    tables = {0: [3, 9], 1: [5]}
    done = [7, 3]
    it = Iteration(decoding=[0, 1], blocks=tables)
    first = pack(it, cache, sequences, done, CPU)
    sequences.append(first.emitters, torch.tensor([66, 67]), first.emit_at)
    tables[0].append(12)  # request 0's next position (8) is in a block of its own
    tables[1].append(6)
    moved = pack(it, cache, sequences, done, CPU)
    assert moved.batch.positions.tolist() == [7, 3] and moved.batch.tokens.tolist() == [66, 67]
    assert moved.batch.write_slots.tolist() == [9 * 4 + 3, 5 * 4 + 3]
    sequences.append(moved.emitters, torch.tensor([68, 69]), moved.emit_at)
    third = pack(it, cache, sequences, done, CPU)
    assert third.batch.write_slots.tolist() == [12 * 4 + 0, 6 * 4 + 0]
    assert third.batch.key_slots[0, :9].tolist() == [3 * 4 + k for k in range(4)] + [9 * 4 + k for k in range(4)] + [48]
    assert sequences.outputs() == [b"BD", b"CE"]


# -- swap preemption: real copies, the same outputs ---------------------------------------------------------------

SWAPPED = {
    "overcommit": (Config(64, kv_blocks=14, block_size=4), Policy(kv_admission="overcommit", preempt="swap")),
    "prefill-mode": (Config(64, kv_blocks=14, block_size=4, first_token="prefill"),
                     Policy(kv_admission="overcommit", preempt="swap")),
    "chunked": (Config(32, kv_blocks=14, block_size=4), Policy(kv_admission="overcommit", preempt="swap",
                                                               chunk_size=6)),
    "speculative": (Config(64, kv_blocks=16, block_size=4), Policy(kv_admission="overcommit", preempt="swap",
                                                                   spec_tokens=2)),
}


@pytest.mark.parametrize("case", SWAPPED)
def test_swapped_runs_give_the_outputs_of_runs_without_preemption(model64, reference, monkeypatch, case):
    """Each swapped-out request's blocks are copied to the host pool and back into its new blocks; what the
    cache held there in between is overwritten here, so only the copies can bring its KV back."""
    real = HostPool.swap_out

    def swap_out_and_spoil(pool, request, blocks):
        seconds = real(pool, request, blocks)
        for layer_cache in (pool.cache.k, pool.cache.v):
            pool.cache.blocks(layer_cache)[:, blocks] = 1e3  # the device copy is gone
        return seconds

    monkeypatch.setattr(kv_module.HostPool, "swap_out", swap_out_and_spoil)
    config, policy = SWAPPED[case]
    result = served(model64, config, policy)
    assert result.outputs == reference
    directions = [c.direction for c in result.swaps]
    assert directions.count("out") >= 1 and directions.count("in") >= 1
    assert sum(r.swapped_blocks for r in result.schedule.requests) == sum(
        c.blocks for c in result.swaps if c.direction == "out")
    assert all(c.ms > 0 for c in result.swaps)  # each copy timed
    assert sum(t.swap_ms for t in result.timings) == pytest.approx(sum(c.ms for c in result.swaps))


def test_the_host_pool_copies_blocks_out_and_back_exactly_and_grows():
    cache = PagedKVCache(GPTConfig(), 6, 4, CPU, torch.float32)
    pool = HostPool(cache, blocks=2)
    cache.k.normal_()
    cache.v.normal_()
    k_before = cache.blocks(cache.k)[:, [4, 1, 2]].clone()
    v_before = cache.blocks(cache.v)[:, [4, 1, 2]].clone()
    pool.swap_out(7, [4, 1, 2])  # more blocks than the pool holds: it grows
    cache.k.zero_()
    cache.v.zero_()
    pool.swap_in(7, [0, 5, 3])
    assert torch.equal(cache.blocks(cache.k)[:, [0, 5, 3]], k_before)
    assert torch.equal(cache.blocks(cache.v)[:, [0, 5, 3]], v_before)
    assert len(pool.free) == len(pool.k[0]) and 7 not in pool.held


def test_the_scheduler_hands_each_swap_copy_to_the_next_iteration():
    """Swap-outs carry the blocks the request held, swap-ins its new blocks (as many), each once, on the
    iteration planned right after."""
    trace = generate(30, rate=3.0, prompt=Uniform(2, 12), output=Uniform(4, 30), seed=5)
    config = Config(16, kv_blocks=24, block_size=4)
    policy = Policy(kv_admission="overcommit", preempt="swap")
    scheduler = make_scheduler(policy, trace, config)
    held, outs, ins, now = {}, [], [], 0
    while scheduler.remaining:
        before = {i: list(table) for i, table in scheduler.memory.pool.tables.items()}
        scheduler.advance(now)
        it = scheduler.plan(now, 1)
        if it is None:
            now = scheduler.next_event()
            continue
        for i, blocks in dict(it.swapped_out).items():
            assert blocks == before.get(i, held.get(i)) and len(blocks) == scheduler.states[i].swapped_blocks
            outs.append(i)
        for i, blocks in dict(it.swapped_in).items():
            assert blocks == scheduler.memory.pool.tables[i] and len(blocks) == scheduler.states[i].swapped_blocks
            ins.append(i)
        held = {i: list(table) for i, table in scheduler.memory.pool.tables.items()}
        scheduler.commit(it, now, now + 1)
        now += 1
    events = scheduler.schedule.events
    assert outs == [i for _, kind, i in events if kind == "swap_out"] and len(outs) > 3
    assert ins == [i for _, kind, i in events if kind == "swap_in"]


# -- speculative decoding: drafted by the first layer, verified by the model ---------------------------------------

SPECULATIVE = {
    "k1": (Config(64), Policy(spec_tokens=1)),
    "k3": (Config(64), Policy(spec_tokens=3)),
    "k6-prefill-mode": (Config(64, first_token="prefill"), Policy(spec_tokens=6)),
    "chunked": (Config(16), Policy(spec_tokens=3, chunk_size=5)),
    "overcommit-recompute": (Config(64, kv_blocks=16, block_size=4), Policy(spec_tokens=2,
                                                                             kv_admission="overcommit")),
    "max-seqs": (Config(64, max_seqs=2), Policy(spec_tokens=4)),
}


@pytest.mark.parametrize("case", SPECULATIVE)
def test_speculative_runs_give_plain_greedy_outputs(model64, reference, case):
    config, policy = SPECULATIVE[case]
    result = served(model64, config, policy)
    assert result.outputs == reference
    steps = result.schedule.steps
    k = policy.spec_tokens
    assert all(s.decode_tokens == (k + 1) * s.decode_sequences for s in steps)  # the budget counts k + 1
    accepted = sum(s.spec_accepted * s.iterations for s in steps)
    assert accepted == sum(result.accepted) > 0
    assert result.proposed >= accepted and 0 < result.acceptance_rate <= 1
    # every decoder's step made 1 + its accepted drafts: all the tokens the trace asks for, no more
    made = sum((s.decode_sequences + s.spec_accepted) * s.iterations for s in steps)
    prefill_made = sum(len(r.prefill_emits) for r in result.schedule.requests)
    assert made + prefill_made == sum(OUTPUTS)


def test_settle_replaces_the_drawn_acceptance_and_finds_the_last_steps_again():
    trace = generate(4, rate=1e9, prompt=Uniform(3, 3), output=Uniform(5, 5), seed=0)
    scheduler = make_scheduler(Policy(spec_tokens=3, spec_accept=0.0), trace, Config(64, first_token="prefill"),
                               unit="ms")
    scheduler.advance(0)
    it = scheduler.plan(0, 1)
    scheduler.commit(it, 0, 1)  # the prefills: each made its first token
    scheduler.advance(1)
    it = scheduler.plan(1, 1)
    assert dict(it.accepted) == {0: 0, 1: 0, 2: 0, 3: 0} and it.finishing == []
    with pytest.raises(ValueError, match="request 1: 4 drafts accepted"):
        scheduler.settle(it, {1: 4})
    scheduler.settle(it, {0: 3, 2: 1})  # request 0 makes its last 4 tokens in this step
    assert dict(it.accepted) == {0: 3, 1: 0, 2: 1, 3: 0} and it.finishing == [0]
    scheduler.commit(it, 1, 2)
    assert scheduler.schedule.requests[0].completion == 2
    assert [scheduler.generated(i) for i in (1, 2, 3)] == [2, 3, 2]


def test_the_simulator_predicts_a_speculative_run_at_its_measured_acceptance(model64):
    from gpu_demo.compare import compare
    from gpu_demo.profile import path_for

    result = served(model64, Config(64), Policy(spec_tokens=2, spec_accept=0.9))
    _, _, predicted = compare(result, trace_of(PROMPTS, OUTPUTS), Policy(spec_tokens=2, spec_accept=0.9), "tick",
                              path_for("cpu", "float32"))
    assert predicted.options.spec_accept == pytest.approx(result.acceptance_rate, abs=1e-4) != 0.9


# -- CUDA graphs: the decision, the buffers a graph replays on, the fallback ----------------------------------------

def test_which_batches_replay_a_graph():
    single = blank_batch(4, 16, 0, CPU)
    decode = Iteration(decoding=[0, 1, 2], graph_padding=1)
    assert replays(decode, single, (1, 2, 4, 8), cuda=True)
    assert not replays(decode, single, (1, 2, 4, 8), cuda=False)  # graphs need CUDA
    assert not replays(decode, single, (1, 2, 8), cuda=True)  # not a captured size: eager
    assert not replays(Iteration(prefill=[(0, 0, 4)]), single, (4,), cuda=True)  # a prefill: eager
    multi = blank_batch(4, 16, 0, CPU)
    multi.query_index = torch.zeros((4, 2), dtype=torch.long)  # several tokens a group (speculative steps)
    assert not replays(decode, multi, (4,), cuda=True)


def test_a_graphs_buffers_give_the_eager_logits(model64):
    """A decode batch copied into a bucket's buffers (padded rows, the key slots beyond its span masked) gives
    the logits the eager pass gives: what a captured graph replays is the same computation."""
    cache = PagedKVCache(model64.config, 60, 4, CPU, torch.float64, 3)
    cache.k.normal_()
    cache.v.normal_()
    sequences = Sequences([b"def f(x):", b"return", b"import os, sys"], cache.row, CPU)
    tables = {0: [0, 1, 2], 1: [7, 8], 2: [20, 21, 22, 23]}
    it = Iteration(decoding=[0, 1, 2], graph_padding=1, blocks=tables)
    packed = pack(it, cache, sequences, [9, 6, 14], CPU)
    k_before, v_before = cache.k.clone(), cache.v.clone()
    eager = forward_packed(model64, packed.batch, cache.k, cache.v)
    cache.k.copy_(k_before)
    cache.v.copy_(v_before)
    buffers = blank_batch(4, model64.config.context, cache.scratch, CPU)
    padded = forward_packed(model64, static_batch(packed.batch, buffers, cache.scratch), cache.k, cache.v)
    assert torch.allclose(padded[packed.batch.out_rows], eager, rtol=0, atol=1e-10)


def test_on_the_cpu_padded_batches_run_eagerly_and_say_why(model64, reference):
    assert not GraphRunner(model64, PagedKVCache(model64.config, 8, 4, CPU, torch.float64), (1, 2)).cuda
    result = served(model64, Config(64), Policy(graph_buckets=(2, 4, 8)))
    assert result.outputs == reference and result.graphs == "cpu"
    assert not any(t.graph for t in result.timings)
    padding = sum(s.graph_padding * s.iterations for s in result.schedule.steps)
    assert padding == sum(t.graph_padding for t in result.timings) > 0
    assert all(t.decode_rows in (2, 4, 8) for t in result.timings if t.graph_padding)  # padded up to a bucket


# -- the command line --------------------------------------------------------------------------------------------

def gpu_demo_cli(*args):
    return cli(*args, module="gpu_demo")


@pytest.fixture
def small_trace(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("name,arrival,prompt,output\na,0,20,30\nb,0,30,25\nc,1,10,40\n")
    return str(path)


def test_the_cli_runs_speculative_decoding_and_reports_the_drafts(small_trace):
    out = gpu_demo_cli("run", "--trace", small_trace, "--token-budget", "64", "--spec-tokens", "3", "--json")
    assert out.returncode == 0, out.stderr
    document = json.loads(out.stdout)
    spec = document["spec"]
    assert set(spec) == {"proposed", "accepted", "acceptance_rate"}
    assert spec["accepted"] == sum(r["accepted"] for r in document["requests"]) <= spec["proposed"]
    assert spec["acceptance_rate"] == pytest.approx(spec["accepted"] / spec["proposed"])
    assert [len(r["output_text"].encode()) for r in document["requests"]] == [30, 25, 40]


def test_the_cli_reports_swap_copies_and_graph_buckets(small_trace):
    out = gpu_demo_cli("run", "--trace", small_trace, "--token-budget", "64", "--kv-blocks", "20",
                       "--kv-admission", "overcommit", "--preempt", "swap", "--graph-buckets", "1,2,4", "--json")
    assert out.returncode == 0, out.stderr
    document = json.loads(out.stdout)
    assert document["swaps"] and {c["direction"] for c in document["swaps"]} == {"out", "in"}
    assert all(c["request"] in "abc" and c["blocks"] > 0 and c["ms"] > 0 for c in document["swaps"])
    graphs = document["graphs"]
    assert graphs["buckets"] == [1, 2, 4] and graphs["replayed_iterations"] == 0 and not graphs["captured"]
    assert "CUDA" in graphs["note"] and graphs["padding_rows"] >= 0
    assert "spec" not in document


def test_prompts_share_the_bytes_their_hash_ids_share():
    """A trace of lengths with hash_ids (Mooncake's, the shared-prefix generator's) gets prompts of its lengths
    whose bytes are equal exactly as far as their ids are: so the engine, which hashes bytes, finds what the
    simulator finds by ids."""
    trace = validate([{"name": "a", "arrival": 0, "prompt": 30, "output": 2, "hash_ids": [1, 2, 3]},
                      {"name": "b", "arrival": 0, "prompt": 28, "output": 2, "hash_ids": [1, 2, 4]},
                      {"name": "c", "arrival": 0, "prompt": 12, "output": 2, "hash_ids": [5]},
                      {"name": "d", "arrival": 0, "prompt": 9, "output": 2}])
    a, b, c, d = prompts_for(trace, 0, prefix_block=8)
    assert [len(p) for p in (a, b, c, d)] == [30, 28, 12, 9]
    assert a[:16] == b[:16] and a[16:24] != b[16:24]  # ids 1, 2 shared, then 3 against 4
    assert c[:8] not in (a[:8], a[8:16], a[16:24])
    assert prompts_for(trace, 0, prefix_block=8) == [a, b, c, d]  # (deterministic)
    assert prompts_for(trace, 0)[0][:16] != prompts_for(trace, 0)[1][:16]  # without a block size: snippets


def test_the_labs_shared_prefix_trace_is_found_on_the_real_model_as_in_the_simulator(model64):
    """The lab's "Shared prefixes" preset served by the engine: its cache finds about what the simulator's does
    (the two schedules differ in time, not in what the prompts share)."""
    from sim.core.engine import run as simulate
    from ui.presets import PRESETS
    from ui.real_model import prepare

    preset = PRESETS["shared_prefix"]
    trace = preset.build()
    fitted, prompts = prepare(trace, model64.config.context, 0, "none", preset.config.prefix_block)
    assert [r.prompt for r in fitted.requests] == [r.prompt for r in trace.requests]
    served_run = compute(run(model64, fitted, prompts, preset.config, preset.policy_b).schedule)
    simulated = compute(simulate(make_scheduler(preset.policy_b, trace, preset.config)))
    assert served_run.prefix_queried == simulated.prefix_queried
    assert served_run.prefix_hits == pytest.approx(simulated.prefix_hits, rel=0.1)


def test_the_cli_reports_what_the_prefix_cache_found(tmp_path):
    """Prompts given in words that share a first line: the later ones find its blocks (no KV size given: the
    engine sizes its cache)."""
    path = tmp_path / "shared.csv"
    path.write_text("name,arrival,text,output\na,0,import os import sys: def main(argv) return 0,8\n"
                    "b,1,import os import sys: def main(argv) print(argv),8\n")
    out = gpu_demo_cli("run", "--trace", str(path), "--token-budget", "128", "--prefix-cache", "--json")
    assert out.returncode == 0, out.stderr
    document = json.loads(out.stdout)
    shared = len("import os import sys: def main(argv) ") // 4 * 4  # whole blocks of 4 bytes
    assert [r["cached_tokens"] for r in document["requests"]] == [0, shared]
    assert document["prefix_cache"]["hit_tokens"] == shared
    text = gpu_demo_cli("run", "--trace", str(path), "--token-budget", "128", "--prefix-cache")
    assert f"prefix cache: {shared} of " in text.stdout


# -- the page ------------------------------------------------------------------------------------------------------

def test_the_real_model_page_shows_speculation_swaps_and_graphs():
    from sim import codec
    from tests.test_app import open_page
    from ui.lab_state import WIDGET

    at = open_page("pages/real_model.py")
    chosen = {"a": Policy(spec_tokens=2),
              "b": Policy(kv_admission="overcommit", preempt="swap", graph_buckets=(2, 4, 8))}
    for side, policy in chosen.items():  # the policy and its form's widgets, as a scenario sets them
        setattr(at.session_state["real_model"], f"policy_{side}", policy)
        for name, value in codec.flat(policy).items():
            at.session_state[f"{WIDGET}rm_policy_{side}_{name}"] = codec.shown(name, value)
    at.run()
    at.number_input(key="w_rm_kv_blocks").set_value(100).run()
    at.button(key="rm_run").click().run(timeout=300)
    assert not at.exception, at.exception
    results = at.session_state["real_model"].shown.results
    assert results[0].acceptance_rate is not None and results[1].swaps
    spoken = [m.value for m in at.markdown if "self-speculation" in m.value]
    assert len(spoken) == 1 and share(results[0].acceptance_rate) in spoken[0]  # (ui/numbers.py's form)
    titles = [json.loads(c.proto.spec)["layout"]["title"]["text"] for c in at.get("plotly_chart")]
    assert any("swap copies" in title for title in titles) and any("CUDA graphs" in title for title in titles)
    captions = " ".join(c.value for c in at.caption)
    assert "CUDA graphs need a CUDA device" in captions and "copies of KV blocks" in captions
    at.button(key="rm_spec_lab_A").click().run()
    lab_a = at.session_state["lab"].settings.policy_a
    assert lab_a.spec_tokens == 2 and lab_a.spec_accept == pytest.approx(results[0].acceptance_rate, abs=1e-4)
    assert any("now drafts 2 tokens" in s.value for s in at.success)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 12), min_size=1, max_size=6), st.integers(1, 5))
def test_the_slot_mirror_follows_any_sequence_of_tables(lengths, seed):
    """Tables that grow, shrink or are replaced, seen in any order: the mirror's row of each request is its
    blocks' slots, then the scratch block's."""
    import random

    rng = random.Random(seed)
    cache = PagedKVCache(GPTConfig(context=48), 40, 4, CPU, torch.float32, len(lengths))
    tables = {}
    for _ in range(4):
        for i, n in enumerate(lengths):
            old = tables.get(i, [])
            tables[i] = old + rng.sample(range(40), min(n, 12 - len(old))) if rng.random() < 0.6 else \
                rng.sample(range(40), rng.randint(0, 12))
        cache.sync_tables(tables, list(range(len(lengths))))
        for i in range(len(lengths)):
            blocks = tables[i] + [40] * (12 - len(tables[i]))
            assert cache.slots[i].tolist() == [b * 4 + o for b in blocks for o in range(4)]
    assert cache.slots[cache.pad_row].tolist() == [160 + o for o in range(4)] * 12



# -- prefix caching: blocks really shared, only the uncached suffix prefilled ------------------------------------

HEADER = b"import os\nimport re\nimport sys\n\ndef main(argv):\n"  # 48 bytes: 12 blocks of 4 shared below
SHARED_PROMPTS = [HEADER + b"    return 0", HEADER + b"    for arg in argv:", HEADER + b"    return 0",  # (a whole
                  b"class Node:\n    def __init__(self):", HEADER + b"    if not argv:\n        raise"]  # hit: 60)
SHARED_OUTPUTS = [10, 14, 10, 8, 12]
CACHED = {
    "continuous": (Config(128, block_size=4), Policy(prefix_cache=True)),
    "prefill-mode": (Config(128, block_size=4, first_token="prefill"), Policy(prefix_cache=True)),
    "chunked": (Config(24, block_size=4), Policy(prefix_cache=True, chunk_size=8)),
    "tight-recompute": (Config(128, kv_blocks=24, block_size=4),
                        Policy(prefix_cache=True, kv_admission="overcommit", preempt="recompute")),
    "tight-nano-vllm": (Config(128, kv_blocks=24, block_size=4), Policy(preset="nano-vllm")),  # (whole hits kept)
}


@pytest.fixture(scope="module")
def shared_reference(model64):
    return [alone(model64, p, n) for p, n in zip(SHARED_PROMPTS, SHARED_OUTPUTS)]


def tables_seen(monkeypatch) -> dict[int, list[list[int]]]:
    """Every block table the engine's cache is handed, by request (recorded as the engine syncs them)."""
    seen: dict[int, list[list[int]]] = {}
    real = PagedKVCache.sync_tables

    def record(cache, tables, requests, grown_only=False):
        for i in requests:
            if not seen.get(i) or seen[i][-1] != tables[i]:
                seen.setdefault(i, []).append(list(tables[i]))
        return real(cache, tables, requests, grown_only)

    monkeypatch.setattr(kv_module.PagedKVCache, "sync_tables", record)
    return seen


@pytest.mark.parametrize("case", CACHED)
def test_prefix_cached_runs_give_the_outputs_of_generating_alone(model64, shared_reference, case):
    """Float64 greedy outputs are those of each request generated alone: a shared block holds exactly the K and
    V the request would have computed (and a recompute finds its own blocks again)."""
    config, policy = CACHED[case]
    result = served(model64, config, policy, SHARED_PROMPTS, SHARED_OUTPUTS)
    assert result.outputs == shared_reference
    assert sum(r.cached for r in result.schedule.requests) > 0
    if case.startswith("tight"):  # a preempted request prefilled again finds what it computed before
        assert any(r.preemptions and r.cached for r in result.schedule.requests)


def test_a_cached_prefix_is_the_same_blocks_and_only_the_suffix_is_prefilled(model64, monkeypatch):
    seen = tables_seen(monkeypatch)
    config, policy = CACHED["continuous"]
    result = served(model64, config, policy, SHARED_PROMPTS, SHARED_OUTPUTS)
    first = {i: tables[0] for i, tables in seen.items()}
    assert first[1][:13] == first[0][:13] and first[4][:13] == first[0][:13]  # HEADER + 4 spaces: the same ids
    assert first[1][13] != first[0][13]
    assert first[2][:14] == first[0][:14]  # a whole prompt found: its last block computed again (as in vLLM)
    assert first[2][14] != first[0][14]
    assert not set(first[3]) & set(first[0])  # a prompt sharing nothing shares no block
    cached = [r.cached for r in result.schedule.requests]
    assert cached == [0, 52, 56, 0, 52]
    prefilled = sum(t.prefill_rows for t in result.timings)
    assert prefilled == sum(map(len, SHARED_PROMPTS)) - sum(cached)  # the model computed only the suffixes


def test_prompts_of_different_bytes_share_no_block():
    """The engine's block hashes come from the prompt bytes: equal ids only where the bytes up to the block's
    end are equal."""
    trace = hashed_prompts(trace_of(SHARED_PROMPTS, SHARED_OUTPUTS), SHARED_PROMPTS, 4)
    ids = [r.hash_ids for r in trace.requests]
    assert [len(i) for i in ids] == [len(p) // 4 for p in SHARED_PROMPTS]
    assert ids[0][:13] == ids[1][:13] == ids[4][:13] and ids[0] == ids[2]
    assert ids[0][13] != ids[1][13] and not set(ids[3]) & set(ids[0])


def test_the_real_model_page_measures_what_a_shared_system_prompt_saves():
    """The scenario puts A without and B with a prefix cache in the forms; after the run the page says what B's
    cache found and the measured TTFT p50 of both (ms)."""
    from tests.test_app import open_page

    at = open_page("pages/real_model.py")
    at.radio(key="w_rm_source").set_value("shared_prompt").run()
    state = at.session_state["real_model"]
    assert not state.policy_a.prefix_cache and state.policy_b.prefix_cache
    assert any("You review Python" in c.value for c in at.caption)
    at.button(key="rm_run").click().run(timeout=300)
    assert not at.exception, at.exception
    results = at.session_state["real_model"].shown.results
    a, b = (compute(r.schedule) for r in results)
    assert a.prefix_hits == 0 and (b.prefix_hits, b.prefix_queried) == (288, 456)  # the system prompt, 7 times of 8
    assert b.prefill_tokens == a.prefill_tokens - b.prefix_hits
    found = [m.value for m in at.markdown if "prefix cache held" in m.value]
    assert len(found) == 1 and found[0].startswith("**Policy 2**") and share(b.prefix_hit_rate) in found[0]
    ttft = [m.value for m in at.markdown if m.value.startswith("Measured TTFT p50")]
    assert len(ttft) == 1 and duration(b.percentiles["ttft"][50]) in ttft[0]
    assert duration(a.percentiles["ttft"][50]) in ttft[0]
