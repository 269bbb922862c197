"""The cost lesson: each cost shows on its trace, with figures that follow from the cost model, and the page
names every cost on its chart, in both languages."""
import json
import re
from statistics import median

import pytest

from tests.test_app import open_page
from ui import costs


@pytest.fixture(scope="module")
def interference():
    return {v.key: v for v in costs.interference()}


def test_cs_prefill_lengthens_the_iteration_in_which_a_decodes(interference):
    plain = interference["cost_continuous"]
    cost = costs.EXAMPLE_COST
    gaps = costs.gaps_of(plain, "A")
    # C's 3 prompt tokens share an iteration with A's and B's decodes; every other gap is one decode iteration
    assert max(gaps) == cost.c0 + 3 * cost.c_prefill + 2 * cost.c_decode
    assert median(gaps) == cost.c0 + 2 * cost.c_decode
    assert costs.ttft_of(plain, "C") < costs.ttft_of(interference["cost_chunk1"], "C")


def test_chunked_prefill_spreads_the_interference_and_delays_first_tokens(interference):
    worst = {key: max(costs.gaps_of(v, "A")) for key, v in interference.items()}
    assert worst["cost_continuous"] > worst["cost_chunk2"] > worst["cost_chunk1"]
    ttft = {key: costs.ttft_of(v, "A") for key, v in interference.items()}
    assert ttft["cost_continuous"] < ttft["cost_chunk2"] < ttft["cost_chunk1"]


def test_tpot_jitter_is_a_long_tail_that_chunks_cut():
    plain, chunked = costs.jitter()
    ratio = [v.metrics.percentiles["itl"][99] / v.metrics.percentiles["itl"][50] for v in (plain, chunked)]
    assert ratio[0] > 3 > ratio[1]
    assert chunked.metrics.percentiles["ttft"][99] > plain.metrics.percentiles["ttft"][99]


def test_strict_order_blocks_short_prompts_and_skipping_starves_long_ones():
    strict, skip, chunked = costs.hol()
    short = {v.key: median(costs.queue_times(v)[0]) for v in (strict, skip, chunked)}
    long = {v.key: median(costs.queue_times(v)[1]) for v in (strict, skip, chunked)}
    assert short["cost_fcfs"] > 50 * short["cost_skip"]  # head-of-line blocking
    assert long["cost_skip"] > 50 * short["cost_skip"]  # starvation
    assert long["cost_fcfs_chunk"] < long["cost_skip"] / 50 and short["cost_fcfs_chunk"] < short["cost_fcfs"] / 50
    assert chunked.metrics.percentiles["itl"][50] > skip.metrics.percentiles["itl"][50]  # the chunks' price


def test_overcommit_buys_ttft_with_preemptions():
    reserve, overcommit = costs.kv_pressure()
    assert reserve.metrics.preemptions == 0 < overcommit.metrics.preemptions
    assert overcommit.metrics.recomputed_tokens > 0
    assert overcommit.metrics.percentiles["ttft"][99] < reserve.metrics.percentiles["ttft"][99]
    assert max(s.kv_blocks for s in overcommit.schedule.steps) <= costs.KV_BLOCKS


def test_continuous_batching_decides_every_iteration():
    static, continuous = costs.scheduler_work(repeats=1)
    assert continuous.decisions == continuous.iterations
    assert static.decisions * 10 < continuous.decisions
    assert continuous.changed > static.changed
    assert static.plan_us > 0 and continuous.plan_us > 0


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_page_names_every_cost_on_its_chart_with_its_figure(lang):
    at = open_page("pages/costs.py", lang)
    assert not at.exception, at.exception
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    named = [c["layout"]["title"].get("subtitle", {}).get("text", "") for c in charts]
    lessons = [n for n in named if n]
    assert len(lessons) == 8, named
    for text in lessons:
        assert re.search(r"\d", text) and "{" not in text, text  # a figure, every field filled
    assert "13" in lessons[0] and "+86%" in lessons[0]  # A's gap while C prefills: 13 against 7 ms
    assert len(at.dataframe) == 8
    stories = "\n".join(m.value for m in at.markdown)
    assert "{" not in stories
    unit = {"en": " ms", "zh": " 毫秒"}[lang]
    assert f"13{unit}" in stories and f"7{unit}" in stories


def test_the_worked_example_links_to_the_cost_lesson():
    at = open_page("pages/worked_example.py")
    assert "costs" in {link.proto.page for link in at.get("page_link")}  # the page's URL name


def test_the_readmes_figures_are_the_pages_own():
    at = open_page("pages/costs.py")
    stories = "\n".join(m.value for m in at.markdown)
    readme = (costs.__file__.rsplit("/ui/", 1)[0] + "/README.md")
    with open(readme, encoding="utf-8") as file:
        told = file.read().split("- **What it costs**", 1)[1].split("\n- **", 1)[0]
    for figure in ("+86%", "26 to 35 ms", "81 ms", "3.8×", "52 ms", "2.4×", "220 to 431 ms", "3.0 s", "21 ms",
                   "7.4 s", "15.9 s", "40 to 70 ms", "2.4 to 1.7 s", "33 preemptions", "7,390", "3,536", "541",
                   "15.2 ms", "24.2 ms", "+59%"):
        assert figure in told, figure
        number = re.sub(r"[^\d.,%+]", " ", figure).split()[0].rstrip(".,")
        assert number in stories, figure
