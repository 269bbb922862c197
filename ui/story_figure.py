"""The worked example's story drawn as one Plotly figure with a frame a time on the clock, which the browser plays.

Plotly's own buttons (Play, Pause, the steps, the speed) and slider (the clock) show a frame in the browser; the
server is sent nothing while the story plays. Plotly draws a frame at two moments: at once its chart traces and
the shapes and annotations placed on an axis, and a task later everything else (tables, annotations placed on
the paper, menus). A frame that changed both kinds showed torn, half at the old time and half at the new, as long
as the browser painted in between, which it does under a class's load. So no frame changes a trace: the charts are
drawn whole once, and a curtain (a white shape over each chart, on its axes) hides what is still to come; every
word a frame changes (the titles, the narration, the tables' figures, the summary) is an annotation on the page's
own hidden axes, which span the figure. A frame is then drawn all at once. Text is broken into lines here, for the
narrowest figure (ui/wrap.py), since Plotly's annotations do not wrap."""
from __future__ import annotations

from dataclasses import dataclass

import plotly.graph_objects as go

from . import charts, presenter
from .i18n import t
from .story import OVERALL, PER_REQUEST, Run, overall_rows, request_rows, takeaway, told
from .text import plotly_text
from .wrap import break_lines, em

SPEEDS = (0.5, 1, 2, 4)  # ticks a second while playing
SPEED = 1
COLUMNS = ((0.0, 0.47), (0.53, 1.0))  # a run each, side by side
NARROWEST = {False: 560, True: 660}  # the figure's width at 1024 px with the sidebar open (presenter: less margin)
MARGIN = {"l": 30, "r": 8, "t": 8, "b": 8}
PAD = 8  # px inside a box of words
LINE = 1.3  # Plotly's line spacing: a line of text is this many font sizes tall
INK, BORDER, HIGHLIGHT, HEADER, STRIPE = "#1f2430", "#cfd5de", "#e3ecf9", "#eef1f5", "#f7f8fa"
MARKS = (("▶", "#2f3640"), ("◆", "#59a14f"))  # an arrival's and a last token's markers, as the Gantt chart's
OFF_CHART = -1e6  # a time no chart shows


@dataclass(frozen=True)
class Sizes:
    """Text and rows in px: projector sizes (18 px text at least) in presenter mode."""
    font: int
    title: int
    row: int  # a Gantt chart's row
    gap: int  # between bands
    presenting: bool

    @classmethod
    def for_mode(cls) -> Sizes:
        return cls(18, 20, 34, 14, True) if presenter.on() else cls(13, 15, 28, 10, False)

    @property
    def line(self) -> float:
        return self.font * LINE

    def width(self, share: float) -> float:
        """The px a text `share` of the plot's width wide holds at the narrowest figure, less its padding."""
        return (NARROWEST[self.presenting] - MARGIN["l"] - MARGIN["r"]) * share - 2 * PAD


def story_figure(runs: list[Run]) -> go.Figure:
    """The whole story, shown at time 0: a frame a time from 0 to the end."""
    sizes, end = Sizes.for_mode(), max(run.end for run in runs)
    words = [_words(runs, now, sizes) for now in range(end + 1)]
    chart_traces = _charts(runs)
    legend = [trace["name"] for trace in chart_traces if trace.get("showlegend")]
    page = Page(_bands(runs, words, legend, sizes), sizes, len(runs))
    still_shapes, still_notes = _still(runs, page)
    frames = [{"name": str(now), "data": [], "traces": [],
               "layout": {"shapes": still_shapes + _curtains(runs, now, end),
                          "annotations": still_notes + _moving_notes(runs, now, said, page),
                          "updatemenus": [{}, _steps_menu(now, end, page)]}} for now, said in enumerate(words)]
    layout = _layout(runs, end, page) | {key: frames[0]["layout"][key] for key in ("shapes", "annotations")}
    layout["updatemenus"] = [_play_menu(page), frames[0]["layout"]["updatemenus"][1], _speed_menu(page)]
    dummy = {"type": "scatter", "x": [], "y": [], "xaxis": page.x, "yaxis": page.y, "showlegend": False,
             "hoverinfo": "skip"}  # the page's axes exist only with a trace on them
    return go.Figure({"data": chart_traces + [dummy], "layout": layout, "frames": frames}, _validate=False)


def _words(runs: list[Run], now: int, sizes: Sizes) -> dict:
    """What is said at `now`, broken into lines: each run's sentence and rules, and the summary."""
    column = sizes.width(COLUMNS[0][1] - COLUMNS[0][0])
    narration = []
    for run in runs:
        said, why = told(run, now)
        narration.append((break_lines(f"<b>{said}</b>", sizes.font, column),
                          "<br>".join(break_lines(f"• {line}", sizes.font, column) for line in why)))
    return {"narration": narration, "summary": break_lines(takeaway(runs, now), sizes.font, sizes.width(1))}


def _lines(text: str) -> int:
    return text.count("<br>") + 1


def _bands(runs: list[Run], words: list[dict], legend: list[str], sizes: Sizes) -> list[tuple[str, float]]:
    """The figure's bands from the top and their heights in px: the controls (buttons, then the clock); a column
    a run: its title with the time, its Gantt chart, the narration under it, its token-work against the budget;
    then across the width the legend (off the first screen, which the charts and their words need) and the
    tables. The narration's band holds the longest narration of any frame."""
    line, requests = sizes.line, len(runs[0].schedule.requests)
    narration = max(_lines(text) + _lines(why) for w in words for text, why in w["narration"]) * line + 3 * PAD
    entry = max(em(name) for name in legend) * sizes.font + 50  # a wrapped legend's columns are its widest entry's
    legend_rows = -(-len(legend) // max(1, int(sizes.width(1) // entry)))
    title = sizes.title * 1.7
    return [("controls", sizes.font * 4.6 + 30), ("title", title), ("gantt", requests * sizes.row + sizes.font * 2),
            ("narration", narration), ("budget", title + 110 + sizes.font * 2),
            ("legend", legend_rows * sizes.font * 1.9 + 6),
            ("table", title + 2 * line * (1 + len(runs) * requests)),
            ("overall", title + 2 * line * (1 + len(OVERALL))),
            ("summary", max(_lines(w["summary"]) for w in words) * line + 2 * PAD)]


class Page:
    """Where things are: each band's top and height in px from the top of the plot area, and the conversions to
    Plotly's coordinates (a fraction of the plot area, 0 at its bottom)."""

    def __init__(self, bands: list[tuple[str, float]], sizes: Sizes, runs: int):
        self.sizes, self.bands, top = sizes, {}, 0.0
        for name, height in bands:
            self.bands[name] = (top, height)
            top += height + sizes.gap
        self.plot = top - sizes.gap
        self.height = round(self.plot + MARGIN["t"] + MARGIN["b"])
        self.x, self.y = f"x{2 * runs + 1}", f"y{2 * runs + 1}"  # the page's own axes, over the whole figure

    def y_at(self, px: float) -> float:
        return 1 - px / self.plot

    def top(self, band: str, below: float = 0.0) -> float:
        """`below` px under a band's top, in Plotly's coordinates."""
        return self.y_at(self.bands[band][0] + below)

    def domain(self, band: str, above: float = 0.0, below: float = 0.0) -> list[float]:
        """A band's span, less `above` px at its top and `below` px at its bottom."""
        top, height = self.bands[band]
        return [self.y_at(top + height - below), self.y_at(top + above)]

    def note(self, text: str, x: float, px: float, moving: bool, **style) -> dict:
        """Words at `x` (a fraction of the width) and `px` from the top, left and top aligned. A note that frames
        change sits on the page's axes (drawn with the frame's charts); one that stays, on the paper. Its `name`,
        if any, is the box it must stay in."""
        refs = ({"xref": f"{self.x} domain", "yref": f"{self.y} domain"} if moving else
                {"xref": "paper", "yref": "paper"})
        return {"text": text, **refs, "x": x, "y": self.y_at(px), "xanchor": "left", "yanchor": "top", "align": "left",
                "showarrow": False, "borderpad": 0, "font": {"size": self.sizes.font, "color": INK}} | style


def _charts(runs: list[Run]) -> list[dict]:
    """The charts' traces, whole runs: each run's Gantt chart, then each run's budget chart (its bars stacked by
    their bases: the figure's bars overlay, as a Gantt chart's must). A Gantt chart's markers keep one point off
    the chart, for the legend (Plotly leaves a trace without points out of it): an arrival or a last token at the
    very time shown has happened, but a curtain there would hide half of its marker, so frames draw them as notes
    (_marks)."""
    data = []
    for i, run in enumerate(runs):
        off = {"x": [OFF_CHART], "y": [plotly_text(run.schedule.requests[0].name)]}
        data += [trace | _on(1 + i, legend=i == 0) | (off if trace["type"] == "scatter" else {})
                 for trace in charts.gantt_traces(run.schedule, _rows(run))]
    for i, run in enumerate(runs):
        below = [0] * int(run.schedule.makespan)
        for bar in charts.budget_traces(run.schedule):
            data.append(bar | {"base": list(below)} | _on(1 + len(runs) + i, legend=i == 0 and bar["name"] == t(
                "phase_idle")))
            below = [b + y for b, y in zip(below, bar["y"])]
    return data


def _rows(run: Run) -> list[int]:
    return list(range(len(run.schedule.requests)))


def _ref(axis: str, n: int) -> str:
    """The name Plotly gives the n-th x or y axis: x, x2, x3..."""
    return axis if n == 1 else f"{axis}{n}"


def _on(n: int, legend: bool) -> dict:
    """A trace on the n-th pair of axes; in the legend once."""
    return {"xaxis": _ref("x", n), "yaxis": _ref("y", n), "showlegend": legend}


def _axis(sizes: Sizes, **more) -> dict:
    return {"tickfont": {"size": sizes.font}, "gridcolor": "#e5e8ee", "zeroline": False, **more}


def _layout(runs: list[Run], end: int, page: Page) -> dict:
    sizes, pad = page.sizes, end * 0.02 + 0.3
    time_axis = {"range": [-pad, end + pad], "dtick": 1, "tick0": 0, "showgrid": True}
    ticks, title = sizes.font * 2, sizes.title * 1.7  # room for tick labels under a chart, and a title above it
    # (the charts' backgrounds are clear: the page's own axes lie over them all)
    layout = {"height": page.height, "margin": MARGIN, "plot_bgcolor": "rgba(0,0,0,0)", "barmode": "overlay",
              "hovermode": False,  # a chart's hover would tell what its curtain still hides
              "font": {"size": sizes.font}, "sliders": [_clock(end, page)],
              "legend": {"orientation": "h", "x": 0, "xanchor": "left", "y": page.top("legend"), "yanchor": "top",
                         "font": {"size": sizes.font}, "traceorder": "normal"},
              page.x.replace("x", "xaxis"): {"domain": [0, 1], "range": [0, 1], "visible": False, "fixedrange": True},
              page.y.replace("y", "yaxis"): {"domain": [0, 1], "range": [0, 1], "visible": False, "fixedrange": True}}
    for i, (run, domain) in enumerate(zip(runs, COLUMNS)):
        gantt, budget = 1 + i, 1 + len(runs) + i
        layout[f"xaxis{gantt if gantt > 1 else ''}"] = _axis(sizes, **time_axis, domain=list(domain),
                                                             anchor=_ref("y", gantt))
        layout[f"yaxis{gantt if gantt > 1 else ''}"] = _axis(sizes, **charts.gantt_yaxis(run.schedule, _rows(run)),
                                                             domain=page.domain("gantt", below=ticks),
                                                             anchor=_ref("x", gantt), showgrid=False)
        layout[f"xaxis{budget}"] = _axis(sizes, **time_axis, domain=list(domain), anchor=f"y{budget}")
        layout[f"yaxis{budget}"] = _axis(sizes, range=charts.budget_yaxis(run.schedule)["range"], anchor=f"x{budget}",
                                         domain=page.domain("budget", above=title, below=ticks))
    return layout


def _still(runs: list[Run], page: Page) -> tuple[list[dict], list[dict]]:
    """What no frame changes: the narration's and the summary's boxes, the budget lines, the tables' headers,
    stripes and first columns, the budget charts' titles."""
    sizes, shapes, notes = page.sizes, [], []
    top, height = page.bands["narration"]
    for i, (left, right) in enumerate(COLUMNS):  # unbordered: on a wide screen much of it stays empty
        shapes.append(_box(left, right, page.y_at(top + height), page.y_at(top), line=0, name=f"narration{i}"))
    top, height = page.bands["summary"]
    shapes.append(_box(0, 1, page.y_at(top + height), page.y_at(top), HIGHLIGHT, name="summary"))
    for i, (run, (left, _)) in enumerate(zip(runs, COLUMNS)):
        n, tokens = 1 + len(runs) + i, run.schedule.config.token_budget
        shapes.append({"type": "line", "xref": f"x{n} domain", "x0": 0, "x1": 1, "yref": f"y{n}", "y0": tokens,
                       "y1": tokens, "line": {"color": "#2f3640", "dash": "dash", "width": 1}})
        notes.append({"text": t("budget_line", budget=tokens), "xref": f"x{n} domain", "x": 0, "xanchor": "left",
                      "yref": f"y{n}", "y": tokens, "yanchor": "bottom", "showarrow": False,
                      "font": {"size": sizes.font, "color": INK}})
        notes.append(page.note(f"<b>{t('ex_budget_title', policy=t(f'short_policy_{run.policy}'))}</b>", left,
                               page.bands["budget"][0], False, font={"size": sizes.title, "color": INK}))
    for table in _tables(runs, 0):
        table_shapes, table_notes = _grid(table, page)
        shapes += table_shapes
        notes += table_notes
    return shapes, notes


def _box(left: float, right: float, low: float, high: float, fill: str = "white", line: float = 1,
         name: str = "") -> dict:
    """A rectangle under the words, on the paper; `name` tells the boxes words must stay in (tests read it)."""
    return {"type": "rect", "layer": "below", "xref": "paper", "yref": "paper", "x0": left, "x1": right, "y0": low,
            "y1": high, "fillcolor": fill, "line": {"color": BORDER, "width": line}, "name": name}


@dataclass(frozen=True)
class Table:
    """A table drawn with notes: its band, title, headers, columns' widths (shares), its first columns (which no
    frame changes) and the figures' columns at one time."""
    band: str
    title: str
    headers: list[str]
    widths: list[float]
    fixed: int  # how many first columns stay
    columns: list[list[str]]


def _tables(runs: list[Run], now: int) -> list[Table]:
    requests = [list(column) for column in zip(*request_rows(runs, now))]
    overall = [list(column) for column in zip(*overall_rows(runs, now))]
    return [Table("table", t("ex_table_title", tick=now), [t("col_name"), t("col_policy"),
                                                            *(t(f"short_{m}") for m in PER_REQUEST)],
                  [1, 1.6, 1, 1, 1, 1], 2, requests),
            Table("overall", t("ex_overall_title", tick=now),
                  [t("col_metric"), *(t(f"short_policy_{run.policy}") for run in runs)], [2.2, 1, 1], 1, overall)]


def _grid(table: Table, page: Page, moving: bool = False) -> tuple[list[dict], list[dict]]:
    """A table's stripes, headers and first columns (or, `moving`, its title and its figures' columns). A
    column is one note of lines, a row two lines tall: Plotly spaces a note's lines evenly, so they stay in
    their rows."""
    sizes, (top, _) = page.sizes, page.bands[table.band]
    head = top + sizes.title * 1.7  # the title above the table
    row, rows = 2 * sizes.line, len(table.columns[0])
    starts = [sum(table.widths[:j]) / sum(table.widths) for j in range(len(table.widths))]
    if moving:
        notes = [page.note(f"<b>{table.title}</b>", 0, top, True, font={"size": sizes.title, "color": INK})]
        notes += [page.note("<br><br>".join(column), x, head + row + sizes.line / 2, True, xshift=PAD,
                            name=table.band) for x, column in list(zip(starts, table.columns))[table.fixed:]]
        return [], notes
    shapes = [_box(0, 1, page.y_at(head + row * (rows + 1)), page.y_at(head), name=table.band),
              _box(0, 1, page.y_at(head + row), page.y_at(head), HEADER)]
    shapes += [_box(0, 1, page.y_at(head + row * (i + 2)), page.y_at(head + row * (i + 1)), STRIPE, line=0)
               for i in range(rows) if i % 2]
    notes = [page.note(f"<b>{header}</b>", x, head + sizes.line / 2, False, xshift=PAD)
             for x, header in zip(starts, table.headers)]
    notes += [page.note("<br><br>".join(column), x, head + row + sizes.line / 2, False, xshift=PAD)
              for x, column in list(zip(starts, table.columns))[:table.fixed]]
    return shapes, notes


def _moving_notes(runs: list[Run], now: int, said: dict, page: Page) -> list[dict]:
    """What a frame changes in words: each run's title with the time and its narration, the tables' titles and
    figures, the summary."""
    sizes, notes = page.sizes, []
    top, _ = page.bands["narration"]
    for i, (run, (left, _), (sentence, why)) in enumerate(zip(runs, COLUMNS, said["narration"])):
        notes.append(page.note(f"<b>{t('ex_run_title', policy=t(f'policy_{run.policy}'), tick=now)}</b>", left,
                               page.bands["title"][0], True, font={"size": sizes.title, "color": INK}))
        notes.append(page.note(sentence, left, top + PAD, True, xshift=PAD, bgcolor=HIGHLIGHT, name=f"narration{i}"))
        notes.append(page.note(why, left, top + 2 * PAD + _lines(sentence) * sizes.line, True, xshift=PAD,
                               name=f"narration{i}"))
    for table in _tables(runs, now):
        notes += _grid(table, page, moving=True)[1]
    notes.append(page.note(said["summary"], 0, page.bands["summary"][0] + PAD, True, xshift=PAD, name="summary"))
    return notes + _marks(runs, now, sizes)


def _marks(runs: list[Run], now: int, sizes: Sizes) -> list[dict]:
    """Each Gantt chart's arrival and last-token markers that have happened by `now`, on its axes (drawn above its
    curtain)."""
    notes = []
    for n, run in enumerate(runs, start=1):
        for request in run.schedule.requests:
            for at, (mark, color) in zip((request.arrival, request.completion), MARKS):
                if at is not None and at <= now:
                    notes.append({"text": mark, "xref": _ref("x", n), "x": at, "yref": _ref("y", n),
                                  "y": plotly_text(request.name), "showarrow": False,
                                  "font": {"size": sizes.font + 3, "color": color}})
    return notes


def _curtains(runs: list[Run], now: int, end: int) -> list[dict]:
    """Over each chart, what is still to come under a white curtain, and the time as a dotted line."""
    shapes = []
    for n in range(1, 2 * len(runs) + 1):
        x, y = _ref("x", n), f"{_ref('y', n)} domain"
        shapes.append({"type": "rect", "layer": "above", "xref": x, "x0": now, "x1": end + 1, "yref": y, "y0": 0,
                       "y1": 1, "fillcolor": "white", "line": {"width": 0}})
        shapes.append({"type": "line", "xref": x, "x0": now, "x1": now, "yref": y, "y0": 0, "y1": 1,
                       "line": {"color": "#2f3640", "dash": "dot", "width": 1.5}})
    return shapes


def _clock(end: int, page: Page) -> dict:
    """The slider under the buttons: a step a time, each showing its frame at once (each chart's title says the
    time)."""
    sizes = page.sizes
    return {"active": 0, "x": 0, "len": 1, "y": page.top("controls", sizes.font * 2.2 + 12), "yanchor": "top",
            "pad": {"t": 4, "b": 4, "l": 0, "r": 0}, "font": {"size": sizes.font}, "currentvalue": {"visible": False},
            "steps": [{"label": str(now), "method": "animate", "args": _show(now)} for now in range(end + 1)]}


def _show(now: int) -> list:
    """Animate to frame `now` at once."""
    return [[str(now)], {"mode": "immediate", "frame": {"duration": 0, "redraw": True}, "transition": {"duration": 0}}]


def _menu(x_px: float, page: Page, **more) -> dict:
    """A row of buttons at the top, `x_px` from the left."""
    return {"type": "buttons", "direction": "right", "x": 0, "xanchor": "left", "y": page.top("controls"),
            "yanchor": "top", "pad": {"l": x_px, "t": 0, "r": 0, "b": 0}, "showactive": False,
            "font": {"size": page.sizes.font}, **more}


def _play_menu(page: Page) -> dict:
    """Play (from where the clock is; from the start once it is over) and Pause, at once."""
    play = {"frame": {"duration": 1000 / SPEED, "redraw": True}, "fromcurrent": True, "mode": "immediate",
            "transition": {"duration": 0}}
    pause = {"frame": {"duration": 0, "redraw": False}, "mode": "immediate", "transition": {"duration": 0}}
    return _menu(0, page, buttons=[{"label": t("ex_play"), "method": "animate", "args": [None, play]},
                                   {"label": t("ex_pause"), "method": "animate", "args": [[None], pause]}])


def _steps_x(sizes: Sizes) -> float:
    """Where the step buttons start: after Play and Pause (their labels' width, estimated)."""
    return (em(t("ex_play")) + em(t("ex_pause"))) * sizes.font + 2 * sizes.font + 24


def _steps_menu(now: int, end: int, page: Page) -> dict:
    """To the start, one back, one forward: each frame sets these buttons' targets from its own time."""
    targets = ((0, "ex_start"), (max(0, now - 1), "ex_back"), (min(end, now + 1), "ex_forward"))
    return _menu(_steps_x(page.sizes), page, buttons=[
        {"label": label, "method": "animate", "args": _show(target), "name": t(key)}
        for label, (target, key) in zip(("⇤", "◀", "▶"), targets)])


def _speed_menu(page: Page) -> dict:
    """The speed: it sets how long Play shows each frame (a relayout of the Play button's own argument)."""
    sizes = page.sizes
    return {"type": "dropdown", "x": 0, "xanchor": "left", "y": page.top("controls"), "yanchor": "top",
            "pad": {"l": _steps_x(sizes) + 3 * (sizes.font + 18) + 16, "t": 0, "r": 0, "b": 0},
            "font": {"size": sizes.font}, "active": SPEEDS.index(SPEED), "showactive": True,
            "buttons": [{"label": t(f"ex_speed_{'one' if speed <= 1 else 'many'}", speed=f"{speed:g}"),
                         "method": "relayout",
                         "args": [{"updatemenus[0].buttons[0].args[1].frame.duration": 1000 / speed}]}
                        for speed in SPEEDS]}
