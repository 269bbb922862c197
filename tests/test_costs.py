"""The cost lesson: each cost shows on its trace, with figures that follow from the cost model, and the page
names every cost on its chart, in both languages; lesson 1 gives the worked example's tick figures in ms beside
them, and the one figure measured on the machine is measured once a server."""
import json
import re
from statistics import median

import pytest

from tests.test_app import open_page
from ui import costs, lessons
from ui.i18n import speaking
from ui.numbers import duration
from ui.strings import STRINGS


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
    # Both move every request in once and out once; static does it a whole batch at a time, in few changes.
    assert static.moves == continuous.moves == 2 * len(costs.jitter_trace())
    assert static.moves / static.changed > 10 * continuous.moves / continuous.changed


def test_lesson_1_tells_the_worked_example_in_ms_beside_its_ticks():
    timed, ticks = costs.interference(), costs.example_ticks()
    ms, tick = ({v.key: v for v in runs} for runs in (timed, ticks))
    both = ("cost_static", "cost_continuous")
    # The tick model gives the worked example's own figures (the design's first acceptance test) ...
    assert [costs.ttft_of(tick[key], "C") for key in both] == [5, 2]
    assert [tick[key].metrics.makespan for key in both] == [11, 8]
    # ... and the ms model the same story: static batching keeps C waiting and ends later.
    assert costs.ttft_of(ms["cost_static"], "C") > costs.ttft_of(ms["cost_continuous"], "C")
    assert ms["cost_static"].metrics.makespan > ms["cost_continuous"].metrics.makespan
    with speaking("en"):
        lesson = costs.interference_lesson(timed, ticks)
        c_ms = [duration(costs.ttft_of(ms[key], "C")) for key in both]
        end_ms = [duration(ms[key].metrics.makespan) for key in both]
    assert f"5 → 2 ticks for C's TTFT is **{c_ms[0]} → {c_ms[1]}**" in lesson.story
    assert f"11 → 8 ticks is **{end_ms[0]} → {end_ms[1]}**" in lesson.story
    table = lesson.table.set_index("figure")
    assert list(table.columns) == ["static", "continuous", "chunks of 2", "chunks of 1"]
    assert list(table.loc["C's TTFT in ticks", ["static", "continuous"]]) == ["5 ticks", "2 ticks"]
    assert list(table.loc["C's TTFT in ms", ["static", "continuous"]]) == c_ms
    assert list(table.loc["makespan in ticks", ["static", "continuous"]]) == ["11 ticks", "8 ticks"]
    assert list(table.loc["makespan in ms", ["static", "continuous"]]) == end_ms
    gantts = lesson.charts[0].to_dict()
    static_rows = {d["yaxis"] for d in gantts["data"] if d.get("name") == "padding"}
    assert static_rows == {"y"}  # the top panel is static batching's, the only one that pads


def test_the_planning_time_is_measured_once_a_server():
    """Both languages' pages (made apart) show the same measured figure: the runs behind them are made once."""
    planned = []
    for lang in ("en", "zh"):
        at = open_page("pages/costs.py", lang)
        table = at.dataframe[lessons.KEYS.index("work")].value
        planned.append(re.findall(r"[\d.]+", " ".join(table.iloc[-1, 1:])))
    assert planned[0] == planned[1] and len(planned[0]) == 2


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_page_names_every_cost_on_its_chart_with_its_figure(lang):
    at = open_page("pages/costs.py", lang)
    assert not at.exception, at.exception
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    named = [c["layout"]["title"].get("subtitle", {}).get("text", "") for c in charts]
    named_costs = [n for n in named if n]
    assert len(named_costs) == len(lessons.KEYS), named
    for text in named_costs:
        assert re.search(r"\d", text) and "{" not in text, text  # a figure, every field filled
    assert "13" in named_costs[0] and "+85.7%" in named_costs[0]  # A's gap while C prefills: 13 against 7 ms
    assert len(at.dataframe) == len(lessons.KEYS)
    titles = [STRINGS[f"cost_{key}_title"][lang] for key in lessons.KEYS]
    assert [h.value for h in at.header][:-1] == [f"{n}. {title}" for n, title in enumerate(titles, start=1)]
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
    for figure in ("55 ms", "91 ms", "+85.7%", "26 to 35 ms", "80.5 ms", "3.79×", "52.1 ms", "2.36×",
                   "220 to 431 ms", "2.99 s", "20.7 ms", "7.45 s", "15.9 s", "39.7 to 69.8 ms", "2.45 to 1.7 s",
                   "33 preemptions", "7,390", "3,536", "541", "600 joins", "42.9", "1.11", "15.2 ms", "24.2 ms",
                   "+59.4%"):
        assert figure in told, figure
        number = re.sub(r"[^\d.,%+]", " ", figure).split()[0].rstrip(".,")
        assert number in stories, figure


@pytest.fixture(scope="module")
def on_a_real_gpu():
    return {"jitter": costs.jitter("real"), "hol": costs.hol("real"), "kv": costs.kv_pressure("real")}


def test_on_a_real_gpu_the_lessons_costs_show_at_real_sizes(on_a_real_gpu):
    """Llama-3.1-8B on one L4 under the roofline: a decode step takes the weights' read (16 GB at 75% of 300 GB/s,
    71 ms) and more; a long prompt's prefill still makes the stream stutter, and chunks cut it; strict order blocks
    short prompts behind long ones; the cache 75% of the memory leaves makes overcommit preempt."""
    plain, chunked = on_a_real_gpu["jitter"]
    itl = plain.metrics.percentiles["itl"]
    assert 71 < itl[50] < 90 and itl[99] > 1.5 * itl[50]
    assert chunked.metrics.percentiles["itl"][99] < itl[99]
    assert plain.schedule.config.cost.label == "Llama-3.1-8B on 1 x L4 (bf16)"
    strict, skip, _ = on_a_real_gpu["hol"]
    assert median(costs.queue_times(strict)[0]) > 100 * median(costs.queue_times(skip)[0])
    reserve, overcommit = on_a_real_gpu["kv"]
    assert reserve.schedule.config.kv_blocks == costs.kv_cache_blocks("real") == 924
    assert reserve.metrics.preemptions == 0 < overcommit.metrics.preemptions
    assert overcommit.metrics.percentiles["ttft"][99] < reserve.metrics.percentiles["ttft"][99]


def test_the_page_switches_lessons_2_to_5_to_a_real_gpu():
    at = open_page("pages/costs.py")
    at.radio(key="w_cost_hardware").set_value("real").run()
    assert not at.exception, at.exception
    assert any("924 blocks of 16 tokens" in c.value and "L4: 121 TFLOP/s" in c.value for c in at.caption)
    told = lessons.lessons("en", False, "real")
    kv = next(lesson for lesson in told if lesson.key == "kv")
    assert "a KV cache of 924 blocks (14,784 tokens)" in kv.story
    assert any("a KV cache of 924 blocks" in m.value for m in at.markdown)
