"""Many engines behind a router (sim.core.cluster): each replica is the one scheduler, unchanged, so the schedule
of each is the one a single engine makes of the requests placed on it alone; the routers' rules, by hand; bad
input named."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sim.core.cluster import BALANCE_ABS, ROUTERS, Routing, Split, Transfer, simulate_cluster, simulate_split
from sim.core.config import Config, ConfigError, CostModel, Policy
from sim.core.engine import simulate
from sim.core.policies import make_scheduler
from sim.core.schedule import Segment
from sim.report.export import run_json
from sim.report.metrics import cluster_metrics, combine, compute, fleet_requests, percentiles, split_metrics
from sim.report.prometheus import fleet_text, prometheus_text
from sim.trace.trace import Request, Trace, TraceError, write_csv
from tests import schedule_cases
from tests.test_properties import option_scenarios

SHARED = Path(__file__).resolve().parents[2] / "shared"


def as_alone(schedule) -> str:
    return json.dumps(run_json(schedule, compute(schedule)), sort_keys=True)


def each_replica_as_alone(trace: Trace, config: Config, policy: Policy, routing: Routing) -> None:
    """The cluster's run, each replica against a single engine serving only the requests placed on it; or the
    same error as a single engine's run of the whole trace."""
    try:
        simulate(trace, config, policy)
    except (ConfigError, TraceError) as error:
        with pytest.raises(type(error)):
            simulate_cluster(trace, config, policy, routing)
        return
    run = simulate_cluster(trace, config, policy, routing)
    assert len(run.placed) == len(trace.requests) and set(run.placed) <= set(range(routing.replicas))
    for k, schedule in enumerate(run.schedules):
        mine = Trace(tuple(r for r, placed in zip(trace.requests, run.placed) if placed == k))
        assert [t.name for t in schedule.requests] == [r.name for r in mine.requests]
        assert as_alone(schedule) == as_alone(simulate(mine, config, policy)), (routing, k)


def routers_for(trace: Trace, config: Config, policy: Policy) -> tuple[str, ...]:
    """Every router, prefix-affinity only where the engine caches prefixes."""
    try:
        cached = make_scheduler(policy, trace, config).memory.prefix is not None
    except (ConfigError, TraceError):
        cached = False
    return tuple(r for r in ROUTERS if r != "prefix-affinity" or cached)


@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(option_scenarios(), st.integers(1, 4), st.data())
def test_each_replica_schedules_its_requests_as_one_engine_alone(scenario, replicas, data):
    trace, config, policy = scenario
    policy = Policy(batching=policy) if isinstance(policy, str) else policy
    router = data.draw(st.sampled_from(routers_for(trace, config, policy)))
    each_replica_as_alone(trace, config, policy, Routing(replicas, router, seed=data.draw(st.integers(0, 9))))


def test_the_property_tests_scenarios_behind_every_router():
    """Every kept scenario (profile costs, experts and every preset among them), routed by each router in
    turn over 2 to 4 replicas."""
    cases = schedule_cases.load()
    for n, case in enumerate(cases):
        trace, config, policy = schedule_cases.decode(case)
        routers = routers_for(trace, config, policy)
        each_replica_as_alone(trace, config, policy, Routing(2 + n % 3, routers[n % len(routers)], seed=n))


@pytest.mark.parametrize("c_attn", [0.0, 0.125])
def test_runs_held_past_an_arrival_are_cut_where_it_lands(c_attn):
    """Under a latency model whose lengths are multiples of 1/8 ms, iterations now and then start at the very ms
    a request arrives: a run of decodes held past an arrival placed on its replica is cut to the iterations that
    start before it (one that starts at it must see it)."""
    import random
    rng = random.Random(5)
    t, rows = 0, []
    for i in range(300):
        t += rng.choice((0, 1, 2, 5, 13, 40))
        rows.append(Request(f"r{i}", t, rng.randint(1, 6), rng.randint(1, 60)))
    config = Config(64, cost=CostModel("linear", c0=1.0, c_prefill=0.25, c_decode=0.25, c_attn=c_attn))
    for router in ("least-requests", "least-tokens"):
        for replicas in (2, 3):
            each_replica_as_alone(Trace(tuple(rows)), config, Policy(), Routing(replicas, router))


def test_one_replica_is_the_single_engine():
    trace = Trace(tuple(Request(f"r{i}", i // 2, 3 + i % 5, 2 + i % 7) for i in range(40)))
    config = Config(8, kv_blocks=30, block_size=4)
    for router in ROUTERS[:3]:
        run = simulate_cluster(trace, config, Policy(kv_admission="overcommit"), Routing(1, router))
        assert run.placed == [0] * 40
        assert as_alone(run.schedules[0]) == as_alone(simulate(trace, config, Policy(kv_admission="overcommit")))


def test_an_idle_replica_waits_for_every_request_arriving_with_its_next():
    """B and C arrive together at 10, after A is done: the replica, idle, must not plan at 10 before C is placed
    (else B would come in alone and C an iteration later)."""
    trace = Trace((Request("A", 0, 4, 2), Request("B", 10, 4, 2), Request("C", 10, 4, 2)))
    run = simulate_cluster(trace, Config(8), Policy(), Routing(1, "least-requests"))
    assert as_alone(run.schedules[0]) == as_alone(simulate(trace, Config(8), Policy()))
    assert [r.first_token for r in run.schedules[0].requests] == [2, 12, 12]


def test_round_robin_deals_in_arrival_order():
    trace = Trace(tuple(Request(f"r{i}", i, 4, 4) for i in range(7)))
    run = simulate_cluster(trace, Config(8), Policy(), Routing(3, "round-robin"))
    assert run.placed == [0, 1, 2, 0, 1, 2, 0] and run.local == [0, 0, 0, 1, 1, 1, 2]


def test_least_requests_counts_what_waits_or_runs_when_the_request_arrives():
    """By hand, budget 8: A (0, prompt 4, output 9) goes to replica 0 (all tied: the lowest index). B at 1 finds
    A running on 0 and nothing on 1: it goes to 1. C at 2: one each, tied: 0. D at 3: 0 holds two: 1. Then E at
    20, after B (done at 1 + 1 + 2 = 4) and D have finished on 1 and A, C still run on 0: 1 again."""
    trace = Trace((Request("A", 0, 4, 9), Request("B", 1, 4, 2), Request("C", 2, 4, 20), Request("D", 3, 4, 2),
                   Request("E", 20, 4, 2)))
    run = simulate_cluster(trace, Config(8), Policy(), Routing(2, "least-requests"))
    assert run.placed == [0, 1, 0, 1, 1]
    b = run.schedules[1].requests[0]
    assert b.name == "B" and b.completion == 4


def test_least_tokens_weighs_what_is_left_not_how_many():
    """A (0, 4, 40) on replica 0 leaves 4 + 40 tokens; B and C (1, 2: 4 + 2 each) go to replica 1, which then
    has two requests but 12 tokens left against A's 44 - 2: least-tokens sends D (3) to 1, least-requests to 0."""
    trace = Trace((Request("A", 0, 4, 40), Request("B", 1, 4, 2), Request("C", 2, 4, 2), Request("D", 3, 4, 2)))
    tokens = simulate_cluster(trace, Config(16), Policy(), Routing(2, "least-tokens"))
    assert tokens.placed == [0, 1, 1, 1]
    requests = simulate_cluster(trace, Config(16), Policy(), Routing(2, "least-requests"))
    assert requests.placed == [0, 1, 0, 1]


def shared_prefix_trace(turns: int, users: int) -> Trace:
    """`users` conversations of `turns` turns each, a turn a tick, each with 20 output tokens: turn t's prompt is
    its conversation's prefix blocks so far and a new one (hash_ids, as Mooncake's)."""
    rows, t = [], 0
    for turn in range(turns):
        for user in range(users):
            blocks = tuple(1000 * user + b for b in range(turn + 1))
            rows.append(Request(f"u{user}t{turn}", t, 4 * len(blocks), 20, hash_ids=blocks))
            t += 1
    return Trace(tuple(rows))


def test_prefix_affinity_follows_the_cache_and_round_robin_does_not():
    """Three users' conversations on four replicas, with a prefix block of 4 tokens. The first turns find no
    prefix cached: least-requests spreads them over replicas 0, 1 and 2 (each still running when the next
    comes). Every later turn then finds its conversation's blocks on one replica, with the load in balance, and
    goes there: turn t hits its t earlier blocks, 4 t tokens. Round-robin deals turn t of user u to replica
    (3 t + u) mod 4, away from its cache."""
    trace = shared_prefix_trace(turns=4, users=3)
    config = Config(32, kv_blocks=200, block_size=4, prefix_block=4)
    policy = Policy(prefix_cache=True)
    affinity = simulate_cluster(trace, config, policy, Routing(4, "prefix-affinity"))
    by_user = {}
    for request, placed in zip(trace.requests, affinity.placed):
        by_user.setdefault(request.name[:2], set()).add(placed)
    assert all(len(replicas) == 1 for replicas in by_user.values())
    assert sorted(min(r) for r in by_user.values()) == [0, 1, 2]
    hits = {name: sum(compute(s).prefix_hits for s in simulate_cluster(trace, config, policy, Routing(4, name))
                      .schedules) for name in ("prefix-affinity", "round-robin")}
    # every later turn finds its whole prefix but the new block: turn t (t >= 1) hits 4 t tokens
    assert hits["prefix-affinity"] == 3 * 4 * (1 + 2 + 3)
    assert hits["round-robin"] < hits["prefix-affinity"]


def test_prefix_affinity_gives_way_when_the_load_is_out_of_balance():
    """One hot prefix: every request shares it. Affinity piles them on the replica holding it until that one has
    more than BALANCE_ABS requests more than the idlest (and 1.5 times as many), then least-requests takes
    over."""
    n = 3 * BALANCE_ABS
    trace = Trace(tuple(Request(f"r{i}", i, 8, 400, hash_ids=(7, i + 10)) for i in range(n)))
    config = Config(16, kv_blocks=20_000, block_size=4, prefix_block=4)
    run = simulate_cluster(trace, config, Policy(prefix_cache=True), Routing(2, "prefix-affinity"))
    first_elsewhere = run.placed.index(1)
    assert run.placed[:first_elsewhere] == [0] * first_elsewhere
    assert first_elsewhere == BALANCE_ABS + 1  # (0 holds BALANCE_ABS + 1, 1 none: out of balance)
    assert 0 < run.placed.count(1) < n


def test_random_is_seeded():
    trace = Trace(tuple(Request(f"r{i}", i, 4, 4) for i in range(30)))
    runs = [simulate_cluster(trace, Config(8), Policy(), Routing(3, "random", seed=s)).placed for s in (1, 1, 2)]
    assert runs[0] == runs[1] != runs[2]


@pytest.mark.parametrize(("routing", "field", "code"), [
    (dict(replicas=0), "replicas", "whole"),
    (dict(replicas=2, router="fastest"), "router", "choice"),
    (dict(replicas=2, seed=-1), "router_seed", "whole"),
])
def test_bad_routing_is_named(routing, field, code):
    with pytest.raises(ConfigError) as error:
        Routing(**routing)
    assert (error.value.field, error.value.code) == (field, code)


def test_prefix_affinity_needs_the_prefix_cache():
    trace = Trace((Request("a", 0, 4, 4),))
    with pytest.raises(ConfigError) as error:
        simulate_cluster(trace, Config(8), Policy(), Routing(2, "prefix-affinity"))
    assert (error.value.field, error.value.code) == ("router", "affinity_needs_cache")


@pytest.mark.skipif(not (SHARED / "traces" / "mooncake_synthetic_trace.jsonl").exists(), reason="../shared is absent")
def test_prefix_affinity_finds_more_of_mooncakes_prefixes_than_round_robin():
    from sim.trace.importers import ImportOptions, import_mooncake

    source = import_mooncake((SHARED / "traces" / "mooncake_synthetic_trace.jsonl").read_bytes(),
                             ImportOptions(ms_per_tick=1000)).trace
    trace = Trace(source.requests[:400])
    config = Config(8192, max_seqs=64, kv_blocks=6000, block_size=16, prefix_block=512)
    policy = Policy(prefix_cache=True, chunk_size=2048)
    hits = {name: sum(compute(s).prefix_hits for s in simulate_cluster(trace, config, policy, Routing(4, name))
                      .schedules) for name in ("prefix-affinity", "round-robin")}
    assert hits["prefix-affinity"] > hits["round-robin"] > 0


def test_one_replicas_combined_metrics_are_its_own():
    trace = Trace(tuple(Request(f"r{i}", i, 3 + i % 5, 2 + i % 7) for i in range(30)))
    for config in (Config(8), Config(8, cost=CostModel("linear"))):
        run = simulate_cluster(trace, config, Policy(), Routing(1, "round-robin"))
        schedule = run.schedules[0]
        emitted = schedule.emitted(compact=True)
        metrics = compute(schedule, emitted=emitted)
        one = [(schedule, metrics, emitted)]
        assert combine(one, *fleet_requests(one, run.placed, run.local)) == metrics


def test_a_fleets_metrics_are_over_every_request():
    """Two replicas: the requests in the trace's order, totals added, the fleet's makespan the later one's, and
    the TTFT percentiles over all requests."""
    trace = Trace(tuple(Request(f"r{i}", i // 3, 2 + i % 6, 1 + i % 9) for i in range(60)))
    run = simulate_cluster(trace, Config(8), Policy(), Routing(2, "least-tokens"))
    parts, overall = cluster_metrics(run, compact=True)
    assert [r.name for r in overall.requests] == [r.name for r in trace.requests]
    assert overall.makespan == max(m.makespan for _, m, _ in parts)
    assert overall.output_tokens == sum(r.output for r in trace.requests) == sum(m.output_tokens for _, m, _ in parts)
    assert overall.percentiles["ttft"] == percentiles([r.ttft for _, m, _ in parts for r in m.requests])
    work = sum(m.prefill_tokens + m.decode_tokens for _, m, _ in parts)
    assert overall.utilization == work / (8 * overall.makespan * 2)


def test_the_command_line_runs_a_fleet(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text(write_csv(Trace(tuple(Request(f"r{i}", i, 4, 3) for i in range(6)))))
    out = subprocess.run([sys.executable, "-m", "sim", "run", "--trace", str(path), "--token-budget", "8",
                          "--replicas", "2", "--json"], capture_output=True, text=True, check=True).stdout
    document = json.loads(out)
    assert document["routing"] == {"replicas": 2, "router": "round-robin", "seed": 0}
    assert [r["index"] for r in document["replicas"]] == [0, 1]
    assert [r["replica"] for r in document["requests"]] == [0, 1, 0, 1, 0, 1]
    assert {s["replica"] for s in document["steps"]} == {0, 1}
    assert all(a["start"] <= b["start"] for a, b in zip(document["steps"], document["steps"][1:]))
    text = subprocess.run([sys.executable, "-m", "sim", "run", "--trace", str(path), "--token-budget", "8",
                           "--replicas", "2", "--router", "least-tokens"], capture_output=True, text=True,
                          check=True).stdout
    assert text.startswith("2 replicas behind least-tokens")
    assert text.splitlines()[-4].split() == ["replica", "role", "requests", "makespan", "throughput", "ttft_p50",
                                             "ttft_p99"]
    for bad, says in ((["--replicas", "0"], "replicas: must be a whole number >= 1"),
                      (["--replicas", "2", "--router", "fastest"], "router: must be one of round-robin"),
                      (["--replicas", "2", "--router", "prefix-affinity"], "turn prefix caching on")):
        done = subprocess.run([sys.executable, "-m", "sim", "run", "--trace", str(path), "--token-budget", "8",
                               *bad], capture_output=True, text=True)
        assert done.returncode == 2 and says in done.stderr and "Traceback" not in done.stderr


def test_the_prometheus_export_of_a_fleet_labels_each_replica():
    """One HELP and TYPE a family, each replica's samples under it labelled engine and replica: each replica's
    samples are those of its own export."""
    trace = Trace(tuple(Request(f"r{i}", i // 2, 2 + i % 6, 1 + i % 9) for i in range(40)))
    run = simulate_cluster(trace, Config(8), Policy(), Routing(3, "least-requests"))
    parts = [(s, compute(s)) for s in run.schedules]
    text = fleet_text(parts, 1.0)
    types = [line for line in text.splitlines() if line.startswith("# TYPE")]
    assert len(types) == len(set(types)) == sum(line.startswith("# TYPE")
                                                 for line in prometheus_text(*parts[0], 1.0).splitlines())
    for k, (schedule, metrics) in enumerate(parts):
        own = [line.replace('engine="0"', f'engine="{k}",replica="{k}"')
               for line in prometheus_text(schedule, metrics, 1.0).splitlines() if not line.startswith("#")]
        assert own == [line for line in text.splitlines() if f'replica="{k}"' in line]


# -- prefill/decode disaggregation --------------------------------------------------------------------------------
def split_run(trace: Trace, config: Config, split: Split, router: str = "round-robin"):
    """The run and every request's combined metrics and emitted times, as the command line makes them."""
    run = simulate_split(trace, config, Policy(), split, router)
    prefill, decode, overall, emitted = split_metrics(run, [r.output for r in trace.requests], config.slo)
    return run, [prefill, decode], overall, emitted


def test_the_hand_derived_disaggregation():
    """The issue's contract: A = (0, 8, 3), budget 8, one prefill and one decode replica, blocks of 4, a transfer
    of 2 + 1 a block. A prefills in tick 0 and its first token is out at 1; its 2 blocks travel from 1 to 5; it
    decodes on the decode replica in ticks 5 and 6: A emits at [1, 6, 7]."""
    trace = Trace((Request("A", 0, 8, 3),))
    config = Config(8, block_size=4, first_token="prefill")
    run, _, overall, emitted = split_run(trace, config, Split(1, 1, latency=2, per_block=1))
    assert run.transfers == [Transfer(1, 5, 2)]
    assert emitted == [[1, 6, 7]]
    a = overall.requests[0]
    assert (a.arrival, a.ttft, a.completion, a.e2e, a.tpot, a.output) == (0, 1, 7, 7, 3, 3)
    decode = run.decode.schedules[0].requests[0]
    assert decode.arrival == 5 and [s.phase for s in decode.segments] == ["prefill", "decode"]
    assert decode.segments[0].tokens == 1  # (its first step there computes the first token's KV)


def test_a_full_decode_cache_makes_the_handed_over_request_wait_there():
    """Blocks of 4, 3 of them: A and B (0, 8, 3) prefill in ticks 0 and 1 (each first token at 1 and 2) and land at
    5 and 6. On the decode replica each holds prompt + first token + 1 = 10 tokens at most: 3 blocks. B waits from
    6 until A leaves at 7, then takes A's blocks: B emits at [2, 8, 9], and its wait is drawn."""
    trace = Trace((Request("A", 0, 8, 3), Request("B", 0, 8, 3)))
    config = Config(8, block_size=4, kv_blocks=3, first_token="prefill")
    run, _, overall, emitted = split_run(trace, config, Split(1, 1, latency=2, per_block=1))
    assert emitted == [[1, 6, 7], [2, 8, 9]]
    b = run.decode.schedules[0].requests[1]
    assert b.name == "B" and b.segments[0] == Segment("queued", 6, 7, 0)
    assert overall.kv_peak == 3


def test_decode_replicas_only_decode():
    """Interference gone: on a decode replica every request's only prefill work is the one token it arrives to
    feed, so no decode iteration waits for a prompt's prefill."""
    trace = Trace(tuple(Request(f"r{i}", i, 4 + 3 * (i % 5), 2 + i % 7) for i in range(60)))
    run, sides, overall, emitted = split_run(trace, Config(16, first_token="prefill"), Split(2, 2, 1, 1),
                                             router="least-requests")
    for schedule, _, _ in sides[1]:
        for request in schedule.requests:
            assert sum(s.tokens for s in request.segments if s.phase == "prefill") == 1
    assert [len(times) for times in emitted] == [r.output for r in trace.requests]
    assert overall.finished == 60 and len(overall.percentiles["itl"]) == 3
    assert set(run.decode.placed) == {0, 1}


def test_requests_that_never_reach_a_decode_replica():
    """Blocks of 4, 2 of them. A one-token output is done at its prefill: no transfer. A prompt of 12 (3 blocks)
    is rejected at its prefill replica and never travels. A prompt of 8 with 30 to make prefills (2 blocks) and
    travels, but the decode replica could never hold its 8 + 1 + 29 = 38 tokens: it is rejected there."""
    trace = Trace((Request("one", 0, 4, 1), Request("huge", 1, 12, 2), Request("big", 2, 8, 30),
                   Request("ok", 3, 4, 3)))
    config = Config(12, block_size=4, kv_blocks=2, first_token="prefill")
    run, _, overall, emitted = split_run(trace, config, Split(1, 1))
    assert [t is not None for t in run.transfers] == [False, False, True, True]
    assert [r.finish_reason for r in overall.requests] == ["finished", "rejected", "rejected", "finished"]
    assert emitted[0] == [1] and overall.requests[0].output == 1 and len(emitted[3]) == 3


@pytest.mark.parametrize(("config", "split", "field", "code"), [
    (Config(8), Split(1, 1), "first_token", "split_first_token"),
    (Config(8, first_token="prefill"), Split(1, 1, latency=0.5), "kv_transfer_latency", "split_whole_ticks"),
])
def test_bad_disaggregation_is_named(config, split, field, code):
    with pytest.raises(ConfigError) as error:
        simulate_split(Trace((Request("a", 0, 4, 4),)), config, Policy(), split)
    assert (error.value.field, error.value.code) == (field, code)


@pytest.mark.parametrize(("kwargs", "field"), [(dict(prefill=0, decode=1), "prefill_replicas"),
                                               (dict(prefill=1, decode=0), "decode_replicas"),
                                               (dict(prefill=1, decode=1, per_block=-1), "kv_transfer_per_block")])
def test_a_bad_split_is_named(kwargs, field):
    with pytest.raises(ConfigError) as error:
        Split(**kwargs)
    assert error.value.field == field


def test_the_command_line_runs_a_split(tmp_path):
    path = tmp_path / "a.csv"
    path.write_text(write_csv(Trace((Request("A", 0, 8, 3),))))
    common = [sys.executable, "-m", "sim", "run", "--trace", str(path), "--token-budget", "8", "--block-size", "4",
              "--first-token", "prefill", "--prefill-replicas", "1", "--decode-replicas", "1",
              "--kv-transfer-latency", "2", "--kv-transfer-per-block", "1"]
    document = json.loads(subprocess.run([*common, "--json"], capture_output=True, text=True, check=True).stdout)
    a = document["requests"][0]
    assert a["emitted"] == [1, 6, 7] and a["prefill_replica"] == 0 and a["replica"] == 1
    assert a["transfer"] == {"start": 1, "end": 5, "blocks": 2}
    assert [(r["index"], r["role"]) for r in document["replicas"]] == [(0, "prefill"), (1, "decode")]
    assert [(s["start"], s["replica"]) for s in document["steps"]] == [(0, 0), (5, 1), (6, 1)]
    text = subprocess.run(common, capture_output=True, text=True, check=True).stdout
    assert "1 prefill and 1 decode replicas" in text and "decode" in text.splitlines()[-1]
    done = subprocess.run([*common, "--replicas", "2"], capture_output=True, text=True)
    assert done.returncode == 2 and "decode_replicas replace replicas" in done.stderr
