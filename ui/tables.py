"""Metric tables for the pages: per request side by side, and overall with the A-to-B change."""
from __future__ import annotations

import pandas as pd

from sim.export import overall_rows
from sim.metrics import Metrics

from .i18n import t

PER_REQUEST = ("queue_time", "ttft", "tpot", "e2e", "completion")
OVERALL = ("makespan", "throughput", "request_throughput", "padding_waste", "utilization", "goodput_requests",
           "slo_attainment", "ttft_p50", "ttft_p90", "ttft_p99", "tpot_p50", "tpot_p90", "tpot_p99", "e2e_p50",
           "e2e_p90", "e2e_p99", "queue_time_p50", "queue_time_p90", "queue_time_p99")
HIGHER_IS_BETTER = {"throughput", "request_throughput", "utilization", "goodput_requests", "slo_attainment"}


def request_table(runs: list[Metrics]) -> pd.DataFrame:
    """One row per request: its shape, then each latency under each policy."""
    first = runs[0].requests
    table = {t("col_name"): [r.name for r in first], t("col_arrival"): [r.arrival for r in first],
             t("col_prompt"): [r.prompt for r in first], t("col_output"): [r.output for r in first]}
    for metric in PER_REQUEST:
        for m in runs:
            table[f"{t('m_' + metric)} · {t('policy_' + m.policy)}"] = [getattr(r, metric) for r in m.requests]
    return pd.DataFrame(table)


def overall_table(a: Metrics, b: Metrics, names: tuple[str, ...] = OVERALL) -> pd.DataFrame:
    """Overall figures of A and B with the change from A to B and whether it is for the better."""
    rows_a, rows_b = overall_rows(a), overall_rows(b)
    records = []
    for name in names:
        va, vb = rows_a[name], rows_b[name]
        change = vb - va
        relative = ("+" if change >= 0 else "-") + percent(abs(change / va)) if va else ("—" if not change else "∞")
        better = (change > 0) == (name in HIGHER_IS_BETTER) if change else None
        records.append({t("col_metric"): t("m_" + name), t("policy_" + a.policy) + " (A)": round(va, 4),
                        t("policy_" + b.policy) + " (B)": round(vb, 4), t("col_change"): round(change, 4),
                        t("col_relative"): relative,
                        t("col_verdict"): "" if better is None else ("✅" if better else "🔻")})
    return pd.DataFrame(records)


def percent(share: float) -> str:
    """A share as a percentage with enough digits that a small change does not read 0%."""
    return f"{share:.0%}" if share >= 0.01 or share == 0 else f"{share:.2%}"


def headline(a: Metrics, b: Metrics) -> list[tuple[str, float, float, bool]]:
    """The figures for the metric cards: (metric, A's value, B's value, lower is better)."""
    return [("makespan", a.makespan, b.makespan, True), ("throughput", a.throughput, b.throughput, False),
            ("ttft_p50", a.percentiles["ttft"][50], b.percentiles["ttft"][50], True),
            ("tpot_p50", a.percentiles["tpot"][50], b.percentiles["tpot"][50], True),
            ("padding_waste", a.padding_waste, b.padding_waste, True),
            ("goodput_requests", a.goodput_requests, b.goodput_requests, False)]


def what_changed(a: Metrics, b: Metrics) -> list[str]:
    """A few plain sentences on how B differs from A."""
    name_a, name_b = t("policy_" + a.policy), t("policy_" + b.policy)
    lines = []
    if a.makespan and b.makespan and a.makespan != b.makespan:
        faster = b.makespan < a.makespan
        lines.append(t("wc_makespan", b=name_b, a=name_a, verb=t("wc_faster" if faster else "wc_slower"),
                       pct=percent(abs(b.makespan - a.makespan) / a.makespan), ma=a.makespan, mb=b.makespan))
    ttft_a, ttft_b = a.percentiles["ttft"][50], b.percentiles["ttft"][50]
    if ttft_a != ttft_b:
        lines.append(t("wc_ttft", b=name_b, ta=ttft_a, tb=ttft_b))
    if a.padding_waste != b.padding_waste:
        lines.append(t("wc_waste", a=name_a, b=name_b, wa=a.padding_waste, wb=b.padding_waste))
    if a.goodput_requests != b.goodput_requests:
        lines.append(t("wc_goodput", a=name_a, b=name_b, ga=a.goodput_requests, gb=b.goodput_requests,
                       n=len(a.requests)))
    moved = sum(1 for ra, rb in zip(a.requests, b.requests) if rb.e2e < ra.e2e)
    if moved:
        lines.append(t("wc_requests", b=name_b, n=moved, total=len(a.requests)))
    return lines or [t("wc_same")]
