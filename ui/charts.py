"""Plotly figures read from a Schedule: the Gantt chart, the per-tick budget chart and the load chart."""
from __future__ import annotations

import plotly.graph_objects as go

from sim.schedule import Schedule

from .i18n import t
from .text import plotly_text

COLORS = {"queued": "#cfd5de", "prefill": "#f28e2b", "decode": "#4e79a7", "padding": "#e15759",
          "idle": "#eef1f5"}
GANTT_ROWS = 150  # beyond this many requests the Gantt shows an even sample of them
TICK_BARS = 400  # up to this many ticks the budget chart has one bar a tick


def _layout(fig: go.Figure, title: str, height: int, x_max: float | None, unit: str) -> go.Figure:
    # The legend sits at the bottom of the figure, under the axis title, so a wrapped legend in a narrow
    # column pushes the plot up instead of covering the title.
    fig.update_layout(title={"text": title, "x": 0, "font": {"size": 15}}, height=height + 40,
                      barmode="overlay", margin={"l": 10, "r": 10, "t": 36, "b": 76},
                      legend={"orientation": "h", "x": 0, "y": 0, "yref": "container", "yanchor": "bottom",
                              "font": {"size": 11}},
                      hoverlabel={"align": "left"}, plot_bgcolor="white")
    integer_axis = {"dtick": 1} if x_max is not None and x_max <= 40 else {}
    pad = (x_max or 0) * 0.02 + 0.3  # room for the markers at both ends
    fig.update_xaxes(title=t(f"unit_{unit}"), range=[-pad, x_max + pad] if x_max else None, showgrid=True,
                     gridcolor="#e5e8ee", zeroline=False, tick0=0, **integer_axis)
    return fig


def sample_rows(n: int, limit: int = GANTT_ROWS) -> list[int]:
    """Every request when there are few, else `limit` of them evenly spread over the trace."""
    if n <= limit:
        return list(range(n))
    return sorted({round(i * (n - 1) / (limit - 1)) for i in range(limit)})


def gantt(schedule: Schedule, title: str, x_max: float | None = None, reveal: float | None = None,
          rows: list[int] | None = None) -> go.Figure:
    """One row per request, one bar trace per phase (array-valued), arrival and completion markers.
    `reveal` cuts the picture at that tick (the slider of the worked example); `rows` picks requests."""
    sampled = rows is None and len(schedule.requests) > GANTT_ROWS
    rows = sample_rows(len(schedule.requests)) if rows is None else rows
    requests = [schedule.requests[i] for i in rows]
    label = {r.name: plotly_text(r.name) for r in requests}
    cut = float("inf") if reveal is None else reveal
    fig = go.Figure()
    for phase in ("queued", "prefill", "decode", "padding"):
        names, starts, lengths, hover = [], [], [], []
        for r in requests:
            for s in r.segments:
                if s.phase != phase or s.start >= cut:
                    continue
                end = min(s.end, cut)
                names.append(label[r.name])
                starts.append(s.start)
                lengths.append(end - s.start)
                hover.append(t("hover_segment", name=label[r.name], phase=t(f"phase_{phase}"), start=s.start,
                               end=s.end, tokens=s.tokens, unit=t(f"unit_{schedule.unit}")))
        fig.add_trace(go.Bar(name=t(f"phase_{phase}"), orientation="h", y=names, base=starts, x=lengths,
                             marker={"color": COLORS[phase], "line": {"width": 0},
                                     "pattern": {"shape": "/" if phase == "padding" else ""}},
                             customdata=hover, hovertemplate="%{customdata}<extra></extra>"))
    arrived = [r for r in requests if r.arrival <= cut]
    fig.add_trace(go.Scatter(name=t("marker_arrival"), x=[r.arrival for r in arrived],
                             y=[label[r.name] for r in arrived], mode="markers",
                             marker={"symbol": "triangle-right", "size": 9, "color": "#2f3640"},
                             hovertemplate=t("hover_arrival") + "<extra></extra>"))
    done = [r for r in requests if r.completion is not None and r.completion <= cut]
    fig.add_trace(go.Scatter(name=t("marker_completion"), x=[r.completion for r in done],
                             y=[label[r.name] for r in done], mode="markers",
                             marker={"symbol": "diamond", "size": 9, "color": "#59a14f"},
                             hovertemplate=t("hover_completion") + "<extra></extra>"))
    if reveal is not None:
        fig.add_vline(x=reveal, line={"color": "#2f3640", "dash": "dot", "width": 1})
    if sampled:
        title += " · " + t("gantt_sampled", shown=len(rows), total=len(schedule.requests))
    fig.update_yaxes(type="category", categoryorder="array", categoryarray=list(label.values()),
                     autorange="reversed", title=None)
    return _layout(fig, title, max(180, 60 + 26 * len(requests)) if len(requests) <= 40 else 720, x_max,
                   schedule.unit)


def _work_runs(schedule: Schedule, per_tick: bool) -> list[tuple[float, float, int, int, int]]:
    """(start, end, prefill, decode, padding) runs covering [0, makespan), idle gaps included."""
    runs, now = [], 0
    for s in schedule.steps:
        if s.start > now:
            runs.append((now, s.start, 0, 0, 0))
        if per_tick:
            length = (s.end - s.start) / s.iterations
            runs += [(s.start + i * length, s.start + (i + 1) * length, s.prefill_tokens, s.decode_tokens,
                      s.padding_tokens) for i in range(s.iterations)]
        else:
            runs.append((s.start, s.end, s.prefill_tokens, s.decode_tokens, s.padding_tokens))
        now = s.end
    return runs


def budget_chart(schedule: Schedule, title: str, x_max: float | None = None, reveal: float | None = None
                 ) -> go.Figure:
    """Token-work of each tick stacked by kind (prefill, decode, padding, idle) under the budget line."""
    budget = schedule.config.token_budget
    per_tick = schedule.makespan <= TICK_BARS
    runs = [r for r in _work_runs(schedule, per_tick) if reveal is None or r[0] < reveal]
    fig = go.Figure()
    columns = {"prefill": [r[2] for r in runs], "decode": [r[3] for r in runs], "padding": [r[4] for r in runs]}
    columns["idle"] = [budget - p - d - q for p, d, q in zip(*columns.values())]
    for kind, values in columns.items():
        style = {"name": t(f"phase_{kind}"), "customdata": [[a, b] for a, b, *_ in runs],
                 "hovertemplate": t("hover_work", kind=t(f"phase_{kind}")) + "<extra></extra>"}
        if per_tick:  # a bar a tick
            fig.add_trace(go.Bar(x=[(a + b) / 2 for a, b, *_ in runs], y=values, width=[0.9] * len(runs),
                                 marker={"color": COLORS[kind], "line": {"width": 0},
                                         "pattern": {"shape": "/" if kind == "padding" else ""}}, **style))
        elif runs:  # thousands of ticks: stacked step areas, a point a run of identical ticks (and its end)
            style["customdata"].append(style["customdata"][-1])
            fig.add_trace(go.Scatter(x=[r[0] for r in runs] + [runs[-1][1]], y=values + values[-1:], mode="lines",
                                     stackgroup="work",
                                     line={"shape": "hv", "width": 0, "color": COLORS[kind]},
                                     fillcolor=COLORS[kind], **style))
    fig.add_hline(y=budget, line={"color": "#2f3640", "dash": "dash", "width": 1},
                  annotation_text=t("budget_line", budget=budget), annotation_position="top left")
    if reveal is not None:
        fig.add_vline(x=reveal, line={"color": "#2f3640", "dash": "dot", "width": 1})
    fig.update_yaxes(title=t("axis_token_work"), range=[0, budget * 1.15], gridcolor="#e5e8ee")
    fig = _layout(fig, title, 220, x_max, schedule.unit)
    fig.update_layout(barmode="stack", bargap=0, legend={"traceorder": "normal"})
    return fig


def load_chart(schedule: Schedule, title: str, x_max: float | None = None) -> go.Figure:
    """Requests running (holding a batch slot) and waiting over time: the aggregate view of a large trace."""
    events: list[tuple[float, int]] = []
    for r in schedule.requests:
        events.append((r.arrival, 1))
        if r.first_work is not None:
            events.append((r.first_work, -1))
    events.sort()
    wait_x, wait_y, waiting = [0], [0], 0
    for time, change in events:
        waiting += change
        if wait_x[-1] == time:
            wait_y[-1] = waiting
        else:
            wait_x.append(time)
            wait_y.append(waiting)
    run_x, run_y, now = [], [], 0
    for s in schedule.steps:
        if s.start > now:
            run_x.append(now)
            run_y.append(0)
        run_x.append(s.start)
        run_y.append(s.running)
        now = s.end
    run_x.append(now)
    run_y.append(0)
    fig = go.Figure()
    fig.add_trace(go.Scatter(name=t("load_running"), x=run_x, y=run_y, mode="lines", line={"shape": "hv",
                             "color": COLORS["decode"]}, fill="tozeroy"))
    fig.add_trace(go.Scatter(name=t("load_waiting"), x=wait_x, y=wait_y, mode="lines",
                             line={"shape": "hv", "color": COLORS["prefill"]}))
    fig.update_yaxes(title=t("axis_requests"), rangemode="tozero", gridcolor="#e5e8ee")
    return _layout(fig, title, 260, x_max, schedule.unit)


def request_anatomy(schedule: Schedule, index: int, x_max: float | None = None) -> go.Figure:
    """One request's row with its queue time, TTFT and the gaps between its tokens drawn on it."""
    request = schedule.requests[index]
    row = plotly_text(request.name)
    fig = gantt(schedule, t("anatomy_title", name=row), x_max=x_max, rows=[index])
    emitted = schedule.emitted()[index]
    fig.add_trace(go.Scatter(name=t("marker_token"), x=emitted, y=[row] * len(emitted), mode="markers",
                             marker={"symbol": "line-ns-open", "size": 22, "color": "#2f3640", "line": {"width": 2}},
                             hovertemplate=t("hover_token") + "<extra></extra>"))
    arrows = [(request.arrival, request.first_token, t("anatomy_ttft", value=request.first_token - request.arrival),
               -46)]
    if request.first_work > request.arrival:
        arrows.append((request.arrival, request.first_work,
                       t("anatomy_queue", value=request.first_work - request.arrival), -22))
    if len(emitted) > 1:
        tpot = (emitted[-1] - emitted[0]) / (len(emitted) - 1)
        arrows.append((emitted[0], emitted[-1], t("anatomy_tpot", n=len(emitted) - 1, value=round(tpot, 3)), 34))
    for start, end, text, shift in arrows:
        fig.add_annotation(x=end, y=row, ax=start, ay=row, axref="x", ayref="y", xref="x",
                           yref="y", yshift=shift, showarrow=True, arrowhead=2, arrowside="end+start",
                           arrowwidth=1.5, text="", standoff=0, startstandoff=0)
        fig.add_annotation(x=(start + end) / 2, y=row, yshift=shift + 10, text=text, showarrow=False,
                           font={"size": 12})
    fig.update_layout(height=260, margin={"t": 60})
    return fig
