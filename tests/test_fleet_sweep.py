"""Sweeps of a fleet's shape (sim.report.sweep): the replica count, and how many of a split's engines prefill."""
import json

import pytest

from sim.core.cluster import Routing, Split, simulate_cluster, simulate_split
from sim.core.config import SLO, Config, ConfigError, Policy
from sim.core.engine import simulate
from sim.report.metrics import cluster_metrics, compute, idle_while_waiting, split_metrics
from sim.report.sweep import Entry, applied, knee, knees, point, sweep
from sim.trace.generate import Uniform, generate
from tests.test_cli import cli

SLOS = SLO(ttft=10, tpot=2)
TRACE = generate(240, 0.6, Uniform(1, 8), Uniform(1, 16), seed=3)
SIDE_BY_SIDE = Entry("side by side", Config(12, slo=SLOS), Policy(), Routing(2, "least-requests"))
SPLIT = Entry("split", Config(12, first_token="prefill", slo=SLOS), Policy(), Routing(1, "least-requests"),
              Split(1, 3, 1, 0))


def test_a_replicas_point_is_the_fleet_behind_the_entrys_router():
    for replicas in (1, 2, 3):
        row = point(TRACE, SIDE_BY_SIDE, "replicas", replicas)
        run = simulate_cluster(TRACE, SIDE_BY_SIDE.config, Policy(), Routing(replicas, "least-requests"))
        parts, metrics = cluster_metrics(run)
        assert (row["engines"], row["prefill_engines"], row["error"]) == (replicas, None, "")
        assert (row["attainment"], row["goodput"], row["ttft_p99"], row["makespan"]) == (
            metrics.slo_attainment, metrics.goodput, metrics.percentiles["ttft"][99], metrics.makespan)
        assert row["idle_waiting"] == idle_while_waiting(*(schedule for schedule, _, _ in parts))
    # One replica is the one engine.
    alone = compute(simulate(TRACE, SIDE_BY_SIDE.config, Policy()))
    assert point(TRACE, SIDE_BY_SIDE, "replicas", 1)["goodput"] == alone.goodput


def test_more_replicas_reach_the_slo_a_knee_from_below():
    rows = sweep(TRACE, [SIDE_BY_SIDE._replace(config=Config(8, slo=SLO(ttft=4, tpot=2)))], "replicas", [1, 2, 3, 4])
    attainment = [r["attainment"] for r in rows]
    assert attainment[0] < 0.9 <= attainment[-1]  # one engine is short of the SLO, four are not
    assert knee(rows, "replicas", 0.9) == min(r["value"] for r in rows if all(
        later["attainment"] >= 0.9 for later in rows if later["value"] >= r["value"]))


def test_a_prefill_point_moves_engines_from_decode_to_prefill():
    for prefill in (1, 2, 3):
        trace, entry = applied(TRACE, SPLIT, "prefill_replicas", prefill)
        assert entry.split == Split(prefill, 4 - prefill, 1, 0) and entry.engines() == 4
        row = point(TRACE, SPLIT, "prefill_replicas", prefill)
        run = simulate_split(TRACE, SPLIT.config, Policy(), entry.split, "least-requests")
        _, _, metrics, _ = split_metrics(run, [r.output for r in TRACE.requests], SLOS)
        assert (row["engines"], row["prefill_engines"]) == (4, prefill)
        assert (row["attainment"], row["goodput"], row["tpot_p90"]) == (
            metrics.slo_attainment, metrics.goodput, metrics.percentiles["tpot"][90])


def test_side_by_side_is_the_splits_baseline_and_a_split_cannot_lose_its_last_decode_engine():
    rows = sweep(TRACE, [SIDE_BY_SIDE, SPLIT], "prefill_replicas", [1, 2, 3, 4])
    flat = [r for r in rows if r["policy"] == "side by side"]
    assert len({(r["attainment"], r["goodput"], r["engines"]) for r in flat}) == 1 and not any(r["error"] for r in flat)
    last = [r for r in rows if r["policy"] == "split"][-1]
    assert last["value"] == 4 and "at least one decode engine" in last["error"]
    with pytest.raises(ConfigError) as error:
        applied(TRACE, SPLIT, "replicas", 2)
    assert error.value.field == "replicas"
    assert "sweep prefill_replicas" in point(TRACE, SPLIT, "replicas", 2)["error"]


def test_the_best_split_is_the_highest_attainment_then_goodput_then_fewer_prefill_engines():
    def row(value, attainment, goodput, prefill=True, error=""):
        return {"policy": "p", "value": value, "attainment": attainment, "goodput": goodput,
                "prefill_engines": value if prefill else None, "error": error}
    rows = [row(1, 0.5, 1), row(2, 0.95, 2), row(3, 0.95, 3), row(4, 0.99, 9, error="no decode")]
    assert knee(rows, "prefill_replicas", 0.9) == 3
    assert knee(rows[:2] + [row(3, 0.95, 2)], "prefill_replicas", 0.9) == 2
    assert knee(rows, "prefill_replicas", 0.96) is None  # the best split keeps too little
    assert knee([row(v, 1.0, 1, prefill=False) for v in (1, 2)], "prefill_replicas", 0.9) is None  # side by side
    swept = sweep(TRACE, [SIDE_BY_SIDE, SPLIT], "prefill_replicas", [1, 2, 3])
    assert knees(swept, "prefill_replicas", 0.5)["side by side"] is None


def test_the_cli_sweeps_a_fleet(tmp_path):
    path = tmp_path / "trace.csv"
    path.write_text("name,arrival,prompt,output\n" + "".join(
        f"r{i},{i},{4 + i % 5},{3 + i % 4}\n" for i in range(40)))
    out = cli("sweep", "--trace", str(path), "--token-budget", "8", "--first-token", "prefill", "--prefill-replicas",
              "1", "--decode-replicas", "2", "--kv-transfer-latency", "1", "--sweep", "prefill_replicas=1,2,3",
              "--slo-ttft", "4", "--policies", "continuous", "--json")
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)["rows"]
    assert [(r["engines"], r["prefill_engines"]) for r in rows] == [(3, 1), (3, 2), (3, None)]
    assert "needs at least one decode engine" in rows[-1]["error"]
    text = cli("sweep", "--trace", str(path), "--token-budget", "8", "--router", "least-requests",
               "--sweep", "replicas=1,2", "--policies", "continuous")
    assert text.returncode == 0, text.stderr
    assert "engines" in text.stdout.splitlines()[0] and "knee of continuous" in text.stdout
    bad = cli("sweep", "--trace", str(path), "--token-budget", "8", "--replicas", "2", "--prefill-replicas", "1",
              "--sweep", "rate=1,2")
    assert bad.returncode == 2 and "give one or the other" in bad.stderr and "Traceback" not in bad.stderr

