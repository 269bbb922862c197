"""Sweeps of a fleet's shape (sim.report.sweep): the replica count, and how many of a split's engines prefill."""
import json
from pathlib import Path

import pytest

from sim.core.cluster import Routing, Split, simulate_cluster, simulate_split
from sim.core.config import SLO, Config, ConfigError, Policy
from sim.core.engine import simulate
from sim.report.metrics import cluster_metrics, compute, idle_while_waiting, split_metrics
from sim.report.sweep import Entry, applied, best_split, knee, knees, point, sweep
from sim.trace.generate import Uniform, generate
from tests.test_app import figure, open_page
from tests.test_cli import cli
from ui.numbers import duration, share

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


# -- the capacity lab ------------------------------------------------------------------------------------------------
def rows_of(at):
    return at.session_state["sweep"].result.rows


def test_the_capacity_labs_split_example_finds_the_best_split_and_the_side_by_side_baseline():
    at = open_page("pages/capacity_lab.py")
    at.button(key="sw_split_example").click().run()
    assert not at.exception, at.exception
    rows, state = rows_of(at), at.session_state["sweep"]
    assert (state.parameter, state.cost, state.first) == ("prefill_replicas", "profile", "prefill")
    assert at.radio(key="w_sw_columns").value == "split"  # the rows' engines and links are in view
    by = {label: [r for r in rows if r["policy"] == label] for label in ("4 side by side", "split, fast link",
                                                                         "split, slow link")}
    side = by["4 side by side"][0]["attainment"]
    fast = best_split(by["split, fast link"])
    slow = best_split(by["split, slow link"])
    assert side < 0.9 <= fast["attainment"] and slow["attainment"] < 0.9  # the story the sentences tell
    words = " ".join(m.value for m in at.markdown).replace("\\", "")
    assert f"**4 side by side** runs its 4 engines side by side, the same at every point: {share(side)}" in words
    assert (f"**split, fast link**: the best split of its 4 engines is **{fast['value']} + {4 - fast['value']}** "
            f"(prefill + decode), with {share(fast['attainment'])}") in words
    assert f"**split, slow link** misses 90% at every split of its 4 engines: its best, **{slow['value']} + " in words
    labels = [a["text"] for a in figure(at, 0)["layout"]["annotations"] if a["text"].startswith("★")]
    assert labels == [f"★ best split of split, fast link: {fast['value']} + {4 - fast['value']}"]
    table = at.dataframe[-1].value
    column = table["engines"]  # prefill + decode
    assert list(column[:3]) == ["4"] * 3 and list(column[3:6]) == ["1 + 3", "2 + 2", "3 + 1"]
    assert "TTFT p99 (ms)" in table.columns and "tokens/ms" in table.columns
    readme = " ".join((Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8").split())
    tpot = [duration(r["tpot_p90"]) for r in (by["4 side by side"][0], fast)]
    assert (f"4 engines side by side keep {share(side)} of requests within the SLO (TPOT p90 {tpot[0]})" in readme
            and f"the best split, {fast['value']} + {4 - fast['value']} (prefill + decode), keeps "
                f"{share(fast['attainment'])} (TPOT p90 {tpot[1]};" in readme
            and f"3 + 1 only {share(by['split, fast link'][2]['attainment'])}" in readme
            and f"the best split, {slow['value']} + {4 - slow['value']}, keeps {share(slow['attainment'])}" in readme)


def test_the_capacity_lab_sweeps_the_replica_count():
    at = open_page("pages/capacity_lab.py")
    at.selectbox(key="w_sw_parameter").set_value("replicas").run()
    at.button(key="sw_run").click().run()
    assert not at.exception, at.exception
    rows = rows_of(at)
    assert {r["engines"] for r in rows} == set(range(1, 9)) and all(r["engines"] == r["value"] for r in rows)
    static = [r for r in rows if r["policy"] == "static"]
    found = knee(static, "replicas", 0.9)
    assert found is not None and found > 1  # one engine of static batching misses the SLO; more reach it
    assert any(f"**static** keeps at least 90% of requests within every SLO from a replica count of **{found}** "
               "upwards" in m.value for m in at.markdown)


def test_the_capacity_lab_names_a_fleet_it_cannot_run():
    at = open_page("pages/capacity_lab.py")
    at.radio(key="w_sw_columns").set_value("fleet").run()
    at.session_state["sw_policies_editor"] = {
        "edited_rows": {0: {"replicas": 2, "prefill_replicas": 1, "decode_replicas": 1},
                        1: {"prefill_replicas": 1, "decode_replicas": 2}, 2: {"replicas": 2.5}},
        "added_rows": [], "deleted_rows": []}
    at.run()
    assert not at.exception, at.exception
    errors = [e.value.replace("\\", "") for e in at.error]
    assert any("Policy row 1" in e and "prefill and decode engines replace the replicas" in e for e in errors)
    assert any("Policy row 2" in e and "“First output token”: prefill/decode disaggregation samples the first token "
               "on the prefill replica" in e for e in errors)
    assert any("Policy row 3" in e and "“replicas”: must be a whole number of at least 1, got 2.5" in e
               for e in errors)
    assert at.button(key="sw_run").disabled
    assert list(at.session_state["sweep"].policies_now["replicas"]) == [2, 1, 2.5]  # kept as typed


def test_a_fleet_row_is_its_own_sweep_not_the_cached_one_engine():
    at = open_page("pages/capacity_lab.py")
    one = rows_of(at)
    state = at.session_state["sweep"]
    state.policies = state.policies_now = state.policies.assign(replicas=[2.0] * 3, router=["prefix-affinity"] * 3)
    at.run()
    at.button(key="sw_run").click().run()
    assert not at.exception, at.exception
    failed = [w.value for w in at.warning if "could not run" in w.value]
    assert failed and "prefix-affinity routing reads each replica's prefix cache" in failed[0]  # named, not raw
    assert len(at.dataframe[-1].value.columns) == 6  # (no column of errors, said above it: six fit 1024 px)
    state.policies = state.policies_now = state.policies.assign(router=["least-requests"] * 3)
    at.run()
    at.button(key="sw_run").click().run()
    two = rows_of(at)
    assert [r["engines"] for r in two] == [2] * len(one) and [r["attainment"] for r in two] != [
        r["attainment"] for r in one]
    assert "engines" in at.dataframe[-1].value.columns and len(at.dataframe[-1].value.columns) == 6


def test_a_sweep_point_past_the_servers_cpu_limit_is_named_with_where_it_stopped(monkeypatch):
    # One prompt of 1,000,000 tokens in chunks of 4: 250,000 plans of one chunk each, seconds a point. The server
    # stops each point at its limit (here 0.2 s) and the page says where, in its own words.
    from ui import runs
    monkeypatch.setattr(runs, "CPU_LIMIT_S", 0.2)
    at = open_page("pages/capacity_lab.py")
    for key, value in (("n", 1), ("prompt_kind", "fixed"), ("output_kind", "fixed")):
        (at.selectbox if key.endswith("kind") else at.number_input)(key=f"w_sw_gen_{key}").set_value(value).run()
    at.number_input(key="w_sw_gen_prompt_v").set_value(1_000_000)
    at.number_input(key="w_sw_gen_output_v").set_value(1).run()
    at.button(key="sw_gen_make").click().run()
    at.session_state["sw_policies_editor"] = {"edited_rows": {}, "added_rows": [], "deleted_rows": [0, 1]}
    at.run()
    at.button(key="sw_run").click().run()
    assert not at.exception, at.exception
    failed = next(w.value for w in at.warning if "could not run" in w.value)
    assert failed.count("stopped after 0.2 s of computing, at ") > 1 and "python -m sim sweep" in failed
