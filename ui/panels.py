"""Charts of several runs stacked in panels over one shared x axis, each panel labelled with its run: the Gantt
charts of runs of one trace (the same rows, one legend, their time axes lined up by construction) and the KV
blocks each run holds (small multiples: one panel a run, so that no run's line covers another's).

A panel is its traces and its y axis; `stacked` gives each panel its own axes (x2/y2, ...), the x axes matched to
the first, and one legend entry a name, however many panels draw it."""
from __future__ import annotations

from dataclasses import dataclass

import plotly.graph_objects as go

from sim.core.schedule import Schedule

from . import presenter
from .charts import (
    INK,
    SERIES_COLORS,
    gantt_traces,
    gantt_yaxis,
    lesson_layout,
    plotly_figure,
    sample_rows,
    step_line,
    timeline_layout,
)
from .i18n import t
from .numbers import number
from .text import plotly_text

LABEL_EM = 1.9  # the room above a panel for its label: a line and a little space, in ems of the label's font
GANTT_ROW_PX = 26  # a Gantt panel's height a request row, and its room for the bars' ends
GANTT_ROOM_PX = 20
KV_PANEL_PX = 110  # a KV panel's plot height


@dataclass(frozen=True, slots=True)
class Panel:
    """One run's part of a stacked chart: its label (drawn above it, in `color`), its traces, its y axis and its
    plot height in px (grown in presenter mode), and dashed lines across it: (y, colour, label), each label at the
    right of the panel's own label, off the plot, where it covers no data."""
    label: str
    traces: list[dict]
    yaxis: dict
    height: int
    color: str = INK
    lines: tuple[tuple[float, str, str], ...] = ()


def stacked(panels: list[Panel], layout: dict, xaxis: dict) -> go.Figure:
    """`panels` top to bottom in `layout` (a chart's layout with its title, margins and legend), sharing `xaxis`:
    its tick labels and title under the bottom panel only. The figure's height is the panels' and their labels'."""
    size = presenter.font(13)
    label_px = round(size * LABEL_EM)
    heights = [presenter.px(panel.height) for panel in panels]
    plot = sum(heights) + label_px * len(panels)
    data, shown, top = [], set(), plot
    notes = layout.setdefault("annotations", [])
    for i, (panel, height) in enumerate(zip(panels, heights)):
        x, y = ("x", "y") if i == 0 else (f"x{i + 1}", f"y{i + 1}")
        top -= label_px
        domain = [(top - height) / plot, top / plot]
        top -= height
        for trace in panel.traces:  # one legend entry a name: the first panel that draws any of it shows it
            name, drawn = trace.get("name"), bool(trace.get("y"))
            data.append(trace | {"xaxis": x, "yaxis": y, "legendgroup": name,
                                 "showlegend": trace.get("showlegend", True) and drawn and name not in shown})
            if drawn:
                shown.add(name)
        bottom = i == len(panels) - 1
        layout["xaxis" + x[1:]] = xaxis | {"anchor": y, "showticklabels": bottom} | (
            {} if bottom else {"title": {"text": ""}}) | ({"matches": "x"} if i else {})
        layout["yaxis" + y[1:]] = panel.yaxis | {"domain": domain, "anchor": x}
        notes.append({"text": panel.label, "xref": "paper", "x": 0, "xanchor": "left", "yref": "paper",
                      "y": domain[1], "yanchor": "bottom", "showarrow": False,
                      "font": {"size": size, "color": panel.color}})
        for value, color, text in panel.lines:
            layout.setdefault("shapes", []).append(
                {"type": "line", "xref": f"{x} domain", "x0": 0, "x1": 1, "yref": y, "y0": value, "y1": value,
                 "line": {"color": color, "dash": "dash", "width": 1}})
            notes.append({"text": text, "xref": "paper", "x": 1, "xanchor": "right", "yref": "paper",
                          "y": domain[1], "yanchor": "bottom", "showarrow": False,
                          "font": {"size": size, "color": color}})
    layout["height"] = plot + layout["margin"]["t"] + layout["margin"]["b"]
    return plotly_figure(data, layout)


def gantts(runs: list[tuple[str, Schedule]], title: str) -> go.Figure:
    """The Gantt charts of runs of one trace, one panel a run (labelled), on one time axis that ends at the
    latest end: what one run does sooner than another is seen straight above it."""
    first = runs[0][1]
    rows = sample_rows(len(first.requests))
    x_max = max(schedule.makespan for _, schedule in runs)
    layout = timeline_layout(title, 0, x_max, first.unit, {})
    xaxis = layout.pop("xaxis")
    del layout["yaxis"]
    panels = [Panel(label, gantt_traces(schedule, rows), gantt_yaxis(schedule, rows),
                    GANTT_ROW_PX * len(rows) + GANTT_ROOM_PX) for label, schedule in runs]
    return stacked(panels, layout, xaxis)


def kv_totals(runs: list[tuple[str, Schedule]], title: str, cost: str) -> go.Figure:
    """KV blocks in use over time, a panel a run (named in its colour), each under the cache's capacity line with
    the run's preemptions marked above it; `cost` is the chart's subtitle (the cost it shows, in words)."""
    capacity = runs[0][1].config.kv_blocks
    preempt = t("event_preempt")
    panels = []
    for color, (name, schedule) in zip(SERIES_COLORS * 2, runs):
        steps = schedule.steps
        xs, ys = step_line([s.start / 1000 for s in steps] + [steps[-1].end / 1000],
                           [s.kv_blocks for s in steps] + [steps[-1].kv_blocks])
        traces = [{"type": "scatter", "name": plotly_text(name), "showlegend": False, "mode": "lines",
                   "x": xs, "y": ys, "line": {"shape": "hv", "color": color, "width": 1.5}}]
        preempted = [time / 1000 for time, kind, _ in schedule.events if kind == "preempt"]
        if preempted:
            traces.append({"type": "scatter", "name": preempt, "x": preempted, "mode": "markers",
                           "y": [capacity * 1.15] * len(preempted),
                           "marker": {"symbol": "x", "size": 8, "color": "#d62728"}})
        yaxis = {"title": {"text": t("axis_blocks")}, "range": [0, capacity * 1.3], "gridcolor": "#e5e8ee",
                 "tickvals": [0, capacity], "ticktext": ["0", number(capacity)], "zeroline": False}
        panels.append(Panel(plotly_text(name), traces, yaxis, KV_PANEL_PX, color,
                            ((capacity, "#d62728", t("kv_capacity", blocks=number(capacity))),)))
    xaxis = {"title": {"text": t("unit_s")}, "gridcolor": "#e5e8ee", "zeroline": False}
    return stacked(panels, lesson_layout(title, cost, 0), xaxis)


TRANSFER_COLOR = "#8e6c8a"


def fleet_gantts(runs: list[tuple[str, Schedule]], title: str, transfers: Panel | None = None,
                 after: int = 0, x_max: float | None = None) -> go.Figure:
    """The Gantt charts of a fleet's replicas, a panel each (labelled), each with its own requests' lanes, on one
    time axis (to `x_max`, else the last makespan); `transfers` (the KV transfers of a split) goes between the first
    `after` panels (the prefill replicas) and the rest."""
    x_max = x_max or max(schedule.makespan for _, schedule in runs)
    layout = timeline_layout(title, 0, x_max, runs[0][1].unit, {})
    xaxis = layout.pop("xaxis")
    del layout["yaxis"]
    made = []
    for label, schedule in runs:
        rows = sample_rows(len(schedule.requests), FLEET_ROWS)
        made.append(Panel(sampled(label, len(rows), len(schedule.requests)), gantt_traces(schedule, rows),
                          gantt_yaxis(schedule, rows), GANTT_ROW_PX * max(1, len(rows)) + GANTT_ROOM_PX))
    if transfers is not None:
        made.insert(after, transfers)
    return stacked(made, layout, xaxis)


FLEET_ROWS = 8  # the most requests a replica's panel, or the transfers' panel, draws (an even sample of more)


def sampled(label: str, shown: int, total: int) -> str:
    """A panel's label, saying so when its lanes are a sample."""
    return label if shown == total else f"{label} · {t('gantt_sampled', shown=number(shown), total=number(total))}"


def transfers_panel(label: str, moved: list[tuple[str, object]], unit: str) -> Panel:
    """The KV transfers of a split, a lane a request (an even sample of many): a bar from its first token to its
    blocks' landing."""
    total = len(moved)
    moved = [moved[i] for i in sample_rows(total, FLEET_ROWS)]
    label = sampled(label, len(moved), total)
    names = [plotly_text(name) for name, _ in moved]
    hover = [t("hover_transfer", name=name, start=number(m.start), end=number(m.end), blocks=number(m.blocks),
               unit=t(f"unit_{unit}")) for name, (_, m) in zip(names, moved)]
    traces = [{"type": "bar", "name": t("legend_transfer"), "orientation": "h", "y": names,
               "base": [m.start for _, m in moved], "x": [m.end - m.start for _, m in moved],
               "marker": {"color": TRANSFER_COLOR, "line": {"width": 0}}, "customdata": hover,
               "hovertemplate": "%{customdata}<extra></extra>"}]
    yaxis = {"type": "category", "categoryorder": "array", "categoryarray": names, "range": [len(names) - 0.5, -0.5]}
    return Panel(label, traces, yaxis, GANTT_ROW_PX * max(1, len(names)) + GANTT_ROOM_PX, TRANSFER_COLOR)
