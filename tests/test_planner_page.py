"""Plan a fleet (pages/planner.py, ui/planner.py): the default plan's answer in words and its chart, prices,
bad choices named, and the trace lab's requests planned for."""
import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ui.strings import STRINGS

APP = str(Path(__file__).resolve().parents[1] / "classroom.py")


def open_planner(lang: str = "en") -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.session_state["lang"] = lang
    at.run()
    return at.switch_page("pages/planner.py").run()


def words(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_default_plan_says_the_cheapest_fleet_and_draws_every_one(lang):
    at = open_planner(lang)
    assert not at.exception, at.exception
    from ui.planner import PlannerState, plan
    state = PlannerState()
    found = plan(state.trace(), state.ask(), state.config(), lambda n: None)  # (the page's, from the cache)
    best = found.cheapest
    assert best is not None
    gpus = {"en": "GPU" if best["gpus"] == 1 else "GPUs", "zh": "块 GPU"}[lang]
    said = {"en": f"Cheapest within the SLO: {best['replicas']} × {best['hardware']} (TP {best['tp']}): "
                  f"{best['gpus']} {gpus}",
            "zh": f"满足 SLO 的最便宜方案：{best['replicas']} × {best['hardware']} (TP {best['tp']})："
                  f"{best['gpus']} {gpus}"}[lang]
    assert said in words(at)
    figure = json.loads(at.get("plotly_chart")[0].proto.spec)
    markers = [trace for trace in figure["data"] if trace["mode"] == "markers"]
    assert sum(len(trace["x"]) for trace in markers) == len([r for r in found.rows if not r["error"]])
    assert len(at.dataframe[0].value) == len(found.rows)


def test_priced_gpus_cost_dollars_and_the_cheapest_moves_with_the_prices():
    at = open_planner()
    at.toggle(key="w_pl_priced").set_value(True).run()
    at.number_input(key="w_pl_price_H100").set_value(100.0).run()
    at.button(key="pl_run").click().run()
    assert not at.exception
    text = words(at)
    assert "$" in text and "× H100" not in text.split("Cheapest within the SLO:")[1].split("**")[0]
    figure = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert figure["layout"]["xaxis"]["title"]["text"] == "cost ($ an hour)"
    # the table's cost column is the dollars, so its fleets leave their GPU count out (a 1024 px page holds no more)
    shown = at.dataframe[0].value
    found = at.session_state["planner"].shown[1]
    assert list(shown.columns) == ["fleet", "cost", "within SLO", "goodput (req/s)", "p90 TTFT / TPOT (ms)"]
    assert list(shown["fleet"]) == [f"{r['replicas']} × {r['hardware']} (TP {r['tp']})" for r in found.rows]
    assert shown["cost"][0] == f"${found.rows[0]['cost']:g}/h"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_on_a_projector_the_table_leaves_the_p90s_to_the_download(lang):
    """At 18 px a 1024 px page holds the fleet, its share within the SLO and its goodput, not the p90s too."""
    from ui import presenter
    from ui.strings import STRINGS
    at = AppTest.from_file(APP, default_timeout=120)
    at.session_state["lang"] = lang
    at.session_state[presenter.STATE_KEY] = True
    at.run()
    at.switch_page("pages/planner.py").run()
    assert not at.exception, at.exception
    columns = [STRINGS[key][lang] for key in ("pl_col_fleet", "pl_col_attainment", "pl_col_goodput")]
    assert list(at.dataframe[0].value.columns) == columns
    from ui.planner import plan_csv
    assert "ttft_p90" in plan_csv(at.session_state["planner"].shown[1]).splitlines()[0]


def test_no_gpu_chosen_is_named_and_nothing_runs():
    at = open_planner()
    at.multiselect(key="w_pl_gpus").set_value([]).run()
    assert not at.exception
    assert [e.value for e in at.error] == ["Choose at least one GPU to try."]
    assert at.button(key="pl_run").disabled


def test_the_choices_and_a_stale_plan_speak_the_pages_language_and_name_its_button():
    """An empty multiselect says what to choose in the page's language (not Streamlit's "Choose options"), and
    after an input changes the page says to press its own button (it once named the capacity lab's Run the sweep).
    (The switch to Chinese comes last: AppTest formats a radio's choice outside the page, in English.)"""
    at = open_planner()
    at.number_input(key="w_pl_rate").set_value(21.0).run()
    for lang in ("en", "zh"):
        if lang == "zh":
            at.sidebar.radio[0].set_value("zh").run()
        assert not at.exception
        assert {m.proto.placeholder for m in at.multiselect} == {STRINGS["pl_pick"][lang],
                                                                 STRINGS["pl_splits_none"][lang]}
        assert [w.value for w in at.warning] == [STRINGS["pl_stale"][lang]]
        assert STRINGS["pl_run"][lang] in STRINGS["pl_stale"][lang]


def test_a_model_too_big_for_the_gpus_is_said_per_family():
    at = open_planner()
    at.selectbox(key="w_pl_model").set_value("Llama-3.1-70B").run()
    at.multiselect(key="w_pl_gpus").set_value(["L4"]).run()
    at.button(key="pl_run").click().run()
    assert not at.exception
    assert any("L4 x1 budget 4096 cannot run" in w.value for w in at.warning)
    assert "No fleet tried keeps 90%" in words(at)


def test_splits_are_tried_and_said_in_words():
    """With 1:2 splits tried on single L4s, the cheapest fleet is a split (side by side never keeps the TPOT)."""
    at = open_planner()
    at.multiselect(key="w_pl_gpus").set_value(["L4"]).run()
    at.multiselect(key="w_pl_tps").set_value([1]).run()
    at.multiselect(key="w_pl_splits").set_value(["1:2"]).run()
    at.button(key="pl_run").click().run()
    assert not at.exception, at.exception
    found = at.session_state["planner"].shown[1]
    best = found.cheapest
    assert best["split"] == "1:2" and not any(r["keeps"] for r in found.rows if r["split"] is None)
    assert best["gpus"] == 3 * best["replicas"]
    assert f"Cheapest within the SLO: {best['replicas']} × (1:2) L4 (TP 1): {best['gpus']} GPUs" in words(at)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_fleet_column_is_wide_enough_for_every_fleet(lang):
    """A data grid sizes a column by its first rows; the default plan's longest fleet names (A100-80GB) come after
    ten L4 rows, so the fleet column's width is given: at least its longest text's estimated width."""
    at = open_planner(lang)
    assert not at.exception, at.exception
    from ui.i18n import speaking
    from ui.planner import GRID_FONT_PX, fleet_column, table
    from ui.wrap import em
    with speaking(lang):
        shown = table(at.session_state["planner"].shown[1])
        (name, column), = fleet_column(shown).items()
    texts = list(shown[name])
    longest = max(texts, key=em)
    assert "A100" in longest and texts.index(longest) >= 10  # (past the rows a grid sizes its columns by)
    assert column["width"] >= em(longest) * GRID_FONT_PX


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_beside_long_fleet_names_the_table_leaves_the_p90s_to_the_download(lang):
    """1:3 splits beside the default GPUs name fleets like "2 × (1:3) A100-80GB (TP 1): 8 GPUs": with the p90s too
    the table would scroll sideways on a 1024 px page (it did by 2-15 px, in a browser), so it shows the fleet, its
    share within the SLO and its goodput, and is estimated to fit. (Planned in English, then shown in Chinese:
    AppTest reads a radio's labels outside the page's session, in English.)"""
    from ui.i18n import speaking
    from ui.planner import plan_csv, width_px
    from ui.strings import STRINGS
    from ui.tables import fits_page
    at = open_planner()
    at.multiselect(key="w_pl_splits").set_value(["1:3"]).run()
    at.button(key="pl_run").click().run()
    if lang == "zh":
        at.sidebar.radio[0].set_value("zh").run()
    assert not at.exception, at.exception
    shown = at.dataframe[0].value
    found = at.session_state["planner"].shown[1]
    assert any(r["split"] for r in found.rows)
    assert list(shown.columns) == [STRINGS[key][lang] for key in ("pl_col_fleet", "pl_col_attainment",
                                                                  "pl_col_goodput")]
    with speaking(lang):
        assert fits_page(width_px(shown))
    assert "ttft_p90" in plan_csv(found).splitlines()[0]
