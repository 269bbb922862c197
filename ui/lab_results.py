"""The trace lab's results: what changed, metric cards, aligned charts, tables and downloads for both policies."""
from __future__ import annotations

import json
from functools import partial

import streamlit as st

from sim.core.config import Policy
from sim.core.schedule import Schedule
from sim.report.export import chrome_trace, overall_csv, requests_csv, runs_json_text
from sim.report.metrics import Metrics
from sim.report.prometheus import prometheus_text

from . import presenter
from .charts import GANTT_ROWS, budget_chart, expert_heatmap, gantt, gantt_too_dense, kv_chart, load_chart
from .i18n import t
from .tables import (
    card_label,
    group_table,
    headline,
    overall_table,
    policy_name,
    policy_title,
    request_table,
    show_table,
    shown,
    times_key,
    what_changed,
)
from .text import md_escape

# A download is made in the server's one process when it is clicked, so one of a huge run would hold a class's server
# for long: two runs of 64 outputs of 200,000 tokens under speculation are 25.6 million emitted times in the schedule
# JSON and 12.3 million Chrome events (the Chrome trace took 61 s, 10.8 GB at its peak, and made 1.9 GB). Past these
# sizes the page says so, as the charts do (ui.charts), and names the way round. What they take here (2026-12-06):
SCHEDULE_TIMES = 10_000_000  # emitted times (two runs of 16,000 Azure-shaped requests: 6.9 million, 1.2 s, 206 MB)
CHROME_EVENTS = 1_000_000  # Chrome trace events, about 150 bytes each (615,000: 2.7 s, 92 MB)


def show(runs: list[tuple[Schedule, Metrics]], policies: tuple[Policy, Policy], measured: bool = False,
         page: str = "lab") -> None:
    """The results of both policies; `measured` runs (the real model) are in ms of wall time, not a cost model's.
    Element keys start with `page`: each page's charts, tables and widgets keep state of their own."""
    (schedule_a, metrics_a), (schedule_b, metrics_b) = runs
    titles = [policy_title(p) for p in policies]
    named = [f"{policy_name(i)} · {title}" for i, title in enumerate(titles)]  # (two policies may share a title)
    short = [policy_name(i, short=True) for i in range(2)]
    x_max = max(schedule_a.makespan, schedule_b.makespan)
    if schedule_a.config.cost.kind == "roofline" and not measured:
        cost = schedule_a.config.cost
        st.caption(t("cost_used_roofline", model=cost.model, tp=cost.tp, gpu=cost.hardware, dtype=cost.precision))
    elif schedule_a.unit != "tick" and not measured:
        st.caption(t("cost_used_linear"))
    if not presenter.on():  # on a projector the charts come first, what changed under them
        _changed(metrics_a, metrics_b, named, short[1])
    rejected = [r.name for m in (metrics_a, metrics_b) for r in m.requests if r.finish_reason == "rejected"]
    if rejected:
        st.warning(t("lab_rejected", names=md_escape(", ".join(sorted(set(rejected))[:20])),
                     n=len(set(rejected))))
    labelled = [(title, schedule) for title, (schedule, _) in zip(named, runs)]
    for label, (title, schedule) in zip("AB", labelled):
        dense = gantt_too_dense(schedule)
        if len(schedule.requests) > GANTT_ROWS or dense:
            st.plotly_chart(load_chart(schedule, t("load_title", title=title), x_max=x_max),
                            key=f"{page}_load_{label}")
        if dense:
            st.caption(t("gantt_too_dense", title=md_escape(title), bars=f"{dense:,}"))
        else:
            st.plotly_chart(gantt(schedule, title, x_max=x_max), key=f"{page}_gantt_{label}")
    if presenter.on():
        _changed(metrics_a, metrics_b, named, short[1])
    for label, (title, schedule) in zip("AB", labelled):
        st.plotly_chart(budget_chart(schedule, t("budget_title", policy=title), x_max=x_max),
                        key=f"{page}_budget_{label}")
    if schedule_a.config.kv_blocks:
        for label, (title, schedule) in zip("AB", labelled):
            st.plotly_chart(kv_chart(schedule, t("kv_title", policy=title), x_max=x_max), key=f"{page}_kv_{label}")
    if schedule_a.config.moe.experts:
        _expert_heatmaps(labelled, page)
    st.subheader(t("lab_overall"))
    st.caption(t("lab_ab_key", a=md_escape(titles[0]), b=md_escape(titles[1])))
    show_table(overall_table(metrics_a, metrics_b), f"{page}_overall")
    if metrics_a.utilization != metrics_b.utilization:
        st.caption(t("lab_utilization_note"))
    for key in ("tenant", "priority"):
        if len({getattr(r, key) for r in metrics_a.requests}) > 1:
            st.subheader(t(f"lab_per_{key}"))
            for label, title, metrics in zip("AB", named, (metrics_a, metrics_b)):
                st.caption(md_escape(title))
                show_table(group_table(metrics, key), f"{page}_{key}_{label}")
    st.subheader(t("lab_per_request"))
    key_text = t("lab_per_request_key", a=md_escape(titles[0]), b=md_escape(titles[1]))
    st.caption(f"{key_text} {times_key(metrics_a.unit)}")
    table, left = request_table([metrics_a, metrics_b], short)
    show_table(table, f"{page}_requests")
    if left:
        st.caption(t("lab_requests_left", columns=", ".join(left), csv=t("dl_requests_csv")))
    row = st.container(horizontal=True)  # (each button as wide as its label, the row wrapping: no label cut off)
    row.download_button(t("dl_requests_csv"), partial(requests_csv, [metrics_a, metrics_b]), "requests.csv",
                        "text/csv", key=f"{page}_dl_requests")
    row.download_button(t("dl_overall_csv"), partial(overall_csv, [metrics_a, metrics_b]), "overall.csv", "text/csv",
                        key=f"{page}_dl_overall")
    times, events = download_sizes(runs)
    row.download_button(t("dl_schedule_json"), partial(schedules_json, runs), "schedule.json", "application/json",
                        key=f"{page}_dl_schedule", disabled=times > SCHEDULE_TIMES)
    row.download_button(t("dl_chrome"), partial(chrome_json, [schedule_a, schedule_b]), "schedule.trace.json",
                        "application/json", key=f"{page}_dl_chrome", help=t("dl_chrome_help"),
                        disabled=events > CHROME_EVENTS)
    if times > SCHEDULE_TIMES:
        st.caption(t("dl_schedule_too_large", count=f"{times:,}", limit=f"{SCHEDULE_TIMES:,}"))
    if events > CHROME_EVENTS:
        st.caption(t("dl_chrome_too_large", count=f"{events:,}", limit=f"{CHROME_EVENTS:,}"))
    _prometheus_downloads(runs, page)


def download_sizes(runs: list[tuple[Schedule, Metrics]]) -> tuple[int, int]:
    """What the two large downloads would hold: the schedule JSON's emitted token times, and the Chrome trace's
    events (a name for each run and two for each request, a slice for each segment, three counters for each
    step)."""
    times = sum(r.generated for _, metrics in runs for r in metrics.requests)
    events = sum(1 + 2 * len(s.requests) + sum(len(r.segments) for r in s.requests) + 3 * len(s.steps)
                 for s, _ in runs)
    return times, events


def _changed(metrics_a: Metrics, metrics_b: Metrics, named: list[str], name_b: str) -> None:
    """What changed from the first policy to the second: in sentences, then the second's headline figures, each
    with its change. Three cards a row: wide enough for their labels on a 1024-px screen."""
    st.markdown("\n".join(f"- {line}" for line in what_changed(metrics_a, metrics_b, *map(md_escape, named))))
    for column, (name, value_a, value_b, lower_better) in zip(st.columns(3) * 2, headline(metrics_a, metrics_b)):
        column.metric(f"{card_label(name, metrics_b.unit)} · {name_b}", shown(name, value_b),
                      delta=shown(name, value_b - value_a) or None,
                      delta_color="inverse" if lower_better else "normal",
                      help=t("card_help", a=shown(name, value_a)))


def _expert_heatmaps(labelled: list[tuple[str, Schedule]], page: str) -> None:
    """MoE routing: each policy's expert load per iteration, on one colour scale."""
    busiest = max(step.expert_tokens_max for _, schedule in labelled for step in schedule.steps)
    for label, (title, schedule) in zip("AB", labelled):
        st.plotly_chart(expert_heatmap(schedule, t("moe_heatmap_title", policy=title), zmax=busiest),
                        key=f"{page}_moe_{label}")
    st.caption(t("moe_heatmap_note" if labelled[0][1].unit != "tick" else "moe_heatmap_note_ticks"))


def schedules_json(runs: list[tuple[Schedule, Metrics]]) -> str:
    return runs_json_text([(f"{label}_{m.policy}", s, m, None) for label, (s, m) in zip("AB", runs)])


def chrome_json(schedules: list[Schedule]) -> str:
    return json.dumps(chrome_trace(schedules))


def _prometheus_downloads(runs: list[tuple[Schedule, Metrics]], page: str) -> None:
    """Each run's metrics in Prometheus text format with vLLM's names, to set beside a real server's."""
    row = st.container(horizontal=True, vertical_alignment="bottom")  # (wrapping: no label cut off)
    if runs[0][0].unit == "tick":
        ms = row.number_input(t("dl_prom_tick_ms"), 0.001, 3.6e6, 10.0, key=f"{page}_dl_prom_ms",
                              help=t("dl_prom_tick_help"), width=220)
        seconds = ms / 1000
    else:
        seconds = 0.001
        row.caption(t("dl_prom_ms"), width="content")
    for index, (label, (schedule, metrics)) in enumerate(zip("AB", runs)):
        row.download_button(t("dl_prometheus", label=policy_name(index)),
                               partial(prometheus_text, schedule, metrics, seconds),
                               f"metrics-{label}.prom", "text/plain", key=f"{page}_dl_prom_{label}",
                               help=t("dl_prometheus_help"))
