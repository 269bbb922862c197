"""ui/tables.sized_columns: a grid measures a column by its header and first ten rows; a longer text further down
gets a width of its own, and nothing else changes."""
import pandas as pd
from hypothesis import given
from hypothesis import strategies as st

from ui import presenter
from ui.tables import GRID_MIN_COLUMN_PX, GRID_SAMPLED_ROWS, cell_text, column_px, sized_columns
from ui.wrap import em, widest_em

texts = st.text(alphabet="abcXYZ0123 .%-批处", min_size=1, max_size=30)


@given(st.lists(texts, min_size=1, max_size=30), st.lists(texts, min_size=1, max_size=30))
def test_a_column_gets_a_width_exactly_when_a_longer_text_lies_below_the_sampled_rows(first, later):
    column = first + later
    table = pd.DataFrame({"name": column, "short": ["x"] * len(column)})
    config = sized_columns(table)
    assert "short" not in config  # (every text within the sampled rows)
    below = column[GRID_SAMPLED_ROWS:]
    cut = bool(below) and max(map(em, below)) > max(map(em, ["name", *column[:GRID_SAMPLED_ROWS]]))
    assert ("name" in config) == cut
    if cut:  # the whole column's longest text fits the width
        assert config["name"]["width"] == column_px("name", column) >= max(map(em, column)) * 14


@given(st.lists(st.text(alphabet="iW0 批<b>/→", max_size=12), max_size=40))
def test_the_widest_text_is_the_widest_of_them_and_order_does_not_change_a_width(column):
    """widest_em measures each distinct text once; em counts hundredths of an em, so the same characters in any
    order are the same width (summed as floats, they could differ in their last digit)."""
    assert widest_em(column) == max(map(em, column), default=0.0)
    for plain in (text.replace("<", "").replace(">", "") for text in column):
        assert em("".join(sorted(plain))) == em(plain) == em(plain[::-1])


def test_a_set_width_a_hidden_column_and_a_label_are_kept():
    long = ["a"] * GRID_SAMPLED_ROWS + ["a much longer text below the tenth row"]
    table = pd.DataFrame({"set": long, "hidden": long, "labelled": long, "named": long})
    config = sized_columns(table, {"set": {"width": 75}, "hidden": None, "labelled": "a label",
                                   "named": {"label": "x", "help": "h"}})
    assert config["set"] == {"width": 75} and config["hidden"] is None
    assert config["labelled"]["label"] == "a label" and config["labelled"]["width"] > 75
    assert config["named"]["help"] == "h" and config["named"]["width"] == column_px("x", long)


def test_a_cell_is_measured_as_the_grid_draws_it():
    """The grid draws a whole float without its ".0" and a missing value as "None" (measured in Chromium: a
    column of 1058.0 is as wide as one of 1058)."""
    assert [cell_text(v) for v in (1058.0, 1058.25, -0.0984, 3, None, float("nan"), pd.NA, "1.0")] == [
        "1058", "1058.25", "-0.0984", "3", "None", "None", "None", "1.0"]
    # ten times 999.5 above a 1058.0: not longer as drawn, so the grid's own sizing holds it
    assert sized_columns(pd.DataFrame({"ms": [999.5] * GRID_SAMPLED_ROWS + [1058.0]})) == {}
    assert "ms" in sized_columns(pd.DataFrame({"ms": [99.5] * GRID_SAMPLED_ROWS + [1058.0]}))


def test_no_column_is_estimated_narrower_than_the_grid_makes_one():
    """A grid makes no column narrower than 50 px (measured in Chromium), however short its text: a table of short
    columns is that wide, which the fitting rules (fits_page) must count."""
    assert column_px("a", ["x", "y"]) == GRID_MIN_COLUMN_PX < column_px("a much longer header", [])


def test_on_a_projector_the_width_grows_with_the_text(monkeypatch):
    table = pd.DataFrame({"name": ["a"] * GRID_SAMPLED_ROWS + ["a much longer text below the tenth row"]})
    plain = sized_columns(table)["name"]["width"]
    monkeypatch.setattr(presenter, "on", lambda: True)
    assert sized_columns(table)["name"]["width"] == presenter.px(plain) > plain


def test_a_short_table_is_left_to_the_grid():
    table = pd.DataFrame({"name": ["a"] * (GRID_SAMPLED_ROWS - 1) + ["a much longer text"]})
    assert sized_columns(table) == {}


def test_the_per_request_table_names_each_ending_in_the_page_language_and_looks_each_text_up_once(monkeypatch):
    """request_table: A's row above B's for every request, its ending in the chosen language; its headers and
    endings are looked up once for the table, not once a row (a table may have 40,000 rows)."""
    from sim.core.config import Config, Policy
    from sim.core.engine import simulate
    from sim.report.metrics import compute
    from sim.trace.trace import Request, Trace
    from ui import i18n, tables

    trace = Trace(tuple(Request(f"r{k}", 0, 8, 20) for k in range(6)))
    runs = [compute(simulate(trace, Config(16, max_seqs=2), Policy(timeout=timeout))) for timeout in (None, 5)]
    with i18n.speaking("zh"):
        ending, cancelled = tables.metric_label("finish_reason"), i18n.t("reason_cancelled")
        name, policy = i18n.t("col_name"), i18n.t("col_policy")
    looked_up = []
    monkeypatch.setattr(tables, "t", lambda key, **params: looked_up.append(key) or i18n.t(key, **params))
    monkeypatch.setattr(tables, "fits_page", lambda px: True)  # (every column kept)
    with i18n.speaking("zh"):
        table, left = tables.request_table(runs, ["A", "B"])
    assert list(table[name]) == [f"r{k}" for k in range(6) for _ in "AB"]
    assert list(table[policy]) == ["A", "B"] * 6
    assert left == [] and cancelled in set(table[ending]) and cancelled != "cancelled"
    assert len(looked_up) < 20, looked_up
