"""Plotly figures read from a Schedule: the Gantt chart, the per-tick budget chart and the load chart.

Each figure is written as plain dicts in plotly's schema and wrapped without validation (`plotly_figure`): checking
every property on the way in cost about half of a page's run, which forty students at once make the
server's bottleneck. tests/test_charts.py holds every figure to plotly's validation instead."""
from __future__ import annotations

from collections import Counter

import plotly.graph_objects as go

from sim.core.schedule import PHASES, Schedule, load_series

from . import presenter
from .i18n import t
from .numbers import number, quantity
from .text import plotly_text
from .wrap import balanced_lines, break_lines

COLORS = {"queued": "#cfd5de", "prefill": "#f28e2b", "decode": "#4e79a7", "padding": "#e15759",
          "stalled": "#b07aa1", "paused": "#76b7b2", "preempted": "#ff9da7", "swapped": "#9c755f",
          "swapping": "#d4b9a4", "graph_padding": "#edc948", "idle": "#eef1f5"}
HATCHED = {"padding": "/", "graph_padding": "x", "swapping": ".", "paused": "-"}
# Scheduling events on a request's row: marker symbol and colour.
EVENT_MARKERS = {"preempt": ("x", "#d62728"), "swap_out": ("triangle-down", "#9c755f"),
                 "swap_in": ("triangle-up", "#9c755f"), "cancel": ("circle-x-open", "#2f3640"),
                 "disconnect": ("hexagon-open", "#2f3640"),
                 "reject": ("square-x-open", "#d62728")}
GANTT_ROWS = 150  # beyond this many requests the Gantt shows an even sample of them
TICK_BARS = 400  # up to this many ticks the budget chart has one bar a tick
# What a chart draws at most, so that a run of millions of steps (long outputs that cannot merge: speculation)
# neither sends the browser hundreds of MB nor takes minutes to draw. Past it, a Gantt row draws each run of one
# phase as one bar (its tokens added up), and the time charts draw bins of equal time.
GANTT_BARS = 20_000
TIME_POINTS = 4_000  # a time chart's points (the budget chart's runs, the KV line's steps); beyond, BINS bins
BINS = 1_000
KV_BARS = 20_000  # the KV chart's bands (a request and interval each); beyond, only its total line
PRESENTER_ROOM = 70  # px more height in presenter mode, for the larger legend, title and tick labels
BAR_HALF = 14  # px: half a Gantt row's bar, from the row's middle
INK = "#1f2430"  # words on a chart, dark enough to read on a projector
SUBTITLE_PX = 570  # px a lesson chart's subtitle line may take: the narrowest chart's (1024 px, plain mode)
COLUMN_GAP_PX = 16  # between two of st.columns (1rem)


def step_line(xs: list, ys: list) -> tuple[list, list]:
    """A step line's points (drawn "hv": flat to the next x, then up or down) without those that repeat the value
    before them, which draw nothing: the same line in fewer points (a run's KV blocks stay level for hundreds of
    steps). The last point stays, where the line ends."""
    kept = [k for k in range(len(ys)) if k == 0 or k == len(ys) - 1 or ys[k] != ys[k - 1]]
    return [xs[k] for k in kept], [ys[k] for k in kept]


def plotly_figure(data: list[dict], layout: dict) -> go.Figure:
    if presenter.on():
        projector_fonts(data, layout)
    return go.Figure({"data": data, "layout": layout}, _validate=False)


FONTS = ("font", "tickfont", "textfont", "insidetextfont", "outsidetextfont")


def projector_fonts(data: list[dict], layout: dict) -> None:
    """Every text of a figure at presenter mode's size at least: the fonts it names raised, and the axes', the
    titles', the legend's and the annotations' set (Streamlit's chart theme sizes those itself, over the layout's
    own font)."""
    def raise_(node) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in FONTS and isinstance(value, dict):
                    value["size"] = presenter.font(value.get("size", 0))
                raise_(value)
        elif isinstance(node, list):
            for value in node:
                raise_(value)

    least = {"size": presenter.MIN_FONT_PX}
    for name in {"xaxis", "yaxis"} | {key for key in layout if key.startswith(("xaxis", "yaxis"))}:
        axis = layout.setdefault(name, {})
        axis.setdefault("tickfont", dict(least))
        title = axis.setdefault("title", {})
        if isinstance(title, dict):
            title.setdefault("font", dict(least))
    layout.setdefault("legend", {}).setdefault("font", dict(least))
    layout.setdefault("font", dict(least))
    for note in layout.get("annotations", []):
        note.setdefault("font", dict(least))
    raise_(data)
    raise_(layout)


def title_px(columns: int = 1) -> int:
    """The px a chart's title line may take, the chart one of `columns` side by side across the page (at its
    narrowest: a 1024 px window), in this mode."""
    whole = SUBTITLE_PX + presenter.page_px() - presenter.PAGE_PX[False]
    return (whole - presenter.px(COLUMN_GAP_PX) * (columns - 1)) // columns


def base_layout(title: str, height: int, columns: int = 1) -> dict:
    """`columns`: the chart is one of that many side by side (its title is broken to their width)."""
    # The legend sits at the bottom of the figure, under the axis title, so a wrapped legend in a narrow
    # column pushes the plot up instead of covering the title.
    layout = {"title": {"text": title, "x": 0, "font": {"size": 15}}, "height": height,
              "margin": {"l": 10, "r": 10, "t": 36, "b": 76}, "plot_bgcolor": "white",
              "legend": {"orientation": "h", "x": 0, "y": 0, "yref": "container", "yanchor": "bottom",
                         "font": {"size": 11}}}
    if presenter.on():  # projector sizes; the taller legend and tick labels get the room they take
        layout["title"]["font"]["size"] = presenter.font(20)
        layout["legend"]["font"]["size"] = presenter.font(11)
        layout["font"] = {"size": presenter.font(12)}
        layout["margin"] |= {"t": 48, "b": 110}
        layout["height"] = height + PRESENTER_ROOM
    # A title naming a policy's options can be longer than the narrowest chart: it takes more lines, in more room
    # at the top, and the plot keeps its height.
    size = layout["title"]["font"]["size"]
    text = balanced_lines(title, size, title_px(columns))
    if "<br>" in text:  # (Plotly sets a title's first line on the middle of the top margin: twice the room)
        more = 2 * text.count("<br>") * round(size * 1.3)
        layout["title"]["text"] = text
        layout["margin"]["t"] += more
        layout["height"] += more
    return layout


def timeline_layout(title: str, height: int, x_max: float | None, unit: str, yaxis: dict, columns: int = 1) -> dict:
    """A timeline's layout: time on an x axis shared by every chart of a run (whole ticks when few); `columns` as
    base_layout's."""
    integer_axis = {"dtick": 1} if x_max is not None and x_max <= 40 else {}
    pad = (x_max or 0) * 0.02 + 0.3  # room for the markers at both ends
    xaxis = {"title": {"text": t(f"unit_{unit}")}, "showgrid": True, "gridcolor": "#e5e8ee", "zeroline": False,
             "tick0": 0, **integer_axis}
    if unit == "ms":  # whole milliseconds under their unit ("15,000 ms", not Plotly's "15k ms")
        xaxis |= {"exponentformat": "none", "separatethousands": True}
    if x_max:
        xaxis["range"] = [-pad, x_max + pad]
    return base_layout(title, height + 40, columns) | {
        "barmode": "overlay", "hoverlabel": {"align": "left"}, "xaxis": xaxis, "yaxis": yaxis}


def _hline(layout: dict, y: float, color: str, text: str) -> None:
    """A dashed line across the plot at `y`, labelled at its top left (plotly's add_hline, without its cost)."""
    layout.setdefault("shapes", []).append({"type": "line", "xref": "x domain", "x0": 0, "x1": 1, "yref": "y",
                                            "y0": y, "y1": y, "line": {"color": color, "dash": "dash", "width": 1}})
    layout.setdefault("annotations", []).append({"text": text, "xref": "x domain", "x": 0, "xanchor": "left",
                                                 "yref": "y", "y": y, "yanchor": "bottom", "showarrow": False})


def _vline(layout: dict, x: float) -> None:
    """A dotted line down the plot at `x`."""
    layout.setdefault("shapes", []).append({"type": "line", "xref": "x", "x0": x, "x1": x, "yref": "y domain",
                                            "y0": 0, "y1": 1, "line": {"color": "#2f3640", "dash": "dot", "width": 1}})


def sample_rows(n: int, limit: int = GANTT_ROWS) -> list[int]:
    """Every request when there are few, else `limit` of them evenly spread over the trace."""
    if n <= limit:
        return list(range(n))
    return sorted({round(i * (n - 1) / (limit - 1)) for i in range(limit)})


def gantt(schedule: Schedule, title: str, x_max: float | None = None, rows: list[int] | None = None,
          columns: int = 1) -> go.Figure:
    """One row per request, one bar trace per phase (array-valued), arrival and completion markers; `rows`
    picks requests (else all, or an even sample of a long trace); `columns` as base_layout's."""
    sampled = rows is None and len(schedule.requests) > GANTT_ROWS
    rows = sample_rows(len(schedule.requests)) if rows is None else rows
    if sampled:
        title += " · " + t("gantt_sampled", shown=len(rows), total=len(schedule.requests))
    bars, merged = gantt_bars(schedule, rows)
    if merged:
        title += " · " + t("gantt_merged")
    layout = timeline_layout(title, gantt_height(len(rows)), x_max, schedule.unit, gantt_yaxis(schedule, rows),
                             columns)
    return plotly_figure(gantt_traces(schedule, rows, bars), layout)


def gantt_bars(schedule: Schedule, rows: list[int]) -> tuple[list[list], bool]:
    """The bars of each row's request: its segments, or, past GANTT_BARS of them, each run of segments of one phase
    with no gap as one bar, its tokens added up (a bar looks the same; its hover sums the run). And whether they
    were merged."""
    requests = [schedule.requests[i] for i in rows]
    if sum(len(r.segments) for r in requests) <= GANTT_BARS:
        return [r.segments for r in requests], False
    merged = []
    for r in requests:
        runs = []
        for s in r.segments:
            last = runs[-1] if runs else None
            if last is not None and last.phase == s.phase and last.end == s.start:
                runs[-1] = last._replace(end=s.end, tokens=last.tokens + s.tokens)
            else:
                runs.append(s)
        merged.append(runs)
    return merged, True


def gantt_too_dense(schedule: Schedule) -> int:
    """The bars the Gantt chart of `schedule` would draw, runs of one phase merged, if that is still more than
    GANTT_BARS (too dense to read or to send: the page says so and shows the load chart instead); else 0."""
    bars, _ = gantt_bars(schedule, sample_rows(len(schedule.requests)))
    count = sum(len(b) for b in bars)
    return count if count > GANTT_BARS else 0


def side_by_side(figures: list[go.Figure]) -> list[go.Figure]:
    """Charts drawn side by side, their plots level: each as much room at the top (a title broken over more lines
    takes more) and as tall as the one with the most."""
    top = max(f.layout.margin.t for f in figures)
    for f in figures:
        f.layout.height += top - f.layout.margin.t
        f.layout.margin.t = top
    return figures


def gantt_height(requests: int) -> int:
    return max(180, 60 + 26 * requests) if requests <= 40 else 720


def gantt_yaxis(schedule: Schedule, rows: list[int]) -> dict:
    """Every request keeps its row from the start (top to bottom in trace order), even before it has a bar."""
    labels = [plotly_text(schedule.requests[i].name) for i in rows]
    return {"type": "category", "categoryorder": "array", "categoryarray": labels, "range": [len(labels) - 0.5, -0.5]}


def gantt_traces(schedule: Schedule, rows: list[int], bars: list[list] | None = None) -> list[dict]:
    """The Gantt chart's traces: a bar trace a phase the run has, arrival and completion markers, the prefix
    cache's and the events' markers. `bars`: each row's bars, if gantt_bars made them already."""
    requests = [schedule.requests[i] for i in rows]
    bars = gantt_bars(schedule, rows)[0] if bars is None else bars
    label = {r.name: plotly_text(r.name) for r in requests}
    data = []
    for phase in PHASES:
        names, starts, lengths, hover = [], [], [], []
        for r, segments in zip(requests, bars):
            for s in segments:
                if s.phase == phase:
                    names.append(label[r.name])
                    starts.append(s.start)
                    lengths.append(s.end - s.start)
                    hover.append(t("hover_segment", name=label[r.name], phase=t(f"phase_{phase}"), start=s.start,
                                   end=s.end, tokens=s.tokens, unit=t(f"unit_{schedule.unit}")))
        if names or phase in ("queued", "prefill", "decode"):  # the rare phases only when they occur
            data.append({"type": "bar", "name": t(f"phase_{phase}"), "orientation": "h", "y": names, "base": starts,
                         "x": lengths, "marker": {"color": COLORS[phase], "line": {"width": 0},
                                                  "pattern": {"shape": HATCHED.get(phase, "")}},
                         "customdata": hover, "hovertemplate": "%{customdata}<extra></extra>"})
    data.append(_markers(t("marker_arrival"), [r.arrival for r in requests], [label[r.name] for r in requests],
                         {"symbol": "triangle-right", "size": 9, "color": "#2f3640"}, t("hover_arrival")))
    done = [r for r in requests if r.completion is not None]
    data.append(_markers(t("marker_completion"), [r.completion for r in done], [label[r.name] for r in done],
                         {"symbol": "diamond", "size": 9, "color": "#59a14f"}, t("hover_completion")))
    cached = [(at, r) for at, r in ((first_prefill(r), r) for r in requests if r.cached) if at is not None]
    if cached:  # the part of a prefill the prefix cache held: computed by no iteration
        star = {"symbol": "star", "size": 12, "color": "#edc948", "line": {"width": 1, "color": "#2f3640"}}
        data.append(_markers(t("marker_cached"), [at for at, _ in cached], [label[r.name] for _, r in cached], star,
                             t("hover_cached"), [r.cached for _, r in cached]))
    shown = {index: label[schedule.requests[index].name] for index in rows}
    for kind, (symbol, color) in EVENT_MARKERS.items():
        events = [(time, shown[i]) for time, k, i in schedule.events if k == kind and i in shown]
        if events:
            data.append(_markers(t(f"event_{kind}"), [e[0] for e in events], [e[1] for e in events],
                                 {"symbol": symbol, "size": 11, "color": color, "line": {"width": 2, "color": color}},
                                 t(f"hover_event_{kind}")))
    return data


def _markers(name: str, x: list, y: list, marker: dict, hover: str, customdata: list | None = None) -> dict:
    return {"type": "scatter", "name": name, "x": x, "y": y, "mode": "markers", "marker": marker,
            "hovertemplate": hover + "<extra></extra>"} | ({"customdata": customdata} if customdata else {})


def first_prefill(r) -> float | None:
    """When a request's first prefill segment starts (None if it never prefilled)."""
    return next((s.start for s in r.segments if s.phase == "prefill"), None)


def _work_runs(schedule: Schedule, per_tick: bool) -> list[tuple[float, float, int, int, int, int]]:
    """(start, end, prefill, decode, padding, graph padding) runs covering [0, makespan), idle gaps included."""
    runs, now = [], 0
    for s in schedule.steps:
        if s.start > now:
            runs.append((now, s.start, 0, 0, 0, 0))
        work = (s.prefill_tokens, s.decode_tokens, s.padding_tokens, s.graph_padding)
        if per_tick:
            length = (s.end - s.start) / s.iterations
            runs += [(s.start + i * length, s.start + (i + 1) * length, *work) for i in range(s.iterations)]
        else:
            runs.append((s.start, s.end, *work))
        now = s.end
    return runs


def _binned(runs: list[tuple], end: float) -> list[tuple]:
    """`runs` (start, end, then token-work an iteration of each kind) as BINS bins of equal time over [0, end):
    each kind's work averaged over its bin's time, so each bin's area is the work done in it."""
    width = end / BINS
    sums = [[0.0] * (len(runs[0]) - 2) for _ in range(BINS)]
    for start, stop, *work in runs:
        first, last = int(start / width), min(BINS - 1, int(stop / width))
        for k in range(first, last + 1):
            overlap = min(stop, (k + 1) * width) - max(start, k * width)
            if overlap > 0:
                row = sums[k]
                for j, w in enumerate(work):
                    row[j] += w * overlap
    return [(k * width, (k + 1) * width, *(v / width for v in row)) for k, row in enumerate(sums)]


def _work_bins(schedule: Schedule) -> tuple[list[tuple], bool]:
    """The budget chart's runs (as _work_runs), binned past TIME_POINTS of them; and whether they were."""
    per_tick = schedule.makespan <= TICK_BARS
    runs = _work_runs(schedule, per_tick)
    if len(runs) <= TIME_POINTS or not schedule.makespan:
        return runs, False
    return _binned(runs, schedule.makespan), True


def budget_chart(schedule: Schedule, title: str, x_max: float | None = None) -> go.Figure:
    """Token-work of each tick stacked by kind (prefill, decode, padding, idle) under the budget line (past
    TIME_POINTS runs of ticks, the average of each of BINS bins of equal time)."""
    runs, binned = _work_bins(schedule)  # (once: the axis and the traces read the same runs)
    if binned:
        title += " · " + t("chart_binned", width=quantity(schedule.makespan / BINS, schedule.unit))
    layout = timeline_layout(title, 220, x_max, schedule.unit, budget_yaxis(schedule, runs))
    layout.update(barmode="stack", bargap=0)
    layout["legend"]["traceorder"] = "normal"
    _hline(layout, schedule.config.token_budget, "#2f3640", t("budget_line", budget=schedule.config.token_budget))
    return plotly_figure(budget_traces(schedule, runs), layout)


def budget_yaxis(schedule: Schedule, runs: list[tuple] | None = None) -> dict:
    """`runs`: the chart's runs, if _work_bins made them already."""
    top = max([schedule.config.token_budget] + [sum(r[2:]) for r in (runs or _work_bins(schedule)[0])])
    return {"title": {"text": t("axis_token_work")}, "range": [0, top * 1.15], "gridcolor": "#e5e8ee"}


def budget_traces(schedule: Schedule, runs: list[tuple] | None = None) -> list[dict]:
    """The budget chart's traces: a bar a tick stacked by kind, or for thousands of ticks stacked step areas (or
    bins); `runs` as budget_yaxis's."""
    budget = schedule.config.token_budget
    per_tick = schedule.makespan <= TICK_BARS
    runs = _work_bins(schedule)[0] if runs is None else runs
    columns = {"prefill": [r[2] for r in runs], "decode": [r[3] for r in runs], "padding": [r[4] for r in runs]}
    idle = [budget - p - d - q for p, d, q in zip(*columns.values())]
    if any(r[5] for r in runs):  # graph padding is computed on top of the budget
        columns["graph_padding"] = [r[5] for r in runs]
    columns["idle"] = idle
    data = []
    for kind, values in columns.items():
        style = {"name": t(f"phase_{kind}"), "customdata": [[a, b] for a, b, *_ in runs],
                 "hovertemplate": t("hover_work", kind=t(f"phase_{kind}")) + "<extra></extra>"}
        if per_tick:  # a bar a tick
            data.append({"type": "bar", "x": [(a + b) / 2 for a, b, *_ in runs], "y": values,
                         "width": [0.9] * len(runs), "marker": {"color": COLORS[kind], "line": {"width": 0},
                                                               "pattern": {"shape": HATCHED.get(kind, "")}}, **style})
        elif runs:  # thousands of ticks: stacked step areas, a point a run of identical ticks (and its end)
            style["customdata"].append(style["customdata"][-1])
            data.append({"type": "scatter", "x": [r[0] for r in runs] + [runs[-1][1]], "y": values + values[-1:],
                         "mode": "lines", "stackgroup": "work", "line": {"shape": "hv", "width": 0,
                                                                         "color": COLORS[kind]},
                         "fillcolor": COLORS[kind], **style})
    return data


def load_chart(schedule: Schedule, title: str, x_max: float | None = None) -> go.Figure:
    """Requests running (holding a batch slot) and waiting over time: the aggregate view of a large trace."""
    run_x, run_y, wait_x, wait_y = load_series(schedule)
    data = [{"type": "scatter", "name": t("load_running"), "x": run_x, "y": run_y, "mode": "lines",
             "line": {"shape": "hv", "color": COLORS["decode"]}, "fill": "tozeroy"},
            {"type": "scatter", "name": t("load_waiting"), "x": wait_x, "y": wait_y, "mode": "lines",
             "line": {"shape": "hv", "color": COLORS["prefill"]}}]
    yaxis = {"title": {"text": t("axis_requests")}, "rangemode": "tozero", "gridcolor": "#e5e8ee"}
    return plotly_figure(data, timeline_layout(title, 260, x_max, schedule.unit, yaxis))


def request_anatomy(schedule: Schedule, index: int, x_max: float | None = None) -> go.Figure:
    """One request's row with its queue time, TTFT and the gaps between its tokens drawn on it: each an arrow on a
    level of its own (the queue and TTFT under the row, the gaps above it), its label beside the arrow on the side
    with more room (after its end or before its start), so that no arrow or line crosses a label."""
    request = schedule.requests[index]
    row = plotly_text(request.name)
    fig = gantt(schedule, t("anatomy_title", name=row), x_max=x_max, rows=[index])
    emitted = schedule.emitted()[index]
    fig.add_trace(go.Scatter(name=t("marker_token"), x=emitted, y=[row] * len(emitted), mode="markers",
                             marker={"symbol": "line-ns-open", "size": 22, "color": "#2f3640", "line": {"width": 2}},
                             hovertemplate=t("hover_token") + "<extra></extra>"))
    size = presenter.font(12)
    step = round(size * 2)  # from one level to the next: a label's height and some room
    arrows = []  # (start, end, label, level): levels under the row are negative
    queued = request.first_work > request.arrival
    if queued:
        arrows.append((request.arrival, request.first_work,
                       t("anatomy_queue", value=number(request.first_work - request.arrival)), -1))
    arrows.append((request.arrival, request.first_token,
                   t("anatomy_ttft", value=number(request.first_token - request.arrival)), -2 if queued else -1))
    if len(emitted) > 1:
        tpot = (emitted[-1] - emitted[0]) / (len(emitted) - 1)
        arrows.append((emitted[0], emitted[-1], t("anatomy_tpot", n=len(emitted) - 1, value=number(tpot)), 1))
    right = x_max or schedule.makespan
    for start, end, text, level in arrows:
        shift = level * step + (BAR_HALF if level > 0 else -BAR_HALF)
        fig.add_annotation(x=end, y=row, ax=start, ay=row, axref="x", ayref="y", xref="x",
                           yref="y", yshift=shift, showarrow=True, arrowhead=2, arrowside="end+start",
                           arrowwidth=1.5, text="", standoff=0, startstandoff=0)
        after = right - end >= start
        fig.add_annotation(x=end if after else start, xanchor="left" if after else "right", xshift=6 if after else -6,
                           y=row, yshift=shift, yanchor="middle", text=text, showarrow=False,
                           font={"size": size, "color": INK})
    deepest = max(abs(level) for *_, level in arrows)
    plot = 2 * (deepest * step + BAR_HALF + size)  # the row sits in the middle of the plot
    fig.update_layout(height=plot + fig.layout.margin.t + fig.layout.margin.b)
    # The bars as thick as the levels count on (a row's bar is otherwise most of the plot's height): the arrows and
    # their labels lie on white, off the bars.
    fig.update_traces(width=2 * BAR_HALF / plot, selector={"type": "bar"})
    return fig


KV_REQUESTS = 60  # up to this many requests hold blocks, each gets its own band; beyond, one total band


def kv_chart(schedule: Schedule, title: str, x_max: float | None = None) -> go.Figure:
    """KV blocks in use over time, stacked by request (one bar trace, a band per request and interval, told
    apart by white edges and named on hover: one colour, so the legend has one entry for them), under the
    cache's capacity, with preemption and swap markers."""
    capacity = schedule.config.kv_blocks
    holders = [r for r in schedule.requests if r.kv]
    times = sorted({time for r in holders for time, _ in r.kv} | {schedule.makespan})
    data = []
    bands = _kv_bands(holders, times) if len(holders) <= KV_REQUESTS else None
    if bands is not None:
        xs, widths, bases, heights, hover = bands
        data.append({"type": "bar", "name": t("kv_blocks"), "x": xs, "y": heights, "base": bases, "width": widths,
                     "marker": {"color": "#76b7b2", "line": {"width": 0.8, "color": "white"}}, "customdata": hover,
                     "hovertemplate": "%{customdata}<extra></extra>"})
    steps = schedule.steps
    caching = any(r.cached for r in schedule.requests)  # a shared block is in each holder's band, once in the line
    starts, blocks = [s.start for s in steps], [s.kv_blocks or 0 for s in steps]
    if len(steps) > TIME_POINTS and schedule.makespan:  # the most in use at any time in each bin of equal time
        width, most, k, now = schedule.makespan / BINS, [0] * BINS, 0, 0
        for start, n in zip(starts, blocks):
            while start >= (k + 1) * width and k < BINS - 1:  # (a bin no step starts in holds the last step's)
                k += 1
                most[k] = now if start > k * width else n
            most[k], now = max(most[k], n), n
        while k < BINS - 1:
            k += 1
            most[k] = now
        starts, blocks = [k * width for k in range(BINS)], most
        title += " · " + t("kv_binned", width=quantity(width, schedule.unit))
    xs, ys = step_line(starts + [steps[-1].end if steps else 0], blocks + [blocks[-1] if steps else 0])
    data.append({"type": "scatter", "name": t("kv_total_shared" if caching else "kv_total"), "x": xs, "y": ys,
                 "mode": "lines", "line": {"shape": "hv", "color": "#2f3640", "width": 1.5}})
    for kind in ("preempt", "swap_out", "swap_in"):
        symbol, color = EVENT_MARKERS[kind]
        times_of = [time for time, k, _ in schedule.events if k == kind]
        if not times_of:
            continue
        markers = {"type": "scatter", "name": t(f"event_{kind}"), "x": times_of, "y": [capacity] * len(times_of),
                   "mode": "markers", "marker": {"symbol": symbol, "size": 11, "color": color}}
        if len(times_of) > TIME_POINTS and schedule.makespan:  # one marker a bin that has any, its count on hover
            width = schedule.makespan / BINS
            counts = Counter(min(int(time / width), BINS - 1) for time in times_of)
            bins = sorted(counts)
            markers |= {"x": [(k + 0.5) * width for k in bins], "y": [capacity] * len(bins),
                        "customdata": [counts[k] for k in bins],
                        "hovertemplate": t("hover_events_binned", width=quantity(width, schedule.unit))}
        data.append(markers)
    yaxis = {"title": {"text": t("axis_blocks")}, "range": [0, capacity * 1.15], "gridcolor": "#e5e8ee"}
    layout = timeline_layout(title, 240, x_max, schedule.unit, yaxis) | {"bargap": 0}
    _hline(layout, capacity, "#d62728", t("kv_capacity", blocks=capacity))
    return plotly_figure(data, layout)


def _kv_bands(holders: list, times: list[float]) -> tuple[list, ...] | None:
    """The KV chart's bands: in each interval between two times any holder's blocks changed, each holder's blocks
    stacked (x, width, base, height, hover); None past KV_BARS of them (too thin to tell apart, and to send)."""
    if (len(times) - 1) * len(holders) > 10 * KV_BARS:  # (walking them would cost more than drawing is worth)
        return None
    xs, widths, bases, heights, hover = [], [], [], [], []
    at, held = [0] * len(holders), [0] * len(holders)  # each holder's next change, and its blocks now
    for a, b in zip(times, times[1:]):
        base = 0
        for k, r in enumerate(holders):
            kv, j = r.kv, at[k]
            while j < len(kv) and kv[j][0] <= a:
                held[k] = kv[j][1]
                j += 1
            at[k] = j
            if blocks := held[k]:
                xs.append((a + b) / 2)
                widths.append(b - a)
                bases.append(base)
                heights.append(blocks)
                hover.append(t("hover_kv", name=plotly_text(r.name), blocks=blocks, start=a, end=b))
                base += blocks
        if len(xs) > KV_BARS:
            return None
    return xs, widths, bases, heights, hover


SERIES_COLORS = ("#4e79a7", "#f28e2b", "#59a14f", "#b07aa1")
DASHES = ("solid", "dash", "dot")


def _whole_numbers(values: list) -> bool:
    return all(isinstance(v, int) or float(v).is_integer() for v in values)


def sweep_chart(rows: list[dict], columns: tuple[str, ...], title: str, x_title: str, y_title: str,
                knees: dict[str, float | None] | None = None, target: float | None = None,
                scale: float = 1.0, log_axis: bool = False, knee_labels: dict[str, str] | None = None,
                knee_text: str = "sw_knee_label") -> go.Figure:
    """One line per policy (and per column: p50 solid, p90 dashed, p99 dotted, one legend entry a policy)
    against the swept value; points that could not run are left out. `knees` draws each policy's knee as a line
    in its colour, labelled on a row of its own so that two knees never cover each other; `target` draws the
    attainment target (`knee_text`: the translation key of a knee's label); values are multiplied by `scale` (100
    for percent). With `log_axis`, a y axis spanning more than two decades is logarithmic, so that p50 is not
    flattened under p99."""
    data, layout_knees = [], []
    labels = list(dict.fromkeys(r["policy"] for r in rows))
    values = [r[c] * scale for r in rows if not r["error"] for c in columns if r[c] is not None]
    logarithmic = log_axis and bool(values) and min(values) > 0 and max(values) / min(values) > 100
    xs = [r["value"] for r in rows if not r["error"]] or [0, 1]
    pad = (max(xs) - min(xs)) * 0.04 or 0.5
    for color, label in zip(SERIES_COLORS * 2, labels):
        mine = [r for r in rows if r["policy"] == label and not r["error"]]
        name = plotly_text(label)
        for dash, column in zip(DASHES, columns):
            suffix = f" {column.rsplit('_', 1)[-1]}" if len(columns) > 1 else ""
            data.append({"type": "scatter", "name": name, "legendgroup": name, "showlegend": dash == DASHES[0],
                         "x": [r["value"] for r in mine], "y": [r[column] * scale for r in mine],
                         "mode": "lines+markers", "line": {"color": color, "dash": dash}, "marker": {"size": 6},
                         "hovertemplate": f"{name}{suffix}<br>%{{x}}: %{{y:.3g}}<extra></extra>"})
        value = (knees or {}).get(label)
        if value is not None:
            shown = (knee_labels or {}).get(label, number(value))
            layout_knees.append((value, color, t(knee_text, policy=name, value=shown)))
    layout = base_layout(title, 360) | {
        "xaxis": {"title": {"text": x_title}, "gridcolor": "#e5e8ee", "zeroline": False,
                  "range": [min(xs) - pad, max(xs) + pad]}  # fixed: labels would widen an automatic range
        | ({"dtick": 1} if _whole_numbers(xs) and max(xs) - min(xs) <= 12 else {}),  # (a few engines: no 1.5 of them)
        "yaxis": {"title": {"text": y_title}, "gridcolor": "#e5e8ee"} | (  # log: powers of ten only (Plotly
            {"type": "log", "dtick": 1} if logarithmic else {"rangemode": "tozero"})}  # draws 2 and 5 smaller)
    if target is not None:
        layout.setdefault("shapes", []).append(
            {"type": "line", "xref": "x domain", "x0": 0, "x1": 1, "yref": "y", "y0": target * scale,
             "y1": target * scale, "line": {"color": "#d62728", "dash": "dash", "width": 1}})
        layout.setdefault("annotations", []).append(
            {"text": t("sw_target_line", target=f"{target:.0%}"), "xref": "x domain", "x": 1, "xanchor": "right",
             "yref": "y", "y": target * scale, "yanchor": "top", "showarrow": False, "font": {"color": "#d62728"},
             "bgcolor": "rgba(255,255,255,0.8)"})
    low, high, lines = min(xs) - pad, max(xs) + pad, 0
    for value, color, text in layout_knees:
        layout.setdefault("shapes", []).append(
            {"type": "line", "xref": "x", "x0": value, "x1": value, "yref": "y domain", "y0": 0, "y1": 1,
             "line": {"color": color, "dash": "dot", "width": 2}})
        text, anchor = knee_label("★ " + text, (value - low) / (high - low))
        layout.setdefault("annotations", []).append(
            {"text": text, "xref": "x", "x": value, "yref": "y domain", "xanchor": anchor, "align": anchor,
             "y": 0.06 + 0.12 * lines, "yanchor": "bottom", "showarrow": False, "font": {"color": color},
             "bgcolor": "rgba(255,255,255,0.85)"})
        lines += text.count("<br>") + 1  # (each label on rows of its own, above those before it)
    return plotly_figure(data, layout)


KNEE_AXIS_PX = 80  # what a sweep chart's y axis (its ticks and title) and margins take from the chart's width


def knee_label(text: str, at: float) -> tuple[str, str]:
    """A knee's label beside its line, `at` that share of the x axis: on the side with more room, broken into lines
    of even lengths where it is wider than that side (a split's name, in Chinese on a projector, once stuck out of
    the chart; and filled line by line, the split's '2 + 2' lost its '+ 2' to a line of its own); (its text, its
    xanchor)."""
    plot = title_px() - presenter.px(KNEE_AXIS_PX)  # (at its narrowest: a 1024 px window)
    right, left = (1 - at) * plot, at * plot
    anchor, room = ("left", right) if right >= left else ("right", left)
    return balanced_lines(text, presenter.font(12), room), anchor


def lesson_layout(title: str, cost: str, height: int) -> dict:
    """A lesson chart's layout: the cost's name as its title and its figure as the subtitle, broken into lines that
    fit the narrowest chart the pages draw (Plotly never wraps a title), the top margin and the figure grown by their
    height."""
    layout = base_layout(title, height)
    size = presenter.font(13)
    text = break_lines(cost, size, SUBTITLE_PX)
    lines = text.count("<br>") + 1
    layout["title"] |= {"subtitle": {"text": text, "font": {"size": size, "color": "#c0392b"}},
                        "yref": "container", "y": 1, "yanchor": "top", "pad": {"t": 10}}
    top = round(layout["title"]["font"]["size"] * 1.5 + lines * size * 1.3) + 24
    layout["height"] += top - layout["margin"]["t"]  # the plot keeps its height however many lines the subtitle has
    layout["margin"] = layout["margin"] | {"t": top}
    return layout


# Markers alone are thinned to one in each cell of this grid over the plot (about 2 px at the page's widths,
# under a 5 px marker): thousands of points (an iteration each) drawn as SVG would cost the browser seconds.
MARKER_GRID = (500, 150)


def thinned(xs: list, ys: list) -> tuple[list, list]:
    """The first point of each cell of MARKER_GRID over the points' ranges, in their order: what a marker plot of
    them shows, with as many markers as the plot has cells to tell apart."""
    if len(xs) <= MARKER_GRID[0]:
        return xs, ys
    (x0, x1), (y0, y1) = (min(xs), max(xs)), (min(ys), max(ys))
    wide, high = (x1 - x0) / MARKER_GRID[0] or 1, (y1 - y0) / MARKER_GRID[1] or 1
    seen, kept = set(), []
    for k, (x, y) in enumerate(zip(xs, ys)):
        cell = (int((x - x0) / wide), int((y - y0) / high))
        if cell not in seen:
            seen.add(cell)
            kept.append(k)
    return [xs[k] for k in kept], [ys[k] for k in kept]


def series_chart(series: list[tuple[str, list, list]], title: str, cost: str, x_title: str, y_title: str,
                 mode: str = "lines+markers", height: int = 340) -> go.Figure:
    """One line (or set of markers) a series, named by the cost it shows (`cost`: the figure, in words). Markers
    alone are drawn `thinned`."""
    if mode == "markers":
        series = [(name, *thinned(xs, ys)) for name, xs, ys in series]
    data = [{"type": "scatter", "name": plotly_text(name), "x": xs, "y": ys, "mode": mode,
             "line": {"color": color}, "marker": {"color": color, "size": 7 if "lines" in mode else 5}}
            for color, (name, xs, ys) in zip(SERIES_COLORS * 2, series)]
    counted = all(isinstance(x, int) for _, xs, _ in series for x in xs) and max(
        (len(xs) for _, xs, _ in series), default=0) <= 40  # a few whole numbers: one grid line each
    layout = lesson_layout(title, cost, height) | {
        "xaxis": {"title": {"text": x_title}, "gridcolor": "#e5e8ee", "zeroline": False} | (
            {"dtick": 1} if counted else {}),
        "yaxis": {"title": {"text": y_title}, "gridcolor": "#e5e8ee", "rangemode": "tozero"}}
    return plotly_figure(data, layout)


def bars_chart(groups: list[str], series: list[tuple[str, list[float], list[str]]], title: str, cost: str,
               y_title: str, log: bool = False, height: int = 340) -> go.Figure:
    """Grouped bars: one bar a series in every group, each labelled with its figure (`texts`)."""
    data = [{"type": "bar", "name": plotly_text(name), "x": [plotly_text(g) for g in groups], "y": values,
             "text": texts, "textposition": "outside", "cliponaxis": False, "marker": {"color": color}}
            for color, (name, values, texts) in zip(SERIES_COLORS * 2, series)]
    top = max((v for _, values, _ in series for v in values), default=1) or 1
    yaxis = {"title": {"text": y_title}, "gridcolor": "#e5e8ee"} | (
        {"type": "log", "dtick": 1} if log else {"range": [0, top * 1.2]})  # log: powers of ten only
    return plotly_figure(data, lesson_layout(title, cost, height) | {"barmode": "group", "yaxis": yaxis})


MOE_CELLS = 120_000  # the expert heatmap draws at most this many cells (iterations x experts), the first iterations
MOE_ITERATIONS = 400  # and at most this many iterations
HEAT = [[0, "#fff7ec"], [0.25, "#fdd49e"], [0.5, "#fc8d59"], [0.75, "#d7301f"], [1, "#7f0000"]]  # 0 tokens: white


def expert_loads(schedule: Schedule, limit: int) -> tuple[list[tuple[int, ...]], int]:
    """The expert loads of the run's first `limit` iterations, one tuple an iteration (a step of several identical
    iterations gives each its own), and how many iterations the run has."""
    loads: list[tuple[int, ...]] = []
    for step in schedule.steps:
        loads += [step.expert_tokens] * min(step.iterations, limit - len(loads))
    return loads, sum(step.iterations for step in schedule.steps)


def expert_heatmap(schedule: Schedule, title: str, marks: tuple[tuple[int, str], ...] = (),
                   zmax: int | None = None) -> go.Figure:
    """MoE routing: tokens routed to each expert (rows) in each iteration (columns, numbered from 1), one heatmap;
    a long run's first iterations only (its subtitle says how many of all). `marks`: (iteration, label) pairs to
    point at with a dotted line; `zmax`: the load of the darkest colour (one for charts compared side by side)."""
    experts = schedule.config.moe.experts
    loads, total = expert_loads(schedule, min(MOE_ITERATIONS, MOE_CELLS // experts))
    data = [{"type": "heatmap", "x": list(range(1, len(loads) + 1)), "y": list(range(experts)),
             "z": [[load[e] for load in loads] for e in range(experts)], "colorscale": HEAT, "zmin": 0,
             "zmax": max(zmax or max(map(max, loads), default=0), 1),
             "colorbar": {"title": {"text": t("moe_axis_tokens")}, "thickness": 14},
             "hovertemplate": t("moe_hover") + "<extra></extra>"}]
    layout = base_layout(title, 150 + 22 * min(experts, 16)) | {
        "xaxis": {"title": {"text": t("moe_axis_iteration")}, "zeroline": False, "showgrid": False},
        "yaxis": {"title": {"text": t("moe_axis_expert")}, "autorange": "reversed", "showgrid": False} | (
            {"dtick": 1} if experts <= 16 else {})}
    layout["margin"] = layout["margin"] | {"b": 70 if presenter.on() else 50}  # no legend under it
    if len(loads) < total:  # said under the title, which stays short enough for a narrow screen
        layout["title"]["subtitle"] = {"text": t("moe_heatmap_first", n=f"{len(loads):,}", total=f"{total:,}"),
                                       "font": {"size": presenter.font(12), "color": "#5a6270"}}
        layout["margin"]["t"] += 24
    for index, (x, label) in enumerate(marks):  # the first label left of its line, the others right: apart
        _vline(layout, x)
        layout.setdefault("annotations", []).append(
            {"text": label, "xref": "x", "x": x, "xanchor": "right" if index == 0 else "left", "yref": "y domain",
             "y": 1, "yanchor": "bottom", "showarrow": False})
    return plotly_figure(data, layout)


def graph_chart(timings: list, title: str, x_max: float | None = None) -> go.Figure:
    """A real run's decode iterations over time (ms), a bar each as wide as the iteration took: its rows, those
    of a batch that replayed a captured CUDA graph apart from those run eagerly, and on top the rows padding the
    batch up to its graph bucket. `timings`: the engine's (gpu_demo.engine.Timing). One bar trace a series."""
    decodes = [d for d in timings if d.decode_rows and not d.prefill_rows]
    data = []
    for key, chosen in (("rm_graph_replayed", [d for d in decodes if d.graph]),
                        ("rm_graph_eager", [d for d in decodes if not d.graph])):
        data.append(_timed_bars(t(key), chosen, [d.decode_rows - d.graph_padding for d in chosen], None,
                                COLORS["decode"] if key == "rm_graph_eager" else "#59a14f"))
    data.append(_timed_bars(t("phase_graph_padding"), decodes, [d.graph_padding for d in decodes],
                            [d.decode_rows - d.graph_padding for d in decodes], COLORS["graph_padding"]))
    top = max((d.decode_rows for d in decodes), default=1)
    yaxis = {"title": {"text": t("rm_graph_rows")}, "range": [0, top * 1.15], "gridcolor": "#e5e8ee"}
    return plotly_figure(data, timeline_layout(title, 220, x_max, "ms", yaxis))


def _timed_bars(name: str, timings: list, rows: list[int], base: list[int] | None, color: str) -> dict:
    bar = {"type": "bar", "name": name, "x": [d.start + d.ms / 2 for d in timings], "y": rows,
           "width": [d.ms for d in timings], "marker": {"color": color, "line": {"width": 0}},
           "customdata": [[round(d.start, 2), round(d.ms, 3)] for d in timings],
           "hovertemplate": t("rm_graph_hover", kind=name) + "<extra></extra>"}
    pattern = {"shape": HATCHED["graph_padding"], "bgcolor": color, "fgcolor": "#8c6d1f", "solidity": 0.3}
    return bar | ({"base": base, "marker": bar["marker"] | {"pattern": pattern}} if base is not None else {})


def swap_chart(copies: list, names: list[str], title: str, x_max: float | None = None) -> go.Figure:
    """A real run's swap copies on its time axis (ms): a marker a copy on its request's row, out to host memory
    or back in, its blocks and measured time on hover. `copies`: the engine's (gpu_demo.engine.SwapCopy)."""
    label = [plotly_text(name) for name in names]
    data = []
    for direction, symbol in (("out", "triangle-down"), ("in", "triangle-up")):
        chosen = [c for c in copies if c.direction == direction]
        data.append(_markers(t(f"rm_swap_{direction}"), [c.start for c in chosen], [label[c.request] for c in chosen],
                             {"symbol": symbol, "size": 11, "color": COLORS["swapped"]}, t("rm_swap_hover"),
                             [[c.blocks, round(c.ms, 3)] for c in chosen]))
    rows = sorted({c.request for c in copies})
    yaxis = {"type": "category", "categoryorder": "array", "categoryarray": [label[i] for i in rows],
             "range": [len(rows) - 0.5, -0.5]}
    return plotly_figure(data, timeline_layout(title, max(140, 60 + 26 * len(rows)), x_max, "ms", yaxis))
