"""What is wrong with an input, in the page's language: trace problems (sim.trace.trace.Problem) as a table or a
line, and budget and option errors (sim.core.errors.ConfigError) as a sentence naming the field by its label."""
from __future__ import annotations

from collections.abc import Mapping

import pandas as pd
import streamlit as st

from sim import codec
from sim.core.config import Config, Policy
from sim.core.errors import ConfigError
from sim.trace.trace import Problem, TraceError

from .i18n import t
from .lab_state import LABELS
from .strings import STRINGS
from .tables import show_table
from .text import md_escape

# The label of each field a ConfigError may name that is neither a policy option (opt_<field>) nor a lab setting
# (lab_state.LABELS, else cfg_<field>): the ones sim names apart from the forms' flattened settings.
FIELD_LABELS = {"policy": "cfg_field_policy", "cost_model": "cfg_cost", "slo": "cfg_field_slo",
                "cost": "cfg_cost", "moe": "moe_settings", "device": "rm_device", "weights": "cfg_field_weights",
                "gpu_memory_utilization": "cfg_gpu_memory_utilization",
                # a fleet's (sim.core.cluster): set on the command line, named in the Many servers page's words
                **{f: f"cfg_field_{f}" for f in ("replicas", "router", "router_seed", "prefill_replicas",
                                                 "decode_replicas", "kv_transfer_latency", "kv_transfer_per_block")}}
SETTINGS = set(codec.names(Config))
OPTIONS = set(codec.names(Policy))


def problem_text(problem: Problem) -> str:
    return t(f"prob_{problem.code}", **problem.params)


def problem_table(problems: tuple[Problem, ...]) -> pd.DataFrame:
    return pd.DataFrame({
        t("col_row"): [p.row if p.row is not None else "" for p in problems],
        t("col_name"): [p.name or "" for p in problems],
        t("col_column"): [t(f"col_{p.column}") if p.column else "" for p in problems],
        t("col_problem"): [problem_text(p) for p in problems],
    })


PROBLEMS_LISTED = 1_000  # a table of more helps nobody (a 20,000-row trace can have 100,000), and costs the server


def show_problems(problems: tuple[Problem, ...], key: str) -> None:
    """The problems on the page: those of the whole input (no row, request or column: a file too large, or not a
    trace) as sentences, the others as a table, a row each, none of its words cut off; the first PROBLEMS_LISTED of
    them, with a line saying how many there are."""
    whole = [p for p in problems if _of_whole(p)]
    if whole:
        st.markdown("\n".join(f"- {md_escape(problem_text(p))}" for p in whole))
    located = [p for p in problems if not _of_whole(p)]
    if located:
        show_table(problem_table(located[:PROBLEMS_LISTED]), key)
    if len(located) > PROBLEMS_LISTED:
        st.caption(t("problems_more", n=f"{len(located):,}", listed=f"{PROBLEMS_LISTED:,}"))


def _of_whole(problem: Problem) -> bool:
    return problem.row is None and not problem.name and not problem.column


def trace_error_text(error: TraceError) -> str:
    """A trace's problems in one line, for a message (markdown-escaped): request, column and why, each."""
    lines = []
    for p in error.problems:
        where = ", ".join(part for part in (p.name and md_escape(p.name), p.column and t(f"col_{p.column}")) if part)
        lines.append(f"{where}: {md_escape(problem_text(p))}" if where else md_escape(problem_text(p)))
    return "; ".join(lines)


def field_label(field: str, labels: Mapping[str, str] | None = None, **label_fields: object) -> str:
    """The label of the widget (or table column, from `labels`: field -> text) where `field` is set, with the
    fields its text takes (an SLO's `unit`)."""
    return labels[field] if labels and field in labels else t(label_key(field), **label_fields)


def label_key(field: str) -> str:
    """The translation key of the label of the form's widget where `field` is set."""
    if field in OPTIONS:
        return f"opt_{field}"
    return LABELS.get(field, f"cfg_{field}") if field in SETTINGS else FIELD_LABELS[field]


def config_error(error: ConfigError, labels: Mapping[str, str] | None = None, **label_fields: object) -> str:
    """A ConfigError as a page says it (markdown-escaped): the field's label, then what is wrong with it."""
    params = {name: md_escape(_param(error, name, value)) for name, value in error.params.items()}
    return t("cfg_bad", field=field_label(error.field, labels, **label_fields),
             reason=t(f"cfg_err_{error.code}", **params))


def _param(error: ConfigError, name: str, value: object) -> str:
    """A parameter as the page's words: a preset by its name, a preset's choice by its option's text."""
    if name == "preset":
        return t(f"opt_preset_{value}".replace("-", "_"))
    choice = f"opt_{error.field}_{value}".replace("-", "_")
    if error.code == "preset_sets" and name == "value" and choice in STRINGS:
        return t(choice)
    return str(value)
