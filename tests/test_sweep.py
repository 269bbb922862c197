"""Sweeps (monotone where theory says so, knees on hand-built cases) and the Prometheus export (a strict check
of the text format, and figures that match the run's metrics)."""
import json
import math
import re
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.core.config import SLO, Config, Policy
from sim.core.engine import simulate
from sim.report.metrics import compute
from sim.report.prometheus import TTFT_BUCKETS, buckets_1_2_5, prometheus_text
from sim.report.sweep import Entry, SweepError, knee, knees, parse_sweep, point, scale_arrivals, sweep
from sim.trace.generate import Uniform, generate
from sim.trace.trace import SEED_CSV, read_csv, validate
from tests.test_cli import cli, write


def stretched(trace, factor: int):
    """Every arrival times a whole factor: gaps scale exactly, with no rounding to ticks."""
    return replace(trace, requests=tuple(r._replace(arrival=r.arrival * factor) for r in trace.requests))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("policy", [Policy(order="fcfs"), Policy(order="fcfs", chunk_size=4)],
                         ids=["fcfs", "fcfs-chunked"])
def test_attainment_never_rises_with_load_under_fcfs(seed, policy):
    """First come, first served (no skipping): squeezing the same arrivals closer never lets more requests meet
    their SLO. The load rises as the stretch of the arrivals falls from 8 to 1."""
    base = generate(300, rate=1.2, prompt=Uniform(1, 8), output=Uniform(1, 12), burstiness=0.3, seed=seed)
    for slo in (SLO(ttft=10), SLO(ttft=20, tpot=2), SLO(e2e=40)):
        entry = Entry("p", Config(8, slo=slo), policy)
        attainment = [point(stretched(base, s), entry, "token_budget", 8)["attainment"] for s in range(8, 0, -1)]
        assert attainment == sorted(attainment, reverse=True), (slo, attainment)
        assert attainment[0] > attainment[-1]  # the sweep spans light load to overload


def test_skip_ahead_and_static_batching_are_not_monotone():
    """Why the monotone test above holds for FCFS only: with skip-ahead (the seed's loop) or static batches,
    more load can let a request in sooner. A found case, kept as a fact the classroom can show."""
    rises = 0
    for seed in range(12):
        base = generate(300, rate=1.2, prompt=Uniform(1, 8), output=Uniform(1, 12), burstiness=0.3, seed=seed)
        for policy in (Policy(), Policy("static")):
            entry = Entry("p", Config(8, slo=SLO(e2e=40)), policy)
            attainment = [point(stretched(base, s), entry, "token_budget", 8)["attainment"] for s in range(8, 0, -1)]
            rises += any(b > a for a, b in zip(attainment, attainment[1:]))
    assert rises > 0


def test_goodput_attainment_falls_across_a_rate_sweep():
    trace = generate(400, rate=0.3, prompt=Uniform(1, 8), output=Uniform(1, 12), seed=3)
    config = Config(8, slo=SLO(ttft=10))
    rows = sweep(trace, [Entry("fcfs", config, Policy(order="fcfs"))], "rate", [0.5, 1, 2, 4], workers=1)
    attainment = [r["attainment"] for r in rows]
    assert attainment == sorted(attainment, reverse=True) and attainment[0] > 0.9 > attainment[-1]


def test_scale_arrivals_moves_deadlines_and_cancels_with_arrivals():
    trace = validate([{"name": "a", "arrival": 10, "prompt": 2, "output": 2, "deadline": 30, "cancel_at": 20}])
    r = scale_arrivals(trace, 2).requests[0]
    assert (r.arrival, r.deadline, r.cancel_at) == (5, 15, 10)
    assert scale_arrivals(trace, 1) == trace


def test_knee_on_a_hand_built_case():
    rows = [{"policy": "p", "value": v, "attainment": a, "error": ""}
            for v, a in ((0.5, 1.0), (1, 0.95), (2, 0.9), (3, 0.7), (4, 0.92))]
    assert knee(rows, "rate", 0.9) == 2  # the first miss ends it: 4 passing again after a miss is not load kept
    assert knee(rows, "rate", 0.96) == 0.5
    assert knee(rows, "rate", 1.01) is None
    budget = [{"policy": "p", "value": v, "attainment": a, "error": ""}
              for v, a in ((4, 0.2), (8, 0.91), (16, 0.97), (32, 1.0))]
    assert knee(budget, "token_budget", 0.9) == 8  # the smallest capacity from which on the target holds
    budget[1]["error"] = "prompt too long"
    assert knee(budget, "token_budget", 0.9) == 16


def test_knees_of_the_seed_example_under_a_budget_sweep():
    """The seed trace under continuous batching: budget 6 holds A and B's prompts (4 + 2) in one tick and C's
    beside A's decode, so every TTFT is 2 from there on; at 4, B waits a tick (TTFT 3); below 4 the prompt of A
    cannot be admitted at all."""
    trace = read_csv(SEED_CSV)
    entries = [Entry("static", Config(8, slo=SLO(ttft=2)), Policy("static")),
               Entry("continuous", Config(8, slo=SLO(ttft=2)), Policy())]
    rows = sweep(trace, entries, "token_budget", [2, 3, 4, 6, 8, 16], workers=1)
    assert [r["error"] != "" for r in rows if r["policy"] == "continuous"] == [True, True, False, False, False,
                                                                               False]
    found = knees(rows, "token_budget", 1.0)
    assert found["continuous"] == 6
    assert found["static"] is None  # C waits for the first batch: its TTFT stays 5 at any budget
    assert "larger than the token budget" in rows[0]["error"]


def test_sweep_in_worker_processes_matches_the_same_sweep_in_one():
    trace = generate(200, rate=0.5, prompt=Uniform(1, 8), output=Uniform(1, 12), seed=1)
    entries = [Entry("static", Config(8, slo=SLO(ttft=10)), Policy("static")),
               Entry("chunked", Config(8, slo=SLO(ttft=10)), Policy(chunk_size=2))]
    seen = []
    one = sweep(trace, entries, "max_seqs", [1, 2, 4, 8], workers=1)
    two = sweep(trace, entries, "max_seqs", [1, 2, 4, 8], workers=2, progress=lambda d, t: seen.append((d, t)))
    assert one == two
    assert seen[-1] == (8, 8) and [d for d, _ in seen] == sorted(d for d, _ in seen)


@pytest.mark.parametrize("spec, parameter, values", [
    ("rate=0.5:2:4", "rate", [0.5, 1.0, 1.5, 2.0]),
    ("token_budget=8,16,16,4", "token_budget", [4, 8, 16]),
    ("kv_blocks=10:12:5", "kv_blocks", [10, 11, 12]),
])
def test_parse_sweep(spec, parameter, values):
    assert parse_sweep(spec) == (parameter, values)


@pytest.mark.parametrize("spec", ["rate", "speed=1:2:3", "rate=0:2:3", "rate=1:2:1", "rate=1:2:500", "rate=a,b",
                                  "rate=nan,1", "max_seqs=-1,2", "rate="])
def test_parse_sweep_rejects_bad_specs_with_a_reason(spec):
    with pytest.raises(SweepError):
        parse_sweep(spec)


# The Prometheus text format (exposition format 0.0.4), checked strictly by hand.
NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\["\\n])*"'
SAMPLE = re.compile(rf"^({NAME})(?:\{{({LABEL}(?:,{LABEL})*)\}})? (\S+)$")
VALUE = re.compile(r"^(?:[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|[+-]Inf|NaN)$")


def parse_exposition(text: str) -> dict[str, dict]:
    """{family: {"type", "help", "samples": [(name, labels, value)]}}; raises AssertionError on any flaw."""
    assert text.endswith("\n")
    families: dict[str, dict] = {}
    current = None
    for line in text.splitlines():
        if line.startswith("# HELP "):
            name, _, help_text = line[7:].partition(" ")
            assert re.fullmatch(NAME, name) and help_text and name not in families, line
            families[name] = {"help": help_text, "type": None, "samples": []}
            current = name
        elif line.startswith("# TYPE "):
            name, _, kind = line[7:].partition(" ")
            assert name == current and kind in ("counter", "gauge", "histogram", "summary", "untyped"), line
            assert families[name]["type"] is None and not families[name]["samples"], "TYPE after samples"
            families[name]["type"] = kind
        else:
            match = SAMPLE.match(line)
            assert match and VALUE.match(match[3]), f"bad sample line: {line!r}"
            name, labels, value = match[1], match[2] or "", match[3]
            family = families[current]
            suffixes = ("_bucket", "_sum", "_count") if family["type"] == "histogram" else ("",)
            assert any(name == current + s for s in suffixes), f"{name} outside its family {current}"
            pairs = dict(re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"', labels))
            family["samples"].append((name, pairs, float(value.replace("Inf", "inf"))))
    for name, family in families.items():
        assert family["type"] and family["samples"], name
        if family["type"] == "counter":
            assert name.endswith("_total") and all(v >= 0 for _, _, v in family["samples"])
        if family["type"] == "histogram":
            buckets = [(float(labels["le"].replace("Inf", "inf")), v) for n, labels, v in family["samples"]
                       if n.endswith("_bucket")]
            bounds, counts = zip(*buckets)
            assert list(bounds) == sorted(set(bounds)) and bounds[-1] == math.inf, name
            assert list(counts) == sorted(counts), f"{name}: buckets are not cumulative"
            count = next(v for n, _, v in family["samples"] if n.endswith("_count"))
            assert counts[-1] == count, name
    return families


def single(families, name):
    (sample,) = families[name]["samples"]
    return sample[2]


def test_prometheus_export_of_the_seed_example():
    trace = read_csv(SEED_CSV)
    schedule = simulate(trace, Config(8, kv_blocks=16), "continuous")
    metrics = compute(schedule)
    families = parse_exposition(prometheus_text(schedule, metrics, seconds_per_unit=0.5, model_name='a "b"\\c'))
    assert families["vllm:time_to_first_token_seconds"]["samples"][0][1]["model_name"] == 'a \\"b\\"\\\\c'
    ttft = families["vllm:time_to_first_token_seconds"]["samples"]
    # TTFTs 2, 2 and 2 ticks at half a second a tick: all three within the 1.0 s bucket, none within 0.75 s.
    le = {labels["le"]: v for n, labels, v in ttft if n.endswith("_bucket")}
    assert (le["0.75"], le["1.0"], le["+Inf"]) == (0, 3, 3)
    assert next(v for n, _, v in ttft if n.endswith("_sum")) == sum(r.ttft for r in metrics.requests) * 0.5
    assert len(le) == len(TTFT_BUCKETS) + 1
    assert single(families, "vllm:generation_tokens_total") == 11
    assert single(families, "vllm:prompt_tokens_total") == 9
    assert single(families, "vllm:num_preemptions_total") == 0
    # Gauges hold the time-weighted mean of the run.
    running = single(families, "vllm:num_requests_running")
    area = sum(s.running * (s.end - s.start) for s in schedule.steps)
    assert running == pytest.approx(area / metrics.makespan)
    assert single(families, "vllm:kv_cache_usage_perc") == pytest.approx(metrics.kv_mean / 16)
    success = {labels["finished_reason"]: v for _, labels, v in families["vllm:request_success_total"]["samples"]}
    assert success == {"length": 3, "abort": 0}
    itl = families["vllm:inter_token_latency_seconds"]["samples"]
    gaps = [b - a for times in schedule.emitted() for a, b in zip(times, times[1:])]
    assert next(v for n, _, v in itl if n.endswith("_count")) == len(gaps) == 11 - 3


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 30), st.integers(1, 8), st.integers(1, 12)), min_size=1, max_size=25),
       st.sampled_from([Policy("static"), Policy(), Policy(chunk_size=3, kv_admission="overcommit"),
                        Policy(timeout=6)]))
def test_prometheus_export_always_parses(rows, policy):
    trace = validate([{"name": f"r{i}", "arrival": a, "prompt": p, "output": o} for i, (a, p, o) in enumerate(rows)])
    schedule = simulate(trace, Config(8, kv_blocks=12), policy)
    metrics = compute(schedule)
    families = parse_exposition(prometheus_text(schedule, metrics, 0.02))
    success = sum(v for _, _, v in families["vllm:request_success_total"]["samples"])
    assert success == len(rows)
    assert single(families, "vllm:num_preemptions_total") == metrics.preemptions


def test_buckets_1_2_5():
    assert buckets_1_2_5(120) == (1, 2, 5, 10, 20, 50, 100)
    assert buckets_1_2_5(1) == (1,)


def test_cli_sweep_json_and_prometheus(tmp_path):
    path = write(tmp_path, "name,arrival,prompt,output\nA,0,4,5\nB,0,2,2\nC,3,3,4\n")
    out = cli("sweep", "--trace", path, "--policies", "static,continuous", "--token-budget", "8",
              "--sweep", "token_budget=4,6,8", "--slo-ttft", "2", "--target", "1", "--json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["parameter"] == "token_budget" and result["values"] == [4, 6, 8]
    assert len(result["rows"]) == 6
    assert {"policy", "value", "goodput", "attainment", "ttft_p50", "ttft_p90", "ttft_p99", "tpot_p50",
            "tpot_p90", "tpot_p99", "throughput"} <= set(result["rows"][0])
    assert result["knees"] == {"static": None, "continuous": 6}
    text = cli("sweep", "--trace", path, "--token-budget", "8", "--sweep", "rate=1:2:2")
    assert text.returncode == 0 and "knee of continuous" in text.stdout
    prom = tmp_path / "metrics.prom"
    run = cli("run", "--trace", path, "--token-budget", "8", "--prometheus", str(prom), "--ms-per-tick", "20")
    assert run.returncode == 0, run.stderr
    families = parse_exposition(prom.read_text())
    assert single(families, "vllm:generation_tokens_total") == 11


@pytest.mark.parametrize("args, message", [
    (["--sweep", "speed=1:2:3"], "cannot sweep 'speed'"),
    (["--sweep", "rate=1:2:3", "--policies", "static,fast"], "comma list"),
    (["--sweep", "rate=1:2:3", "--target", "2"], "between 0 and 1"),
])
def test_cli_sweep_bad_input(tmp_path, args, message):
    path = write(tmp_path, "name,arrival,prompt,output\nA,0,4,5\n")
    out = cli("sweep", "--trace", path, "--token-budget", "8", *args)
    assert out.returncode == 2 and message in out.stderr and "Traceback" not in out.stderr


def test_idle_while_waiting_counts_budget_left_unused_while_a_request_waits():
    from sim.report.metrics import idle_while_waiting
    trace = read_csv(SEED_CSV)
    # Static, budget 8: A and B run ticks 0-5 (prefill 2 ticks, then decode); C waits from tick 3 to 8.
    schedule = simulate(trace, Config(8), Policy("static"))
    waiting_ticks = [tick for tick in range(int(schedule.makespan))
                     if any(r.arrival <= tick < r.first_work for r in schedule.requests)]
    by_tick = {}
    for step in schedule.steps:
        for i in range(step.iterations):
            by_tick[step.start + i] = 8 - step.token_work
    expected = sum(by_tick.get(tick, 8) for tick in waiting_ticks) / (8 * sum(s.iterations for s in schedule.steps))
    assert waiting_ticks and expected > 0
    assert idle_while_waiting(schedule) == pytest.approx(expected)
    # Continuous admits C at once: nothing waits while budget is left.
    assert idle_while_waiting(simulate(trace, Config(8), Policy("continuous"))) == 0


def test_sweep_rows_name_who_starves():
    trace = generate(400, 0.3, Uniform(1, 8), Uniform(1, 12), seed=0)
    rows = {e: point(trace, Entry(e, Config(8), Policy(e)), "rate", 2.0) for e in ("static", "continuous")}
    mean = sum(r.prompt for r in trace) / len(trace)
    assert rows["continuous"]["slow_prompt"] == 8.0 > 1.5 * mean  # only the longest prompts wait that long
    assert rows["continuous"]["idle_waiting"] > rows["static"]["idle_waiting"]


def test_a_sweep_point_past_its_cpu_limit_says_where_it_stopped_and_the_others_run_as_without_a_limit():
    """Speculation's draws make every iteration differ, so none merge: an output of 300,000 tokens is a minute of
    plans, on one engine, on a fleet or on a split's decode side. Each such point stops at the limit and its row
    says where, with the whole trace's figures; the other points are what they are without a limit."""
    from sim.core.cluster import Routing, Split
    from sim.core.engine import RunStopped
    trace = validate([{"name": "long", "arrival": 0, "prompt": 2, "output": 300_000},
                      {"name": "short", "arrival": 1, "prompt": 2, "output": 3},
                      {"name": "late", "arrival": 5, "prompt": 2, "output": 50},
                      {"name": "one", "arrival": 100, "prompt": 2, "output": 1}])
    speculating = Policy(spec_tokens=3, spec_accept=0.6)
    entries = [Entry("plain", Config(8), Policy()),
               Entry("engine", Config(8), speculating),
               Entry("fleet", Config(8), speculating, Routing(2, "least-requests")),
               Entry("split", Config(8, first_token="prefill"), speculating, split=Split(1, 1))]
    limited = sweep(trace, entries, "token_budget", [8, 16], workers=2, cpu_limit=0.2)
    assert [r["policy"] for r in limited if r["error"]] == ["engine", "engine", "fleet", "fleet", "split", "split"]
    # finished when it stopped: all but long on one engine; on the fleet (long on engine 0, which runs to its end
    # first) engine 1 had not yet served one; a split's decode side never had one (its output is the prefill's)
    finished = {"engine": 3, "fleet": 2, "split": 3}
    for row in limited[2:]:
        stop = row["stopped"]
        assert isinstance(stop, RunStopped) and stop.seconds == 0.2 and 0 < stop.now < 300_000
        assert (stop.finished, stop.total) == (finished[row["policy"]], 4), row["policy"]
        assert row["error"] == str(stop) and row["goodput"] == 0.0
    assert limited[:2] == sweep(trace, entries[:1], "token_budget", [8, 16], workers=1)  # (no `stopped` key)


def test_the_failed_points_listed_show_each_policys_first_stop_and_first_error_in_sweep_order():
    # static's prompt over the budget fails at every point; continuous's one stop at the last point must still be
    # listed among the five, and so must chunked's first error
    rows = ([{"policy": "static", "value": v, "error": "over the budget"} for v in range(8)]
            + [{"policy": "continuous", "value": v, "error": ""} for v in range(7)]
            + [{"policy": "continuous", "value": 7, "error": "stopped", "stopped": object()}]
            + [{"policy": "chunked", "value": v, "error": "bad" if v > 5 else ""} for v in range(8)])
    from ui.capacity import failed_listed
    listed = failed_listed(rows)
    assert [(r["policy"], r["value"]) for r in listed] == [
        ("static", 0), ("static", 1), ("static", 2), ("continuous", 7), ("chunked", 6)]
    assert failed_listed(rows, most=2) == [rows[0], rows[15]]  # the first of each kind, by its place in the sweep
    assert failed_listed(rows[:3], most=5) == rows[:3]
