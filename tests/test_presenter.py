"""Presenter mode: the sidebar switch, projector-sized chart fonts (and today's sizes when off), options folded into
expanders, every page without an exception in both languages, and, in a real Chromium, text, grid and legend fonts
of at least 18 px."""
import json
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from sim.core.config import Config, Policy
from sim.core.engine import simulate
from tests.conftest import SEED_ROWS, cut_cells, make_trace
from ui import charts, presenter
from ui.strings import STRINGS

APP = str(Path(__file__).resolve().parents[1] / "classroom.py")
PAGES = ("pages/home.py", "pages/worked_example.py", "pages/trace_lab.py", "pages/capacity_lab.py",
         "pages/many_servers.py", "pages/planner.py", "pages/real_model.py", "pages/metrics_guide.py")
# What presenter mode folds away: options, or a section of them under its own heading (the lab's)
FOLDED = {lang: {STRINGS[key][lang] for key in ("presenter_options", "lab_trace", "lab_budgets")}
          for lang in ("en", "zh")}


def open_page(page: str, lang: str = "en", on: bool = True) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.session_state["lang"] = lang
    at.session_state[presenter.STATE_KEY] = on
    at.run()
    return at.switch_page(page).run()


def figure(at: AppTest, i: int) -> dict:
    return json.loads(at.get("plotly_chart")[i].proto.spec)


def options_of(at: AppTest, lang: str = "en") -> list:
    return [e for e in at.expander if e.label in FOLDED[lang]]


@pytest.fixture
def presenting(monkeypatch):
    monkeypatch.setattr(presenter, "on", lambda: True)


def test_off_the_base_layout_is_todays():
    assert charts.base_layout("T", 200) == {
        "title": {"text": "T", "x": 0, "font": {"size": 15}}, "height": 200,
        "margin": {"l": 10, "r": 10, "t": 36, "b": 76}, "plot_bgcolor": "white",
        "legend": {"orientation": "h", "x": 0, "y": 0, "yref": "container", "yanchor": "bottom",
                   "font": {"size": 11}}}


def test_on_the_base_layout_has_projector_fonts_and_more_room(presenting):
    layout = charts.base_layout("T", 200)
    assert layout["title"]["font"]["size"] >= 20
    assert layout["legend"]["font"]["size"] >= 18
    assert layout["font"]["size"] >= 18
    assert layout["height"] > 200 and layout["margin"]["b"] > 76


def test_on_every_axis_of_a_figure_has_tick_labels_of_18_px(presenting):
    schedule = simulate(make_trace(*SEED_ROWS), Config(8), Policy())
    for fig in (charts.gantt(schedule, "g"), charts.budget_chart(schedule, "b"), charts.load_chart(schedule, "l")):
        layout = fig.to_plotly_json()["layout"]
        assert layout["xaxis"]["tickfont"]["size"] >= 18 and layout["yaxis"]["tickfont"]["size"] >= 18
        assert layout["font"]["size"] >= 18


def test_off_a_figure_names_no_tick_font():
    layout = charts.gantt(simulate(make_trace(*SEED_ROWS), Config(8), Policy()), "g").to_plotly_json()["layout"]
    assert "tickfont" not in layout["xaxis"] and "font" not in layout


def test_on_a_lesson_charts_subtitle_is_broken_into_lines_that_fit(presenting):
    """Plotly never wraps a title: a long subtitle is broken where a line of the narrowest chart is full, and the
    figure grows by its lines."""
    from ui.wrap import em
    cost = "the busiest expert takes more of the token choices " * 4
    layout = charts.lesson_layout("T", cost, 300)
    subtitle = layout["title"]["subtitle"]
    lines = subtitle["text"].split("<br>")
    assert len(lines) > 1 and all(em(line) * subtitle["font"]["size"] <= charts.SUBTITLE_PX for line in lines)
    assert subtitle["font"]["size"] >= 18
    short = charts.lesson_layout("T", "short", 300)
    assert layout["margin"]["t"] > short["margin"]["t"]
    plot = [shown["height"] - shown["margin"]["t"] - shown["margin"]["b"] for shown in (layout, short)]
    assert plot[0] == plot[1]  # the subtitle's lines take no room from the plot


def test_presenter_font_sizes():
    assert presenter.font(11) == 11 and presenter.px(178) == 178


def test_presenter_font_sizes_on(presenting):
    assert presenter.font(11) == 18 and presenter.font(24) == 24 and presenter.px(160) == 210


def test_the_sidebar_switch_keeps_its_choice_across_pages():
    at = open_page("pages/trace_lab.py", on=False)
    assert not options_of(at)
    at.sidebar.toggle(key="w_" + presenter.STATE_KEY).set_value(True).run()
    assert at.session_state[presenter.STATE_KEY] is True
    assert len(options_of(at)) == 2
    at.switch_page("pages/worked_example.py").run()
    assert at.session_state[presenter.STATE_KEY] is True and at.sidebar.toggle[0].value is True
    assert figure(at, 0)["layout"]["legend"]["font"]["size"] >= 18


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_labs_options_fold_into_expanders_and_the_run_button_stays_out(lang):
    at = open_page("pages/trace_lab.py", lang)
    trace, budgets = options_of(at, lang)
    assert len(trace.tabs) == 3 and [d.key for d in trace.dataframe] == ["trace"]  # the sources and the editor
    assert [n.key for n in budgets.number_input][:2] == ["w_lab_token_budget", "w_lab_max_seqs"]
    assert len([s for s in budgets.selectbox if s.key.endswith("_batching")]) == 2  # policies A and B
    assert not any(b.key == "lab_run" for e in options_of(at, lang) for b in e.button)
    assert at.button(key="lab_run")  # the Run button and the results stay in view
    assert at.get("plotly_chart")
    fig = figure(at, 0)["layout"]
    assert fig["title"]["font"]["size"] >= 20 and fig["xaxis"]["tickfont"]["size"] >= 18


def test_the_real_models_settings_fold_into_expanders():
    at = open_page("pages/real_model.py")
    folded = options_of(at)
    assert len(folded) == 4  # the device, the trace, the budgets and the fleet
    keys = {w.key for e in folded for w in (*e.radio, *e.number_input, *e.selectbox)}
    assert {"w_rm_dtype", "w_rm_arrivals", "w_rm_source", "w_rm_prompt_seed", "w_rm_budget", "w_rm_max_seqs",
            "w_rm_first", "w_rm_fleet_layout", "w_rm_fleet_prefill", "w_rm_fleet_decode"} <= keys
    assert at.button(key="rm_run")


def test_off_no_options_expander_and_the_same_widgets():
    on, off = open_page("pages/trace_lab.py"), open_page("pages/trace_lab.py", on=False)
    assert not options_of(off)
    assert [w.key for w in off.number_input] == [w.key for w in on.number_input]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_on_a_projector_the_labs_tables_keep_their_long_cells_whole(lang):
    """The shared-prefix preset's tables have their longest texts below the rows a grid sizes a column by (a
    hash_ids list in row 18, the prefix cache's hit rate in row 25, a TTFT of over a second in row 45): on a
    projector too they get their widths, grown with the text (cut_cells, checked after every run by the
    conftest's whole_cells, names any left cut)."""
    from ui.presets import PRESETS
    from ui.scenario import Scenario, encode
    preset = PRESETS["shared_prefix"]
    at = AppTest.from_file(APP, default_timeout=120)
    at.session_state["lang"] = lang
    at.session_state[presenter.STATE_KEY] = True
    at.run()
    at.switch_page("pages/trace_lab.py")
    at.query_params["s"] = encode(Scenario(preset.build(), preset.config, preset.policy_a, preset.policy_b))
    at.run()
    assert not at.exception and len(at.dataframe) >= 3 and not cut_cells(at)
    widths = [w for d in at.dataframe for w in (c.get("width") for c in json.loads(d.proto.columns).values()
                                                if c) if isinstance(w, int)]
    assert widths  # (without them, the grid would cut those cells)
    # too wide for a projector's page with a column of verdicts: each follows the change it judges
    overall = next(d.value for d in at.dataframe if STRINGS["col_metric"][lang] in d.value.columns)
    assert STRINGS["col_verdict"][lang] not in overall.columns
    assert overall[STRINGS["col_change"][lang]].str.endswith(("✅", "🔻")).any()


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_page_runs_in_presenter_mode(page, lang):
    at = open_page(page, lang)
    assert not at.exception, at.exception
    assert at.sidebar.toggle[0].value is True
    for i in range(len(at.get("plotly_chart"))):
        layout = figure(at, i)["layout"]
        assert layout["legend"]["font"]["size"] >= 18 and layout["font"]["size"] >= 18


TIMEOUT_MS = 30_000
# A real browser: the sizes Chromium draws (the grids draw on a canvas, so their font is read off its theme).
FONT_PX = """(sel) => Array.from(document.querySelectorAll(sel)).map(e => parseFloat(getComputedStyle(e).fontSize))"""
GRID_FONT_PX = """() => Array.from(document.querySelectorAll('[data-testid=stDataFrame] [style*="--gdg-base-font"]'))
  .map(e => parseFloat(getComputedStyle(e).getPropertyValue('--gdg-base-font-style').match(/([\\d.]+)px/)[1]))"""
# Each canvas remembers the fonts it drew text in, which is what a student sees in a grid.
RECORD_CANVAS_FONTS = """
const fillText = CanvasRenderingContext2D.prototype.fillText;
CanvasRenderingContext2D.prototype.fillText = function (...args) {
  const fonts = new Set((this.canvas.dataset.fonts || '').split('|').filter(Boolean));
  fonts.add(this.font);
  this.canvas.dataset.fonts = [...fonts].join('|');
  return fillText.apply(this, args);
};"""
CANVAS_FONT_PX = """() => Array.from(document.querySelectorAll('[data-testid=stDataFrame] canvas'))
  .flatMap(c => (c.dataset.fonts || '').split('|').filter(Boolean)).map(f => parseFloat(f.match(/([\\d.]+)px/)[1]))"""


@pytest.fixture
def chromium(server, browser):
    """The session's app server and Chromium (tests/conftest.py)."""
    return server, browser, pytest.importorskip("playwright.sync_api").expect


def settled(page) -> None:
    page.wait_for_selector('[data-testid="stApp"][data-test-connection-state="CONNECTED"]')
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]')
    page.wait_for_function("() => !document.querySelector('[data-stale=\"true\"]')")


def test_the_switch_makes_text_grids_and_legends_projector_sized(chromium):
    base, browser, expect = chromium
    context = browser.new_context(viewport={"width": 1400, "height": 900}, locale="en-US")
    context.set_default_timeout(TIMEOUT_MS)
    context.add_init_script(RECORD_CANVAS_FONTS)
    page = context.new_page()
    try:
        page.goto(base + "/trace_lab")
        settled(page)
        expect(page.locator("[data-testid=stPlotlyChart] .legendtext").first).to_be_visible(timeout=TIMEOUT_MS)
        assert min(page.evaluate(FONT_PX, "[data-testid=stMarkdownContainer] p")) < 18  # not yet
        page.get_by_test_id("stSidebar").get_by_text("Presenter mode", exact=True).click()
        settled(page)
        folded = page.get_by_test_id("stMain").locator("summary").get_by_text(
            re.compile(r"^(1 · Trace|2 · Budgets and policies)$"))
        expect(folded).to_have_count(2, timeout=TIMEOUT_MS)
        expect(page.locator(".st-key-w_lab_token_budget")).to_be_hidden(timeout=TIMEOUT_MS)  # folded away
        for selector in ("[data-testid=stMarkdownContainer] p", "[data-testid=stCaptionContainer]",
                         "[data-testid=stWidgetLabel] p", "[data-testid=stMetricValue]"):
            sizes = page.evaluate(FONT_PX, selector)
            assert sizes and min(sizes) >= 18, (selector, sizes)
        page.get_by_test_id("stDataFrame").first.scroll_into_view_if_needed()
        page.wait_for_function(f"() => ({CANVAS_FONT_PX})().length > 0")  # a grid has drawn its text
        grids, canvases = page.evaluate(GRID_FONT_PX), page.evaluate(CANVAS_FONT_PX)
        assert grids and min(grids) >= 18, grids
        assert canvases and min(canvases) >= 18, canvases
        legend = page.locator("[data-testid=stPlotlyChart] .legendtext").first
        expect(legend).to_be_visible(timeout=TIMEOUT_MS)
        sizes = page.evaluate(FONT_PX, "[data-testid=stPlotlyChart] :is(.legendtext, .xtick text, .ytick text)")
        assert sizes and min(sizes) >= 18, sizes
    finally:
        context.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_on_a_projector_the_capacity_labs_table_leaves_the_idle_budget_to_the_csv_and_says_so(lang):
    """Its longest label ("chunked prefill") takes its room at the projector's font: the sixth column goes, named
    under the table; plain, the table keeps all six."""
    from ui.i18n import speaking, t
    with speaking(lang):
        idle, left = t("sw_idle_pct"), t("sw_idle_left")
    for on in (False, True):
        at = open_page("pages/capacity_lab.py", lang, on)
        assert (idle in at.dataframe[-1].value.columns) is not on
        assert any(c.value == left for c in at.caption) is on
