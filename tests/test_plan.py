"""The capacity planner (sim.report.plan, `python -m sim plan`): the search finds the fewest replicas that keep the
target as a scan of every count would, the cheapest and the Pareto front are what their definitions say, a family
that cannot fit is named, and Ray's tasks give the local executor's rows, point for point."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from sim.core.config import SLO, Config, Policy
from sim.report.plan import Ask, PlanError, _next, local_runner, pareto, search
from sim.trace.generate import Uniform, generate

# 30 s of Llama-3.1-8B traffic: 600 requests at 20 a second, prompts 200-2,000 tokens, outputs 50-400: L4s at
# tensor parallel 2 need 5 replicas (a scan finds), at 1 none is enough (their TPOT floor is 71 ms); one H100 is.
TRACE = generate(600, 0.02, Uniform(200, 2000), Uniform(50, 400), seed=3)
CONFIG = Config(4096, 128, block_size=16, slo=SLO(ttft=1000, tpot=100))
ASK = Ask("Llama-3.1-8B", ("L4", "H100"), (1, 2), (1, 8), (4096,), 0.9, prices=(("L4", 0.8), ("H100", 2.5)))


def serial(trace, jobs):
    run, _ = local_runner(1)
    return run(trace, jobs)


@pytest.fixture(scope="module")
def found():
    return search(TRACE, ASK, CONFIG, Policy(), serial)


def test_the_search_finds_the_fewest_replicas_a_scan_would(found):
    """Every family: the fewest replicas that keep the target is the one a scan of 1..8 finds, and the search ran
    fewer points than the scan."""
    from sim.report.plan import Family, entry, run_point
    longest = max(r.prompt + r.output for r in TRACE.requests)
    scanned, fewests = 0, []
    for family in ASK.families():
        one = entry(ASK, family, CONFIG, Policy(), longest)
        if isinstance(one, str):
            continue
        rows = {n: run_point((TRACE, one, n)) for n in range(1, 9)}
        scanned += len(rows)
        fewest = min((n for n, r in rows.items() if r["attainment"] >= 0.9), default=None)
        mine = [r["replicas"] for r in found.rows if (r["hardware"], r["tp"]) == (family.hardware, family.tp)
                and r["keeps"]]
        assert min(mine, default=None) == fewest, family
        fewests.append(fewest)
    assert fewests == [None, 5, 1, 1]
    assert 0 < len(found.rows) < scanned
    assert isinstance(Family("H100", 1, 4096).label, str)


def test_the_cheapest_keeps_the_target_and_nothing_cheaper_does(found):
    best = found.cheapest
    assert best is not None and best["keeps"] and best["attainment"] >= 0.9
    assert all(r["cost"] >= best["cost"] for r in found.rows if r["keeps"])
    assert best["cost"] == best["gpus"] * dict(ASK.prices)[best["hardware"]]


def test_the_front_is_the_points_nothing_beats_on_cost_and_goodput(found):
    ran = [r for r in found.rows if not r["error"]]
    for row in ran:
        beaten = any(o is not row and o["cost"] <= row["cost"] and o["goodput"] >= row["goodput"]
                     and (o["cost"], o["goodput"]) != (row["cost"], row["goodput"]) for o in ran)
        assert (row in found.front) == (not beaten)
    rows = [{"cost": c, "goodput": g, "error": ""} for c, g in [(4, 1.0), (2, 1.0), (8, 3.0), (6, 0.5), (8, 2.0)]]
    assert [(r["cost"], r["goodput"]) for r in pareto(rows)] == [(2, 1.0), (8, 3.0)]


def test_doubling_then_bisecting():
    assert [_next(0, None, 1, 16), _next(1, None, 1, 16), _next(4, None, 1, 16), _next(16, None, 1, 16)] == \
        [1, 2, 8, None]
    assert [_next(4, 8, 1, 16), _next(6, 8, 1, 16), _next(7, 8, 1, 16), _next(0, 1, 1, 16)] == [6, 7, None, None]
    assert _next(8, None, 1, 12) == 12  # (the range's top is tried before giving up)


def test_a_model_that_does_not_fit_is_named_and_a_bad_ask_is_refused():
    big = Ask("Llama-3.1-70B", ("L4",), (1, 2), (1, 2), (4096,))
    plan = search(TRACE, big, CONFIG, Policy(), serial)
    assert plan.rows == [] and plan.cheapest is None
    assert set(plan.unfit) == {"L4 x1 budget 4096", "L4 x2 budget 4096"}
    assert all("raise --tp" in why for why in plan.unfit.values())
    with pytest.raises(PlanError, match="no price for H100"):
        search(TRACE, Ask("Llama-3.1-8B", ("L4", "H100"), prices=(("L4", 1.0),)), CONFIG, Policy(), serial)
    with pytest.raises(PlanError, match="give an SLO"):
        search(TRACE, ASK, Config(4096), Policy(), serial)


def test_ray_tasks_give_the_local_executors_rows_point_for_point():
    """A small plan on a local Ray with two CPUs, and the same plan in local worker processes."""
    from sim.report.ray_points import ray_runner  # (Ray is a test requirement: requirements-dev.txt)
    ask = Ask("Llama-3.1-8B", ("L4", "H100"), (1,), (1, 4), (4096,))
    run, stop = ray_runner(num_cpus=2)
    try:
        on_ray = search(TRACE, ask, CONFIG, Policy(), run)
    finally:
        stop()
    run, stop = local_runner(2)
    try:
        local = search(TRACE, ask, CONFIG, Policy(), run)
    finally:
        stop()
    assert len(on_ray.rows) >= 3
    assert json.dumps(on_ray.rows) == json.dumps(local.rows)
    assert on_ray.cheapest == local.cheapest


def test_the_command_line_plans_and_says_the_answer(tmp_path):
    path = tmp_path / "t.csv"
    from sim.trace.trace import write_csv
    path.write_text(write_csv(generate(200, 0.005, Uniform(200, 2000), Uniform(50, 400), seed=3)))
    common = ["--trace", str(path), "--token-budget", "4096", "--block-size", "16", "--slo-ttft", "300",
              "--slo-tpot", "12", "--hardware", "L4,H100", "--model", "Llama-3.1-8B", "--replicas", "1:4",
              "--workers", "1"]
    out = subprocess.run([sys.executable, "-m", "sim", "plan", *common], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("Cheapest within the SLO: ") and "Pareto front" in out.stdout
    document = json.loads(subprocess.run([sys.executable, "-m", "sim", "plan", *common, "--json"],
                                         capture_output=True, text=True).stdout)
    assert document["cost_unit"] == "GPUs" and document["cheapest"] in document["rows"]
    routed = json.loads(subprocess.run([sys.executable, "-m", "sim", "plan", *common, "--router",
                                        "least-requests,round-robin", "--json"], capture_output=True, text=True).stdout)
    assert {(r["hardware"], r["router"]) for r in routed["rows"] if r["replicas"] == 1} == {
        (g, r) for g in ("L4", "H100") for r in ("least-requests", "round-robin")}
    out = subprocess.run([sys.executable, "-m", "sim", "plan", *common, "--router", "nearest"], capture_output=True,
                         text=True)
    assert out.returncode == 2 and "--router 'nearest'" in out.stderr
    bad = subprocess.run([sys.executable, "-m", "sim", "plan", *common[:-6], "--hardware", "TPU", "--model",
                          "Llama-3.1-8B"], capture_output=True, text=True)
    assert bad.returncode == 2 and "--hardware 'TPU'" in bad.stderr and "Traceback" not in bad.stderr


AZURE = Path(__file__).resolve().parents[2] / "shared" / "traces" / "AzureLLMInferenceTrace_conv.csv"


@pytest.mark.skipif(not AZURE.exists(), reason="../shared/traces is absent (a user's fresh clone)")
def test_the_readmes_h100_plan_for_the_azure_conversation_trace():
    """The README's answer: 8 H100s (one engine at tensor parallel 8, 99.4% within the SLO); tensor parallel 4
    keeps 53.8% on one engine and 94.8% on two; tensor parallel 2 cannot hold the 14,089-token request."""
    out = subprocess.run([sys.executable, "-m", "sim", "plan", "--trace", str(AZURE), "--ms-per-tick", "1",
                          "--token-budget", "8192", "--chunk-size", "2048", "--max-seqs", "256", "--block-size", "16",
                          "--kv-admission", "overcommit", "--slo-ttft", "1000", "--slo-tpot", "25",
                          "--model", "Llama-3.1-70B", "--hardware", "H100", "--tp", "2,4,8", "--replicas", "1:16",
                          "--json"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    plan = json.loads(out.stdout)
    best = plan["cheapest"]
    assert (best["replicas"], best["tp"], best["gpus"], f"{best['attainment']:.1%}") == (1, 8, 8, "99.4%")
    tp4 = {r["replicas"]: f"{r['attainment']:.1%}" for r in plan["rows"] if r["tp"] == 4}
    assert (tp4[1], tp4[2]) == ("53.8%", "94.8%")
    assert "14,089" in plan["unfit"]["H100 x2 budget 8192"]
    readme = " ".join((Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8").split())
    assert ("8 H100s, one engine at tensor parallel 8, with 99.4% of requests within the SLO. One engine at tensor "
            "parallel 4 keeps 53.8%, two keep 94.8%") in readme and "longest request (14,089 tokens)" in readme


def test_a_split_family_is_searched_in_copies_of_its_prefill_and_decode_engines():
    """Prefill:decode splits beside side by side (DistServe's lesson at real sizes): L4s decoding beside prefills
    never keep a 100 ms TPOT, 1 prefill + 2 decode engines do from 6 copies (18 L4s), which a scan finds too; a
    copy is P + D engines, each tp GPUs, and its point is the split run of that many engines."""
    from sim.core.cluster import Split
    from sim.report.plan import Family, entry, run_point
    from sim.report.sweep import served
    ask = Ask("Llama-3.1-8B", ("L4",), (1,), (1, 8), (4096,), 0.9, splits=((1, 2),))
    found = search(TRACE, ask, CONFIG, Policy(), serial)
    split_rows = [r for r in found.rows if r["split"] == "1:2"]
    assert all(r["gpus"] == 3 * r["replicas"] == r["engines"] and r["prefill_engines"] == r["replicas"]
               for r in split_rows)
    assert found.cheapest["split"] == "1:2" and found.cheapest["gpus"] == 18
    assert not any(r["keeps"] for r in found.rows if r["split"] is None)
    longest = max(r.prompt + r.output for r in TRACE.requests)
    one = entry(ask, Family("L4", 1, 4096, split=(1, 2)), CONFIG, Policy(), longest)
    assert one.config.first_token == "prefill" and one.split.per_block > 0
    scan = {n: run_point((TRACE, one, n))["attainment"] >= 0.9 for n in range(4, 8)}
    assert min(n for n, ok in scan.items() if ok) == 6
    metrics, _ = served(TRACE, one._replace(split=Split(6, 12, one.split.latency, one.split.per_block)))
    assert run_point((TRACE, one, 6))["attainment"] == metrics.slo_attainment
