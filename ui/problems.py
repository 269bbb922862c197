"""Input problems (sim.trace.trace.Problem) as a translated table: which row, which request, which column, why."""
from __future__ import annotations

import pandas as pd

from sim.trace.trace import Problem

from .i18n import t


def problem_text(problem: Problem) -> str:
    return t(f"prob_{problem.code}", **problem.params)


def problem_table(problems: tuple[Problem, ...]) -> pd.DataFrame:
    return pd.DataFrame({
        t("col_row"): [p.row if p.row is not None else "" for p in problems],
        t("col_name"): [p.name or "" for p in problems],
        t("col_column"): [t(f"col_{p.column}") if p.column else "" for p in problems],
        t("col_problem"): [problem_text(p) for p in problems],
    })
