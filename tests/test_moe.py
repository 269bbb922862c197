"""MoE routing (sim.core.moe): validation, seeded and merge-proof routing, the skew's effect on the busiest expert,
the two cost terms, the CLI's flags and JSON, the lab's heatmap and the cost lesson."""
import json
import math
import subprocess
import sys
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.core.config import Config, ConfigError, CostModel
from sim.core.engine import run, simulate
from sim.core.moe import MoE
from sim.core.policies import make_scheduler
from sim.report.export import run_json
from sim.report.metrics import compute
from sim.trace.generate import Uniform, generate
from tests.conftest import SEED_ROWS, make_trace
from tests.test_app import figure, open_page
from tests.test_cli import cli, write
from tests.test_properties import option_scenarios

SEED = make_trace(*SEED_ROWS)
MIXTRAL = MoE(experts=8, top_k=2, skew=1.0, devices=4)


@pytest.mark.parametrize(("fields", "field"), [
    ({"experts": -1}, "moe_experts"), ({"experts": 2.5}, "moe_experts"), ({"experts": True}, "moe_experts"),
    ({"experts": 2000}, "moe_experts"), ({"experts": 8, "top_k": 0}, "moe_top_k"),
    ({"experts": 8, "top_k": 9}, "moe_top_k"), ({"skew": -0.5}, "moe_skew"), ({"skew": math.nan}, "moe_skew"),
    ({"skew": 11}, "moe_skew"), ({"devices": 0}, "moe_devices"), ({"experts": 8, "devices": 3}, "moe_devices"),
    ({"experts": 8, "devices": 16}, "moe_devices"), ({"c_expert": -1}, "moe_c_expert"),
    ({"c_a2a": math.inf}, "moe_c_a2a"), ({"seed": -1}, "moe_seed")])
def test_bad_settings_name_their_field(fields, field):
    with pytest.raises(ConfigError) as error:
        MoE(**fields)
    assert error.value.field == field


def test_off_by_default_and_checked_as_part_of_the_config():
    assert MoE().experts == 0 and MoE().route(50, 0) == () and Config().moe == MoE()
    assert MoE(experts=0, top_k=5).route(9, 3) == ()  # top-k only has to fit experts that exist
    with pytest.raises(ConfigError) as error:
        Config(moe={"experts": 8})
    assert error.value.field == "moe"


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 64), st.integers(1, 8), st.floats(0, 10), st.integers(0, 300), st.integers(0, 10**6),
       st.integers(0, 2**31))
def test_each_token_goes_to_top_k_distinct_experts(experts, top_k, skew, tokens, iteration, seed):
    """The loads add up to tokens x top_k, no expert takes more than one choice of each token, and the same
    settings, token count and iteration number give the same loads, however often asked."""
    moe = MoE(experts=experts, top_k=min(top_k, experts), skew=skew, seed=seed)
    loads = moe.route(tokens, iteration)
    assert len(loads) == experts and sum(loads) == tokens * moe.top_k
    assert all(0 <= n <= tokens for n in loads)
    assert moe.route(tokens, iteration) == loads


def test_the_routing_follows_the_iteration_and_the_seed():
    loads = {MIXTRAL.route(96, i) for i in range(20)}
    assert len(loads) == 20  # each iteration routes anew
    assert MIXTRAL.route(96, 7) != replace(MIXTRAL, seed=1).route(96, 7)


def test_top_k_of_all_experts_sends_every_token_everywhere():
    for skew in (0.0, 3.0):
        assert {MoE(experts=4, top_k=4, skew=skew).route(10, i) for i in range(20)} == {(10, 10, 10, 10)}


def busiest_share(moe: MoE, tokens: int = 200, iterations: int = 300) -> float:
    """The busiest expert's share of the token choices, over many iterations."""
    return sum(max(moe.route(tokens, i)) for i in range(iterations)) / (tokens * moe.top_k * iterations)


def test_no_skew_spreads_the_load_evenly():
    moe = MoE(experts=8, top_k=2, skew=0.0)
    totals = [0] * 8
    for i in range(300):
        for e, n in enumerate(moe.route(200, i)):
            totals[e] += n
    mean = 200 * 2 * 300 / 8
    assert all(abs(n - mean) < 0.03 * mean for n in totals), totals
    assert busiest_share(moe) < 1.3 / 8  # even within one iteration the busiest is close to the mean


def test_the_busiest_experts_share_grows_with_the_skew():
    shares = [busiest_share(replace(MIXTRAL, skew=skew)) for skew in (0.0, 0.5, 1.0, 1.5, 2.0, 4.0)]
    assert shares == sorted(shares) and shares[0] < 0.16 and shares[-1] > 0.45, shares
    assert shares[-1] <= 1 / MIXTRAL.top_k  # one choice of each token at most: a share of 1/k


def test_crossing_counts_the_choices_sent_to_another_device():
    """Of the L choices sent to a device's experts, L // devices come from tokens on that device."""
    moe = MoE(experts=4, top_k=2, devices=2, c_expert=0.5, c_a2a=0.25)
    assert moe.crossing((4, 1, 6, 1)) == (5 - 5 // 2) + (7 - 7 // 2) == 7
    assert moe.duration((4, 1, 6, 1)) == 0.5 * 6 + 0.25 * 7
    assert replace(moe, devices=1).crossing((4, 1, 6, 1)) == 0  # one device: nothing crosses


def test_the_cost_terms_on_a_hand_computed_run():
    """Top-2 of 2 experts on 2 devices sends every token to both: loads (n, n), n // 2 of each device's n local.
    A = (0, 4, 2): a prefill of 4 tokens (loads 4, 4; 2 + 2 cross), then two decodes of 1 (1, 1; 1 + 1 cross)."""
    cost = CostModel("linear", c0=1.0, c_prefill=0.5, c_decode=1.0, c_attn=0.0)
    moe = MoE(experts=2, top_k=2, devices=2, c_expert=0.25, c_a2a=0.125)
    schedule = simulate(make_trace(("A", 0, 4, 2)), Config(8, cost=cost, moe=moe), "continuous")
    prefill = 1 + 0.5 * 4 + 0.25 * 4 + 0.125 * 4
    decode = 1 + 1.0 * 1 + 0.25 * 1 + 0.125 * 2
    assert [(s.start, s.end, s.expert_tokens) for s in schedule.steps] == [
        (0, prefill, (4, 4)), (prefill, prefill + 2 * decode, (1, 1))]
    assert compute(schedule).requests[0].completion == prefill + 2 * decode == 9.5


def test_each_iterations_time_is_its_dense_time_plus_the_moe_terms():
    trace = generate(40, 0.5, Uniform(1, 12), Uniform(1, 20), seed=3)
    cost = CostModel("linear", c0=2.0, c_prefill=0.1, c_decode=0.5, c_attn=0.0)
    dense = simulate(trace, Config(16, cost=cost), "continuous")
    routed = simulate(trace, Config(16, cost=cost, moe=MIXTRAL), "continuous")
    for step in routed.steps:
        length = cost.duration(step.prefill_tokens, step.decode_tokens, 0) + MIXTRAL.duration(step.expert_tokens)
        assert (step.end - step.start) / step.iterations == pytest.approx(length)
    assert compute(routed).makespan > compute(dense).makespan


def test_under_the_tick_model_loads_are_routed_but_cost_nothing():
    trace = generate(40, 0.5, Uniform(1, 8), Uniform(1, 16), seed=4)
    for policy in ("static", "continuous"):
        dense = compute(simulate(trace, Config(8), policy))
        routed = simulate(trace, Config(8, moe=MIXTRAL), policy)
        assert all(s.end - s.start == s.iterations for s in routed.steps)
        assert [(r.ttft, r.completion) for r in compute(routed).requests] == [
            (r.ttft, r.completion) for r in dense.requests]
        assert all(sum(s.expert_tokens) == (s.prefill_tokens + s.decode_tokens) * 2 for s in routed.steps)


def test_padding_rows_are_not_routed():
    """Static batching pads prompts and idle slots: only the real tokens are routed."""
    schedule = simulate(SEED, Config(8, moe=MIXTRAL), "static")
    assert sum(s.padding_tokens for s in schedule.steps) > 0
    for step in schedule.steps:
        assert sum(step.expert_tokens) == (step.prefill_tokens + step.decode_tokens) * MIXTRAL.top_k


@st.composite
def moe_scenarios(draw):
    trace, config, policy = draw(option_scenarios())
    experts = draw(st.sampled_from((1, 4, 8)))
    moe = MoE(experts=experts, top_k=draw(st.integers(1, experts)), skew=draw(st.sampled_from((0.0, 1.0, 3.0))),
              devices=draw(st.sampled_from((1, experts))), seed=draw(st.integers(0, 5)))
    return trace, replace(config, moe=moe), policy


@settings(max_examples=150, deadline=None)
@given(moe_scenarios())
def test_routing_is_the_same_merged_or_one_iteration_at_a_time(scenario):
    """Every option with MoE on: the run planned as usual and the same scheduler planning every iteration on its
    own give the same schedule, expert loads included (each iteration's routing is seeded by its number)."""
    trace, config, policy = scenario
    merged = simulate(trace, config, policy)
    single = run(make_scheduler(policy, trace, config), max_repeat=1)
    assert run_json(merged, compute(merged)) == run_json(single, compute(single))
    for step in merged.steps:
        assert sum(step.expert_tokens) == (step.prefill_tokens + step.decode_tokens) * config.moe.top_k


def test_same_trace_and_seed_same_routing():
    trace = generate(200, 1.0, Uniform(1, 8), Uniform(1, 16), seed=5)
    config = Config(12, cost=CostModel("linear"), moe=MIXTRAL)
    first, second = simulate(trace, config, "continuous"), simulate(trace, config, "continuous")
    assert run_json(first, compute(first)) == run_json(second, compute(second))
    other = simulate(trace, replace(config, moe=replace(MIXTRAL, seed=9)), "continuous")
    assert [s.expert_tokens for s in other.steps] != [s.expert_tokens for s in first.steps]


def test_cli_flags_and_json_fields(tmp_path):
    path = write(tmp_path, "name,arrival,prompt,output\nA,0,4,5\nB,0,2,2\nC,3,3,4\n")
    out = cli("run", "--trace", path, "--token-budget", "8", "--cost-model", "linear", "--moe-experts", "4",
              "--moe-top-k", "2", "--moe-skew", "1.5", "--moe-devices", "2", "--moe-c-expert", "0.5",
              "--moe-c-a2a", "0.25", "--moe-seed", "3", "--json")
    assert out.returncode == 0, out.stderr
    document = json.loads(out.stdout)
    moe = MoE(experts=4, top_k=2, skew=1.5, devices=2, c_expert=0.5, c_a2a=0.25, seed=3)
    assert document["moe"] == {"experts": 4, "top_k": 2, "skew": 1.5, "devices": 2, "c_expert": 0.5, "c_a2a": 0.25,
                               "seed": 3}
    for step in document["steps"]:
        loads = tuple(step["expert_tokens"])
        assert len(loads) == 4 and sum(loads) == 2 * (step["prefill_tokens"] + step["decode_tokens"])
        assert step["expert_tokens_max"] == max(loads) and step["expert_crossing"] == moe.crossing(loads)
    plain = json.loads(cli("run", "--trace", path, "--token-budget", "8", "--json").stdout)
    assert "moe" not in plain and all("expert_tokens" not in step for step in plain["steps"])


@pytest.mark.parametrize(("flags", "says"), [
    (("--moe-top-k", "3"), "--moe-top-k: MoE routing is off; turn it on with --moe-experts N"),
    (("--moe-experts", "4", "--moe-top-k", "5"), "moe_top_k: each token goes to top_k distinct experts, so at most 4"),
    (("--moe-experts", "6", "--moe-devices", "4"), "moe_devices: the 6 experts are split evenly over the devices"),
    (("--moe-experts", "4", "--moe-skew", "-1"), "moe_skew: must be a number >= 0.0 and <= 10.0, got -1.0"),
    (("--moe-experts", "four"), "argument --moe-experts: invalid int value: 'four'")])
def test_cli_bad_moe_flags_give_one_line(tmp_path, flags, says):
    out = cli("run", "--trace", write(tmp_path, "name,arrival,prompt,output\nA,0,4,5\n"), "--token-budget", "8",
              *flags)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.count("\n") == 1 and says in out.stderr, out.stderr


def test_the_lab_settings_carry_moe_and_a_link_keeps_it():
    from sim.codec import flat
    from ui.lab_state import LabSettings
    from ui.scenario import Scenario, decode, encode

    config = Config(8, moe=replace(MIXTRAL, c_expert=0.3, seed=4))
    shown = {name: value for name, value in flat(config).items() if name.startswith("moe_")}
    assert shown == {"moe_experts": 8, "moe_top_k": 2, "moe_skew": 1.0, "moe_devices": 4, "moe_c_expert": 0.3,
                     "moe_c_a2a": 0.01, "moe_seed": 4}
    typed = {name: float(value) for name, value in shown.items()}  # what number widgets may hand back
    assert LabSettings(**typed).config().moe == config.moe
    with pytest.raises(ConfigError) as error:
        LabSettings(**typed | {"moe_top_k": 9.0}).config()
    assert error.value.field == "moe_top_k"
    assert decode(encode(Scenario(SEED, config))).config == config


def heatmaps_of(at) -> list[dict]:
    return [f for f in (figure(at, i) for i in range(len(at.get("plotly_chart")))) if f["data"][0]["type"] == "heatmap"]


def test_the_lab_draws_each_policys_expert_load():
    at = open_page("pages/trace_lab.py")
    assert not heatmaps_of(at)  # off by default
    at.number_input(key="w_lab_moe_experts").set_value(4).run()
    assert not at.exception, at.exception
    assert len(heatmaps_of(at)) == 2  # A and B
    for heatmap in heatmaps_of(at):
        assert len(heatmap["data"]) == 1 and len(heatmap["data"][0]["z"]) == 4  # one trace, a row an expert
        assert heatmap["layout"]["title"]["text"].startswith("Expert load per iteration")
    assert any("cost no time" in c.value for c in at.caption)  # the tick model: routed, but free
    at.number_input(key="w_lab_moe_top_k").set_value(5).run()  # more than the 4 experts: named, not a traceback
    assert not at.exception
    assert any("“Experts per token (top-k)”: each token goes to" in e.value for e in at.error)  # by its label
    assert at.number_input(key="w_lab_moe_top_k").value == 5  # kept as typed


def test_the_lab_in_chinese_with_moe_on():
    """(Set before the page runs: AppTest formats a translated choice in English when a widget changes.)"""
    from streamlit.testing.v1 import AppTest

    from tests.test_app import APP
    from ui.lab_state import LabSettings, LabState

    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["lang"] = "zh"
    at.session_state["lab"] = LabState(settings=LabSettings(moe_experts=4, cost_kind="linear"))
    at.run()
    at.switch_page("pages/trace_lab.py").run()
    assert not at.exception, at.exception
    titles = [h["layout"]["title"]["text"] for h in heatmaps_of(at)]
    assert len(titles) == 2 and all(title.startswith("每次迭代的专家负载") for title in titles)
    assert any("最忙的专家决定" in c.value for c in at.caption)


def test_the_heatmap_draws_a_long_runs_first_iterations_and_says_so():
    from ui.charts import MOE_ITERATIONS, expert_heatmap

    trace = generate(400, 1.0, Uniform(1, 8), Uniform(1, 16), seed=6)
    schedule = simulate(trace, Config(12, moe=MIXTRAL), "continuous")
    total = sum(s.iterations for s in schedule.steps)
    assert total > MOE_ITERATIONS
    chart = expert_heatmap(schedule, "load").to_dict()
    z = chart["data"][0]["z"]
    assert len(z) == 8 and all(len(row) == MOE_ITERATIONS for row in z)
    assert chart["layout"]["title"]["subtitle"]["text"] == f"the first {MOE_ITERATIONS:,} of {total:,} iterations"
    firsts = [s.expert_tokens for s in schedule.steps for _ in range(s.iterations)][:MOE_ITERATIONS]
    assert [tuple(row[i] for row in z) for i in range(MOE_ITERATIONS)] == firsts
    # Iterations alike in every way are one step (top-2 of 2 experts routes every decode the same): a column each.
    alike = simulate(make_trace(("A", 0, 2, 450)), Config(8, moe=MoE(experts=2, top_k=2)), "continuous")
    assert [(s.iterations, s.expert_tokens) for s in alike.steps] == [(1, (2, 2)), (450, (1, 1))]
    z = expert_heatmap(alike, "load").to_dict()["data"][0]["z"]
    assert z == [[2] + [1] * (MOE_ITERATIONS - 1)] * 2


def test_the_lesson_shows_equal_tokens_taking_different_times():
    """The lesson's two iterations decode the same number of requests with the same dense work; the one whose
    busiest expert takes more choices is the slower one, by a margin a student sees."""
    from ui import costs

    group, fast, slow = costs.moe_pair(costs.moe_run().schedule)
    assert fast.decoding == slow.decoding == costs.MOE_SEQS and len(group) > 20
    assert slow.ms > 1.3 * fast.ms
    assert max(slow.loads) > max(fast.loads)
    dense = costs.MOE_COST.duration(0, fast.decoding, 0)
    for r in (fast, slow):
        assert r.ms == pytest.approx(dense + costs.MOE.duration(r.loads))
    assert all(fast.ms <= r.ms <= slow.ms for r in group)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_cost_page_tells_the_moe_lesson(lang):
    from ui import costs

    _, fast, slow = costs.moe_pair(costs.moe_run().schedule)
    at = open_page("pages/costs.py", lang)
    assert not at.exception, at.exception
    story = next(m.value for m in at.markdown if "c_expert" in m.value and str(slow.number) in m.value)
    unit = {"en": "ms", "zh": "毫秒"}[lang]
    assert f"{slow.ms:.1f} {unit}" in story and f"{fast.ms:.1f} {unit}" in story and "{" not in story
    charts = [figure(at, i) for i in range(len(at.get("plotly_chart")))]
    heatmap = next(c for c in charts if c["data"][0]["type"] == "heatmap")
    marked = sorted(shape["x0"] for shape in heatmap["layout"]["shapes"])
    assert marked == sorted((fast.number, slow.number))


def test_the_heatmap_passes_plotly_validation_unchanged():
    """(As tests/test_charts.py holds the other figures: written as plain dicts, shown unvalidated.)"""
    import plotly.graph_objects as go
    import plotly.io

    from ui.charts import expert_heatmap

    schedule = simulate(SEED, Config(8, moe=MoE(experts=24, top_k=3, skew=1.0)), "continuous")
    chart = expert_heatmap(schedule, "<b>load</b>", marks=((2, "#2"), (5, "#5")), zmax=12)
    shown = json.loads(plotly.io.to_json(chart, validate=False))
    validated = json.loads(plotly.io.to_json(go.Figure(chart.to_dict()), validate=False))  # raises on a bad key
    assert shown["data"] == validated["data"] and [d["type"] for d in shown["data"]] == ["heatmap"]
    assert {k: v for k, v in shown["layout"].items() if k != "template"} == \
        {k: v for k, v in validated["layout"].items() if k != "template"}


def test_on_a_projector_the_heatmaps_text_is_18_px_or_more(monkeypatch):
    from ui import presenter
    from ui.charts import expert_heatmap

    monkeypatch.setattr(presenter, "on", lambda: True)
    trace = generate(400, 1.0, Uniform(1, 8), Uniform(1, 16), seed=6)
    layout = expert_heatmap(simulate(trace, Config(12, moe=MIXTRAL), "continuous"), "load").to_dict()["layout"]
    assert layout["font"]["size"] >= 18 and layout["title"]["subtitle"]["font"]["size"] >= 18
    assert layout["xaxis"]["tickfont"]["size"] >= 18 and layout["yaxis"]["tickfont"]["size"] >= 18


ROOT = __import__("pathlib").Path(__file__).resolve().parents[1]


def test_the_real_engine_refuses_moe_routing(tmp_path):
    """The tiny model is dense: the real engine's CLI says MoE is simulated only, in one line."""
    path = tmp_path / "t.csv"
    path.write_text("name,arrival,prompt,output\nA,0,4,4\n")
    out = subprocess.run([sys.executable, "-m", "gpu_demo", "run", "--trace", str(path), "--token-budget", "8",
                          "--moe-experts", "4"], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 2 and "simulated only" in out.stderr and "Traceback" not in out.stderr
