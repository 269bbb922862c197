"""Metric tables for the pages: per request side by side, and overall with the change from Policy 1 to Policy 2."""
from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from sim.core.config import Policy
from sim.report.export import overall_rows
from sim.report.metrics import Metrics
from sim.report.metrics import group_table as group_rows

from . import presenter
from .i18n import t
from .numbers import number, quantity, rounded, share, signed
from .wrap import widest_em

PER_REQUEST = ("queue_time", "ttft", "tpot", "e2e")  # a request's latencies, in its tables (short_<name>)
OVERALL = ("makespan", "throughput", "request_throughput", "padding_waste", "utilization", "goodput_requests",
           "slo_attainment", "ttft_p50", "ttft_p90", "ttft_p99", "tpot_p50", "tpot_p90", "tpot_p99", "e2e_p50",
           "e2e_p90", "e2e_p99", "itl_p50", "itl_p99", "queue_time_p50", "queue_time_p90", "queue_time_p99")
HIGHER_IS_BETTER = {"throughput", "request_throughput", "goodput_requests", "slo_attainment"}
# No verdict: what these measure is how much of the hardware a run kept busy, not how well it served. Budget
# utilization is the token-work computed over the budget the run's time offered, and a policy that computes less
# for the same output (prefix caching skips the cached prompt tokens, a policy that never preempts recomputes
# nothing) has less of it while serving as fast or faster, which makespan, throughput and the latencies judge.
# The KV blocks in use are memory held, which is neither good nor bad by itself.
NEUTRAL = {"utilization", "kv_peak", "kv_mean"}


# shown when a run has any
EXTRA = ("finished", "cancelled", "disconnected", "rejected", "preemptions", "recomputed_tokens", "swapped_blocks",
         "wasted_tokens", "unsent_tokens", "prefix_hit_rate", "kv_peak", "kv_mean", "graph_padding", "spec_accepted")
LOWER_EXTRA_IS_WORSE = {"finished", "spec_accepted", "prefix_hit_rate"}


SHARES = {"utilization", "slo_attainment", "prefix_hit_rate"}  # shown as percentages, everywhere
TIMES = {"queue_time", "ttft", "tpot", "e2e", "completion", "makespan", "itl"}  # in the run's unit


def card_label(name: str, unit: str = "tick") -> str:
    """A metric's short name for a metric card (a card is narrow)."""
    return t(f"card_{name}", per=t(f"per_{unit}")) if name in ("throughput", "goodput_requests") else \
        metric_label(name, unit)


def metric_label(name: str, unit: str = "tick") -> str:
    """A metric's name with its unit: rates per tick or per ms, times in ticks or ms, shares in %."""
    label = t("m_" + name, per=t(f"per_{unit}"))
    if name in SHARES:
        return f"{label} (%)"
    if name.rsplit("_p", 1)[0] in TIMES:
        return t("with_unit", label=label, unit=t(f"unit_{unit}"))
    return label


def shown(name: str, value: float | None) -> float | None:
    """A metric's value rounded for reading by the one rule (ui/numbers.py), the same on every page: shares as
    percentages."""
    if value is None:
        return None
    return rounded(value * 100 if name in SHARES else value)


def request_table(runs: list[Metrics], labels: list[str]) -> tuple[pd.DataFrame, list[str]]:
    """One row per request and policy (A's row above B's), so a projector shows every column without
    scrolling: its shape, its latencies under that policy, and how it ended when any request did not simply
    finish. The headers are short; the times' unit is said once, above the table (times_key). (Its completion
    time, arrival + E2E, is in the CSV.) How it ended, its preemptions and its wasted tokens are left to the CSV
    where with them the table would not fit a 1024 px page (`fits_page`). The table, and the headers left out."""
    unit = runs[0].unit
    extra = [c for c in ("finish_reason", "preemptions", "wasted")
             if any((r.finish_reason != "finished") if c == "finish_reason" else getattr(r, c)
                    for m in runs for r in m.requests)]
    # (each header and reason looked up once: a table may have 40,000 rows)
    shape = t("col_name"), t("col_policy"), t("col_arrival"), t("col_prompt"), t("col_output")
    latency = {metric: t(f"short_{metric}") for metric in PER_REQUEST}
    extra_headers = {metric: metric_label(metric, unit) for metric in extra}
    reasons = {reason: t(f"reason_{reason}") for reason in {r.finish_reason for m in runs for r in m.requests}}
    rows = []
    for index in range(len(runs[0].requests)):
        for label, m in zip(labels, runs):
            r = m.requests[index]
            row = dict(zip(shape, (r.name, label, shown("arrival", r.arrival), r.prompt, r.output)))
            row |= {header: shown(metric, getattr(r, metric)) for metric, header in latency.items()}
            for metric, header in extra_headers.items():
                value = getattr(r, metric)
                row[header] = reasons[value] if metric == "finish_reason" else value
            rows.append(row)
    table = pd.DataFrame(rows)
    left = list(extra_headers.values())
    if not left or fits_page(grid_px(table)):
        return table, []
    return table.drop(columns=left), left


GRID_FONT_PX = 14  # a data grid's text at Streamlit's 16 px root
GRID_PADDING_PX = 16  # a column the grid sizes itself pads its text by 8 px a side
GRID_SAMPLED_ROWS = 10  # a grid sizes a column by its header and its first ten rows (glide-data-grid's sizer)
GRID_MIN_COLUMN_PX = 50  # and makes none narrower (measured in Chromium: three one-letter columns, 150 px)


def cell_text(value: object) -> str:
    """A cell's text as a data grid draws it (measured in Chromium): a whole float without its ".0" (1058.0 as
    "1058"), a missing value as "None"."""
    if value is None or value is pd.NA or isinstance(value, float) and math.isnan(value):
        return "None"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def column_px(name: object, values) -> int:
    """The width a grid gives a column that holds `values` under the header `name` (every one of them), at most:
    estimated a little wide (ui.wrap.em), at 14 px text."""
    text = round(widest_em([str(name), *map(cell_text, values)]) * GRID_FONT_PX) + GRID_PADDING_PX
    return max(text, GRID_MIN_COLUMN_PX)


def grid_px(table: pd.DataFrame, widths: dict[str, int] | None = None) -> int:
    """The width a data grid gives `table`, at most: each column as wide as its header or its longest text (the
    grid sizes it by its first rows: these are every row), or as `widths` sets it (in px at 14 px text); grown
    with the text in presenter mode."""
    widths = widths or {}
    return presenter.px(sum(widths[name] if name in widths else column_px(name, table[name]) for name in table.columns))


def sized_columns(table: pd.DataFrame, config: dict | None = None) -> dict:
    """The column config of a grid that shows `table`: `config` (by column), and a width of its own for each
    column whose longest text comes after the rows the grid sizes it by, which the grid would cut off (a long
    value in row 17 below ten short ones), grown with the text in presenter mode. Other columns keep the grid's own
    sizing."""
    config = dict(config or {})
    if len(table) <= GRID_SAMPLED_ROWS:
        return config
    for name in table.columns:
        own = config.get(name, {})  # (None: hidden; a text: its label)
        if own is None:
            continue
        own = {"label": own} if isinstance(own, str) else own
        if own.get("width"):
            continue
        header, texts = own.get("label") or name, [cell_text(value) for value in table[name]]
        if widest_em(texts[GRID_SAMPLED_ROWS:]) > widest_em([str(header), *texts[:GRID_SAMPLED_ROWS]]):
            config[name] = {**own, "width": presenter.px(column_px(header, texts))}
    return config


def show_table(table: pd.DataFrame, key: str | None, config: dict | None = None, **options) -> None:
    """`table` as a data grid without its index, no cell cut off (`config` and sized_columns); `options` go to
    st.dataframe (a height)."""
    st.dataframe(table, hide_index=True, key=key, column_config=sized_columns(table, config), **options)


def fits_page(px: int) -> bool:
    """Whether a table `px` wide (grid_px) fits a 1024 px window's page, in this mode."""
    return px <= presenter.page_px()


def times_key(unit: str) -> str:
    """The unit of a per-request table's times, said once above it (its short headers leave it out)."""
    return t("times_key", unit=t(f"wc_unit_{unit}"))


def overall_table(a: Metrics, b: Metrics, names: tuple[str, ...] = OVERALL) -> pd.DataFrame:
    """Overall figures of both policies with the change from Policy 1 to Policy 2 and whether it is for the
    better (none for a NEUTRAL metric): in a column of its own, or after the change where the table would not fit
    a 1024 px page with it (large figures, option rows, a projector)."""
    rows_a, rows_b = overall_rows(a), overall_rows(b)
    names = names + tuple(n for n in EXTRA if names == OVERALL and (rows_a[n] or rows_b[n]))
    records = []
    for name in names:
        va, vb = rows_a[name] or 0, rows_b[name] or 0
        change = vb - va
        relative = ("+" if change >= 0 else "-") + share(abs(change / va)) if va else ("—" if not change else "∞")
        higher_better = name in HIGHER_IS_BETTER or name in LOWER_EXTRA_IS_WORSE
        better = (change > 0) == higher_better if change and name not in NEUTRAL else None
        # the change and how large it is beside what it changed, in one column: the table fits 1024 px
        records.append({t("col_metric"): metric_label(name, a.unit), t("policy_short_a"): shown(name, va),
                        t("policy_short_b"): shown(name, vb),
                        t("col_change"): f"{signed(shown(name, change))} ({relative})" if change else "0",
                        t("col_verdict"): "" if better is None else ("✅" if better else "🔻")})
    table = pd.DataFrame(records)
    if fits_page(grid_px(table)):
        return table
    # Too wide for a 1024 px page (large figures, on a projector): the verdict follows the change it judges.
    change, verdict = t("col_change"), t("col_verdict")
    table[change] = (table[change] + " " + table[verdict]).str.rstrip()
    return table.drop(columns=verdict)


def group_table(metrics: Metrics, key: str) -> pd.DataFrame:
    """Counts, tokens and latencies per tenant or per priority."""
    rows = group_rows(metrics, key)
    return pd.DataFrame([{t("col_" + k): (v if k != key or v != "" else "—") for k, v in row.items()} for row in rows])


def headline(a: Metrics, b: Metrics) -> list[tuple[str, float, float, bool]]:
    """The figures for the metric cards: (metric, A's value, B's value, lower is better)."""
    return [("makespan", a.makespan, b.makespan, True), ("throughput", a.throughput, b.throughput, False),
            ("ttft_p50", a.percentiles["ttft"][50], b.percentiles["ttft"][50], True),
            ("tpot_p50", a.percentiles["tpot"][50], b.percentiles["tpot"][50], True),
            ("padding_waste", a.padding_waste, b.padding_waste, True),
            ("goodput_requests", a.goodput_requests, b.goodput_requests, False)]


def what_changed(a: Metrics, b: Metrics, name_a: str, name_b: str) -> list[str]:
    """A few plain sentences on how B differs from A, every figure with its unit."""
    unit = a.unit
    lines = []
    if a.makespan and b.makespan and a.makespan != b.makespan:
        faster = b.makespan < a.makespan
        lines.append(t("wc_makespan", b=name_b, a=name_a, verb=t("wc_faster" if faster else "wc_slower"),
                       pct=share(abs(b.makespan - a.makespan) / a.makespan), ma=quantity(a.makespan, unit),
                       mb=quantity(b.makespan, unit)))
    ttft_a, ttft_b = a.percentiles["ttft"][50], b.percentiles["ttft"][50]
    if ttft_a != ttft_b:
        lines.append(t("wc_ttft", b=name_b, ta=quantity(ttft_a, unit), tb=quantity(ttft_b, unit)))
    tpot_a, tpot_b = a.percentiles["tpot"][90], b.percentiles["tpot"][90]
    if rounded(tpot_a) != rounded(tpot_b):
        lines.append(t("wc_tpot", b=name_b, ta=quantity(tpot_a, unit), tb=quantity(tpot_b, unit)))
    if a.padding_waste != b.padding_waste:
        lines.append(t("wc_waste", a=name_a, b=name_b, wa=number(a.padding_waste), wb=number(b.padding_waste)))
    if a.goodput_requests != b.goodput_requests:
        lines.append(t("wc_goodput", a=name_a, b=name_b, ga=number(a.goodput_requests),
                       gb=number(b.goodput_requests), n=number(len(a.requests))))
    if a.preemptions or b.preemptions:
        lines.append(t("wc_preemptions", a=name_a, b=name_b, pa=number(a.preemptions), pb=number(b.preemptions),
                       ra=number(a.recomputed_tokens), rb=number(b.recomputed_tokens)))
    moved = sum(1 for ra, rb in zip(a.requests, b.requests) if ra.e2e is not None and rb.e2e is not None
                and rb.e2e < ra.e2e)
    if moved:
        lines.append(t("wc_requests", b=name_b, n=number(moved), total=number(len(a.requests))))
    return lines or [t("wc_same")]


def option_summary(policy: Policy) -> str:
    """The options changed from the defaults, in short ("order sjf, chunks of 4"); empty if none."""
    return ", ".join(t(f"opt_short_{name}", value=_show(value)) for name, value in policy.changes().items())


def policy_name(index: int, short: bool = False) -> str:
    """What users call the compared policy `index` (0 or 1): "Policy 1", or "P1" where room is short. Not A and B,
    which name requests (the worked example's A, B and C); state and element keys still say a and b."""
    return t(f"policy_short_{'ab'[index]}" if short else f"cfg_policy_{'ab'[index]}")


def policy_title(policy: Policy) -> str:
    """The batching's name and the options changed, for chart titles and table headers."""
    summary = option_summary(policy)
    return t(f"policy_{policy.batching}") + (" · " + summary if summary else "")


def _show(value: object) -> str:
    if isinstance(value, tuple):
        return ",".join(f"{v[0]}={v[1]:g}" if isinstance(v, tuple) else str(v) for v in value)
    return str(value)
