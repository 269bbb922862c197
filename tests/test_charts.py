"""The figures, written as plain dicts and shown unvalidated (for speed), hold to plotly's schema: each one,
passed through plotly's validation, is accepted and comes out the same. Stacked panels (ui/panels.py) share one
time axis and never overlap."""
import json

import plotly.graph_objects as go
import plotly.io
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.core.config import Config, Policy
from sim.core.engine import simulate
from sim.report.sweep import Entry, knees, sweep
from sim.trace.generate import Uniform, generate
from sim.trace.trace import validate
from ui import charts, panels

ROWS = [{"name": "A", "arrival": 0, "prompt": 4, "output": 5}, {"name": "<b>B</b>", "arrival": 0, "prompt": 2,
                                                                 "output": 6, "cancel_at": 4},
        {"name": "C", "arrival": 3, "prompt": 3, "output": 4}, {"name": "D", "arrival": 1, "prompt": 2, "output": 9}]
RICH = simulate(validate(ROWS), Config(8, kv_blocks=4, block_size=2, swap_cost=1),
                Policy(kv_admission="overcommit", preempt="swap", graph_buckets=(1, 2, 4), chunk_size=2))
STATIC = simulate(validate(ROWS), Config(8), "static")
CONTINUOUS = simulate(validate(ROWS), Config(8), "continuous")
LONG = simulate(generate(400, rate=0.2, prompt=Uniform(1, 8), output=Uniform(1, 40), seed=1), Config(8), "continuous")


def sweep_rows():
    trace = generate(40, rate=0.5, prompt=Uniform(1, 8), output=Uniform(1, 8), seed=0)
    entries = [Entry("static", Config(8), Policy("static")), Entry("continuous", Config(8), Policy())]
    return sweep(trace, entries, "rate", [0.5, 1.0, 2.0], workers=1)


FIGURES = {
    "gantt": lambda: charts.gantt(RICH, "rich", x_max=RICH.makespan),
    "gantt sampled": lambda: charts.gantt(LONG, "long"),
    "budget": lambda: charts.budget_chart(RICH, "budget"),
    "budget static": lambda: charts.budget_chart(STATIC, "budget"),
    "budget long": lambda: charts.budget_chart(LONG, "many ticks"),
    "load": lambda: charts.load_chart(LONG, "load"),
    "kv": lambda: charts.kv_chart(RICH, "kv", x_max=20),
    "anatomy": lambda: charts.request_anatomy(STATIC, 2),
    "gantts": lambda: panels.gantts([("static", STATIC), ("continuous", CONTINUOUS)], "both"),
    "kv totals": lambda: panels.kv_totals([("<b>rich</b>", RICH), ("again", RICH)], "kv", "the cost"),
    "sweep": lambda: charts.sweep_chart((rows := sweep_rows()), ("attainment",), "t", "x", "y",
                                        knees(rows, "attainment", 0.5), target=0.9, scale=100),
}


@pytest.mark.parametrize("name", FIGURES)
def test_every_figure_passes_plotly_validation_unchanged(name):
    figure = FIGURES[name]()
    shown = json.loads(plotly.io.to_json(figure, validate=False))
    validated = json.loads(plotly.io.to_json(go.Figure(figure.to_dict()), validate=False))  # raises on a bad key
    assert shown["data"] == validated["data"]
    assert {k: v for k, v in shown["layout"].items() if k != "template"} == \
        {k: v for k, v in validated["layout"].items() if k != "template"}
    assert shown["data"] and all(trace["type"] in ("bar", "scatter") for trace in shown["data"])


def domains(layout: dict) -> list[list[float]]:
    """The panels' y domains, top to bottom."""
    return [layout[key]["domain"] for key in sorted(k for k in layout if k.startswith("yaxis"))]


def test_gantt_panels_line_up_on_one_time_axis():
    layout = panels.gantts([("static", STATIC), ("continuous", CONTINUOUS)], "both").to_dict()["layout"]
    (top, bottom) = domains(layout)
    assert bottom[1] < top[0]  # apart, the static run above
    assert top[1] - top[0] == pytest.approx(bottom[1] - bottom[0])  # the same height
    assert layout["xaxis2"]["matches"] == "x" and layout["xaxis"]["range"][1] >= STATIC.makespan
    assert layout["yaxis"]["categoryarray"] == layout["yaxis2"]["categoryarray"]  # the same rows
    assert layout["xaxis"]["showticklabels"] is False and layout["xaxis2"]["showticklabels"] is True
    labels = [note["text"] for note in layout["annotations"]]
    assert labels == ["static", "continuous"]


def test_one_legend_entry_a_name_however_many_panels_draw_it():
    data = panels.gantts([("static", STATIC), ("continuous", CONTINUOUS)], "both").to_dict()["data"]
    shown = [d["name"] for d in data if d.get("showlegend", True)]
    assert len(shown) == len(set(shown)) and set(shown) == {d["name"] for d in data}


def test_kv_totals_give_each_run_a_panel_under_its_own_capacity_line():
    runs = [("a", RICH), ("b", RICH), ("c", RICH)]
    layout = panels.kv_totals(runs, "kv", "the cost").to_dict()["layout"]
    spans = domains(layout)
    assert len(spans) == 3 and all(low[1] < high[0] for high, low in zip(spans, spans[1:]))
    lines = [(shape["yref"], shape["y0"]) for shape in layout["shapes"]]
    assert lines == [(y, RICH.config.kv_blocks) for y in ("y", "y2", "y3")]
    labels = [note for note in layout["annotations"] if note["text"] in "abc"]
    assert [note["y"] for note in labels] == [span[1] for span in spans]  # each above its panel


@pytest.mark.parametrize("presenting", [False, True], ids=["plain", "presenter"])
def test_the_anatomys_arrows_and_labels_lie_off_the_bar(monkeypatch, presenting):
    """Request C under static batching (queued, then TTFT 5 and 3 gaps): each arrow and label lies on white, above or
    under the row's bar, in either mode's sizes."""
    from ui import presenter
    monkeypatch.setattr(presenter, "on", lambda: presenting)
    figure = charts.request_anatomy(STATIC, 2).to_dict()
    layout = figure["layout"]
    plot = layout["height"] - layout["margin"]["t"] - layout["margin"]["b"]
    half = max(d.get("width", 0.8) for d in figure["data"] if d["type"] == "bar") * plot / 2  # px (0.8: a row's share)
    labels = [note for note in layout["annotations"] if note.get("text")]
    assert len(labels) == 3
    assert all(abs(note["yshift"]) - note["font"]["size"] / 2 >= half for note in labels)


@given(st.lists(st.integers(0, 3), min_size=1, max_size=40))
def test_a_step_line_without_its_repeated_values_draws_the_same_line(values):
    # Drawn "hv", a step line is at y[k] from x[k] up to x[k + 1]: the points kept must give the same value at
    # every x the full line has, and end where it ends.
    xs = [k / 2 for k in range(len(values))]
    kept_x, kept_y = charts.step_line(xs, values)
    assert (kept_x[0], kept_x[-1], kept_y[-1]) == (xs[0], xs[-1], values[-1])
    for x, y in zip(xs, values):
        assert kept_y[max(k for k, at in enumerate(kept_x) if at <= x)] == y
    assert len(kept_y) == (1 + sum(a != b for a, b in zip(values, values[1:])) + (len(values) > 1
                                                                                   and values[-1] == values[-2]))


def test_two_gantt_charts_side_by_side_break_their_titles_to_half_the_page_and_stay_level():
    """The real model page's measured and predicted Gantt charts sit side by side: a title too long for half the
    page takes more lines (it stuck out by 111 px at 1024 px), and the two plots start at the same height."""
    schedule = CONTINUOUS
    long, short = "Policy 2 · Continuous batching: predicted by the simulator", "Policy 2 · Continuous batching"
    assert charts.title_px(2) < charts.title_px(1) // 2 + 1
    assert "<br>" not in charts.gantt(schedule, long).layout.title.text
    wide, narrow = charts.gantt(schedule, short, columns=2), charts.gantt(schedule, long, columns=2)
    assert "<br>" in narrow.layout.title.text and "<br>" not in wide.layout.title.text
    heights = (narrow.layout.height, wide.layout.height)
    level = charts.side_by_side([wide, narrow])
    assert level[0].layout.margin.t == level[1].layout.margin.t == max(f.layout.margin.t for f in level)
    assert level[0].layout.height == level[1].layout.height == max(heights)


SPECULATING = simulate(validate([{"name": n, "arrival": a, "prompt": 3, "output": 300} for n, a in
                                 (("A", 0), ("B", 2), ("C", 4))]), Config(8), Policy(spec_tokens=3, spec_accept=0.6))


def test_past_its_bar_limit_a_gantt_row_draws_each_run_of_one_phase_as_one_bar(monkeypatch):
    # Speculation's steps differ in tokens, so each is a segment of its own: about 120 a request here.
    rows = [0, 1, 2]
    segments = [r.segments for r in SPECULATING.requests]
    assert charts.gantt_bars(SPECULATING, rows) == (segments, False)  # under the limit: every segment, as it was
    monkeypatch.setattr(charts, "GANTT_BARS", 100)
    assert sum(map(len, segments)) > 300
    bars, merged = charts.gantt_bars(SPECULATING, rows)
    assert merged and sum(map(len, bars)) < 10
    for runs, before in zip(bars, segments):
        assert all(not (a.phase == b.phase and a.end == b.start) for a, b in zip(runs, runs[1:]))
        for phase in {s.phase for s in before}:  # the same time and tokens in each phase
            assert (sum(s.end - s.start for s in runs if s.phase == phase), sum(s.tokens for s in runs if s.phase ==
                    phase)) == (sum(s.end - s.start for s in before if s.phase == phase),
                                sum(s.tokens for s in before if s.phase == phase))
    figure = charts.gantt(SPECULATING, "spec")
    assert "each run of one phase drawn as one bar" in figure.layout.title.text
    assert sum(len(d.x) for d in figure.data if d.type == "bar") == sum(map(len, bars))
    assert charts.gantt_too_dense(SPECULATING) == 0
    monkeypatch.setattr(charts, "GANTT_BARS", 3)  # even merged, more bars than that: too dense to draw
    assert charts.gantt_too_dense(SPECULATING) == sum(map(len, bars))


def test_past_its_point_limit_the_budget_chart_draws_bins_that_keep_the_work_done(monkeypatch):
    monkeypatch.setattr(charts, "TIME_POINTS", 50)
    monkeypatch.setattr(charts, "BINS", 40)
    figure = charts.budget_chart(LONG, "long")
    assert "averaged over bins of" in figure.layout.title.text
    width = LONG.makespan / 40
    work = [d for d in figure.data if d.name in ("prefill", "decode", "padding")]
    assert work and all(len(d.x) == 41 for d in work)  # a point a bin, and the last bin's end
    drawn = sum(sum(d.y[:-1]) * width for d in work)
    done = sum((s.prefill_tokens + s.decode_tokens + s.padding_tokens) * (s.end - s.start) for s in LONG.steps)
    assert drawn == pytest.approx(done)


def test_the_kv_bands_are_each_holders_blocks_in_each_interval():
    holders = [r for r in RICH.requests if r.kv]
    times = sorted({time for r in holders for time, _ in r.kv} | {RICH.makespan})
    xs, widths, bases, heights, _ = charts._kv_bands(holders, times)
    expected = []  # (each holder's blocks: the last change at or before the interval's start)
    for a, b in zip(times, times[1:]):
        base = 0
        for r in holders:
            blocks = next((n for time, n in reversed(r.kv) if time <= a), 0)
            if blocks:
                expected.append(((a + b) / 2, b - a, base, blocks))
                base += blocks
    assert list(zip(xs, widths, bases, heights)) == expected and len(expected) > 5


@pytest.mark.parametrize("admission, gap", [("overcommit", 3), ("reserve", 70)])
def test_past_its_point_limit_the_kv_line_draws_the_most_in_use_in_each_bin(monkeypatch, admission, gap):
    # overcommit: a block at a time, a step each tick; reserve: runs of merged decode steps, some over whole bins
    run = simulate(validate([{"name": f"r{k}", "arrival": gap * k, "prompt": 4, "output": 200} for k in range(6)]),
                   Config(8, kv_blocks=400, block_size=4), Policy(kv_admission=admission))
    monkeypatch.setattr(charts, "TIME_POINTS", 5)
    monkeypatch.setattr(charts, "BINS", 10)
    assert len(run.steps) > 5
    figure = charts.kv_chart(run, "kv")
    assert "the most in use in each bin of" in figure.layout.title.text
    line = next(d for d in figure.data if d.type == "scatter")
    width = run.makespan / 10
    # the line as drawn unbinned holds each step's blocks until the next step starts: in each bin, the most of
    # what it holds at the bin's start and what every step starting in it holds
    most = [max([s.kv_blocks for s in run.steps if k * width <= s.start < (k + 1) * width]
                + [s.kv_blocks for s in run.steps if s.start <= k * width][-1:]) for k in range(10)]
    at = [next(y for x, y in reversed(list(zip(line.x, line.y))) if x <= (k + 0.5) * width) for k in range(10)]
    assert at == most and max(most) == max(s.kv_blocks for s in run.steps)
    if admission == "reserve":
        assert any(not any(k * width <= s.start < (k + 1) * width for s in run.steps) for k in range(10))


def test_the_lab_counts_its_large_downloads_as_they_would_be_made():
    # The limits on the schedule JSON and the Chrome trace are checked against counts made without making them.
    from sim.report.metrics import compute
    from ui.lab_results import chrome_json, download_sizes, schedules_json
    for pair in ((STATIC, CONTINUOUS), (RICH, LONG), (LONG, LONG)):
        runs = [(schedule, compute(schedule)) for schedule in pair]
        times, events = download_sizes(runs)
        document = json.loads(schedules_json(runs))
        assert list(document) == [f"{label}_{m.policy}" for label, (_, m) in zip("AB", runs)]
        assert times == sum(len(r["emitted"]) for run in document.values() for r in run["requests"])
        assert events == len(json.loads(chrome_json(list(pair)))["traceEvents"])


def test_past_its_point_limit_the_kv_chart_marks_each_bin_with_events_once_with_their_count(monkeypatch):
    run = simulate(validate([{"name": f"r{k}", "arrival": 3 * k, "prompt": 4, "output": 200} for k in range(10)]),
                   Config(8, kv_blocks=60, block_size=4), Policy(kv_admission="overcommit"))
    times = [time for time, kind, _ in run.events if kind == "preempt"]
    monkeypatch.setattr(charts, "TIME_POINTS", 5)
    monkeypatch.setattr(charts, "BINS", 10)
    assert len(times) > 5
    figure = charts.kv_chart(run, "kv")
    go.Figure(figure.to_dict())  # (plotly's validation: raises on a bad key)
    markers = next(d for d in figure.data if d.name == "preempted (recompute)")
    width = run.makespan / 10
    counts = [sum(k * width <= time < (k + 1) * width or k == 9 and time == run.makespan for time in times)
              for k in range(10)]
    assert list(markers.x) == [(k + 0.5) * width for k in range(10) if counts[k]]
    assert list(markers.customdata) == [n for n in counts if n] and sum(markers.customdata) == len(times)
    assert "in this bin of" in markers.hovertemplate


@settings(max_examples=25)
@given(st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 1_000)), min_size=400, max_size=900))
def test_thinned_markers_draw_the_same_picture_in_fewer_points(points):
    """A marker plot's points, thinned: some of them, in their order, and every point within one cell of
    MARKER_GRID (about 2 px, under a 5 px marker) of a kept one; a few points stay as they are."""
    xs, ys = [x for x, _ in points], [y for _, y in points]
    kept = list(zip(*charts.thinned(xs, ys))) if points else []
    if len(points) <= charts.MARKER_GRID[0]:
        assert kept == points
        return
    left = iter(points)
    assert all(point in left for point in kept)  # a subsequence
    wide = (max(xs) - min(xs)) / charts.MARKER_GRID[0]
    high = (max(ys) - min(ys)) / charts.MARKER_GRID[1]
    assert all(any(abs(x - a) <= wide and abs(y - b) <= high for a, b in kept) for x, y in points)


def test_thinning_keeps_a_dense_plots_points_to_its_cells():
    xs = [k % 1000 for k in range(20_000)]
    ys = [k % 7 for k in range(20_000)]
    kept_x, kept_y = charts.thinned(xs, ys)
    assert len(set(zip(kept_x, kept_y))) == len(kept_x) <= (charts.MARKER_GRID[0] + 1) * 7  # (x = 999: a cell more)


def test_a_timeline_in_ms_writes_whole_milliseconds_and_ticks_keep_plotlys_own():
    """A ms axis reads "15,000 ms", not Plotly's "15k ms" beside charts in seconds; a tick axis is left as it was."""
    ms, ticks = (charts.timeline_layout("t", 100, 15_000, unit, {})["xaxis"] for unit in ("ms", "tick"))
    assert ms["exponentformat"] == "none" and ms["separatethousands"]
    assert "exponentformat" not in ticks and "separatethousands" not in ticks


def test_a_knee_label_too_wide_for_its_side_takes_more_lines_and_the_next_knee_goes_above_it(monkeypatch):
    """In Chinese on a projector a split's name, a knee in the middle of the axis, stuck out of the chart: a label
    is set on the side with more room and broken into lines that fit it, and each knee's label keeps rows of its
    own above the labels before it."""
    from ui import presenter
    from ui.wrap import em
    monkeypatch.setattr(presenter, "on", lambda: True)
    long = "★ 分离，快速链路的最佳划分：2 + 2"
    text, anchor = charts.knee_label(long, 0.5)
    room = (charts.title_px() - presenter.px(charts.KNEE_AXIS_PX)) / 2
    assert "<br>" in text and anchor == "left"
    assert all(em(line) * presenter.font(12) <= room for line in text.split("<br>"))
    assert text.endswith("2 + 2") and len(text.split("<br>")) == 2  # (lines of even lengths: the split stays whole)
    assert charts.knee_label("★ 1", 0.9) == ("★ 1", "right")  # (short: whole, on the side with more room)
    rows = [{"policy": policy, "value": value, "attainment": attainment, "error": None}
            for policy in ("分离，快速链路", "4 个并排") for value, attainment in ((1, 1.0), (2, 1.0), (3, 0.1))]
    figure = charts.sweep_chart(rows, ("attainment",), "t", "x", "%", knees={"分离，快速链路": 2, "4 个并排": 2},
                                knee_text="sw_best_split_label", scale=100)
    first, second = [a for a in figure.layout.annotations if a.text.startswith("★")]
    assert "<br>" in first.text and first.align == "left"
    assert second.y == pytest.approx(first.y + 0.12 * (first.text.count("<br>") + 1))
