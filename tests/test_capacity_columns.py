"""The capacity lab's policies table and results table in a 1024 px window: every header whole, a label as wide as it
needs where the page has room, and no sideways scrolling (the grid draws on a canvas, where the layout test cannot
read a cut header: these hold the widths the page asks for to the page's width)."""
import json

import pytest

from tests.test_app import open_page
from ui import capacity, i18n, presenter
from ui.capacity import (
    COLUMN_GROUPS,
    EDIT_ICON_PX,
    LABEL_PX,
    POLICY_PX,
    ROW_MARKER_PX,
    column_labels,
    default_policies,
    editor_widths,
    results_columns,
    results_table,
)
from ui.tables import column_px

LONG = "continuous with a long label typed by a teacher"


@pytest.fixture(params=[("en", False), ("zh", False), ("en", True), ("zh", True)], ids=lambda p: f"{p[0]}-{p[1]}")
def page(request, monkeypatch):
    language, presenting = request.param
    monkeypatch.setattr(i18n, "language", lambda: language)
    monkeypatch.setattr(presenter, "on", lambda: presenting)
    return presenting


def test_every_group_of_the_policies_table_fits_the_page_with_its_headers_whole(page):
    labels = column_labels()
    for group, columns in COLUMN_GROUPS.items():
        widths = editor_widths(group, default_policies()["label"])
        assert list(widths) == ["label", *columns]
        assert presenter.px(ROW_MARKER_PX) + sum(widths.values()) <= presenter.options_px(), group
        for column in columns:  # the header's text after its pencil
            assert widths[column] >= presenter.px(column_px(labels[column], ()) + EDIT_ICON_PX), (group, column)
        assert widths["label"] >= presenter.px(LABEL_PX), group  # (on a projector too: "chunked prefill" whole)


def test_a_long_label_widens_its_column_as_far_as_the_page_has_room(page):
    for group in COLUMN_GROUPS:
        short, long = editor_widths(group, ["static"]), editor_widths(group, ["static", LONG])
        room = presenter.options_px() - presenter.px(ROW_MARKER_PX) - sum(w for c, w in long.items() if c != "label")
        assert long["label"] == min(presenter.px(column_px("", [LONG])), room), group
        assert long["label"] > short["label"] if not page else long["label"] >= short["label"], group
    if not page:  # whole beside two columns
        assert editor_widths("policy", [LONG])["label"] == column_px("", [LONG])


def rows(labels):
    return [{"policy": label, "value": value, "attainment": 0.871, "ttft_p99": 568.0, "throughput": 4.33,
             "idle_waiting": 0.436, "hit_rate": float("nan"), "engines": 1, "prefill_engines": None}
            for label in labels for value in (0.25, 4.0)]


def test_the_results_table_leaves_a_column_to_the_csv_for_a_long_label_and_never_scrolls(page):
    name = i18n.t("sw_col_label")
    shown, left = results_table(rows(["static", "continuous", "chunked prefill"]), "rate")
    width = results_columns(shown)[name]["width"]
    if not page:  # the six columns as they were, the label column POLICY_PX wide
        assert not left and len(shown.columns) == 6 and width == POLICY_PX
    shown, left = results_table(rows(["static", LONG]), "rate")
    width = results_columns(shown)[name]["width"]
    others = sum(presenter.px(column_px(c, shown[c])) for c in shown.columns if c != name)
    assert left and len(shown.columns) == 5  # the idle budget is in the CSV
    assert width + others <= presenter.page_px() and width > POLICY_PX
    assert width == min(presenter.px(capacity.policy_px(shown[name])), presenter.page_px() - others)


def editor_label_px(at) -> int:
    """The label column's width the page gave the policies table."""
    grids = [g.proto for g in at.get("arrow_data_frame") + list(at.dataframe)
             if "sw_policies_editor" in g.proto.id]
    return json.loads(grids[0].columns)["label"]["width"]


CHANGES = {"group": lambda at: at.radio(key="w_sw_columns").set_value("fleet"),
           "language": lambda at: at.radio(key="w_" + i18n.STATE_KEY).set_value("zh"),
           "presenter": lambda at: at.toggle(key="w_" + presenter.STATE_KEY).set_value(True)}


@pytest.mark.parametrize("change", CHANGES)
def test_edits_outlive_a_change_of_columns_and_a_typed_label_then_gets_its_width(change):
    """The grid starts afresh when its columns change (in the browser its pending edits are gone: another group of
    them, their headers in another language, their widths on a projector), so the table as edited is stored first;
    the label column is then sized to the labels typed. (tests/test_browser.py sees an edit outlive a language
    switch in Chromium.)"""
    at = open_page("pages/capacity_lab.py")
    assert not at.exception, at.exception
    assert editor_label_px(at) == LABEL_PX
    at.session_state[capacity.POLICIES_EDITOR] = {"edited_rows": {1: {"label": LONG}, 2: {"max_seqs": 2.5}},
                                                  "added_rows": [], "deleted_rows": []}
    at.run()
    assert editor_label_px(at) == LABEL_PX  # (a width changed under an edit would drop it)
    CHANGES[change](at)
    at.run()
    assert not at.exception, at.exception
    state = at.session_state["sweep"]
    for table in (state.policies, state.policies_now):  # stored as typed, the bad value too
        assert list(table["label"])[1] == LONG and list(table["max_seqs"])[2] == 2.5
    assert not (at.session_state[capacity.POLICIES_EDITOR] or {}).get("edited_rows")  # nothing left pending
    assert editor_label_px(at) > LABEL_PX  # sized to the label typed
