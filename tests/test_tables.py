"""ui/tables.sized_columns: a grid measures a column by its header and first ten rows; a longer text further down
gets a width of its own, and nothing else changes."""
import pandas as pd
from hypothesis import given
from hypothesis import strategies as st

from ui import presenter
from ui.tables import GRID_MIN_COLUMN_PX, GRID_SAMPLED_ROWS, cell_text, column_px, sized_columns
from ui.wrap import em

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
