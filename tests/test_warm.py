"""The server's warm-up (ui/warm.py, run by app.py before the first session): afterwards no page's first visit, in
either language, simulates, sweeps or loads the model; one sweep serves both languages, each with its own labels; and
text made outside a session is in the language asked."""
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ui import capacity, costs, fleet, presenter, real_model, runs, warm
from ui.i18n import LANGUAGES, language, speaking, t
from ui.strings import STRINGS

APP = str(Path(__file__).resolve().parents[1] / "classroom.py")
PAGES = sorted(f"pages/{path.name}" for path in (Path(APP).parent / "pages").glob("*.py"))


@pytest.fixture(scope="module")
def warmed():
    warm.warm()


def computed(*args, **kwargs):
    raise AssertionError("a first visit computed what the server's warm-up should have")


@pytest.mark.parametrize("presenting", [False, True], ids=["plain", "presenter"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_after_the_warm_up_no_first_visit_computes_what_every_visitor_sees(warmed, lang, presenting, monkeypatch):
    # The work behind each cached function the pages call on a first visit, reached only on a cache miss.
    monkeypatch.setattr(runs, "simulate", computed)  # home, worked example, metrics guide, trace lab
    monkeypatch.setattr(runs, "draw_story", computed)  # the worked example's story, in each language and mode
    monkeypatch.setattr(costs, "interference", computed)  # What it costs: the first of its lessons' runs,
    monkeypatch.setattr(costs, "interference_lesson", computed)  # and of the lessons made from them in a language
    monkeypatch.setattr(capacity, "sweep", computed)  # the capacity lab's default sweep
    monkeypatch.setattr(fleet, "routing_runs", computed)  # Many servers: the runs, and the lessons made of them
    monkeypatch.setattr(fleet, "routing_lesson", computed)
    monkeypatch.setattr(real_model, "load_model", computed)  # the real model's page
    for page in PAGES:
        at = AppTest.from_file(APP, default_timeout=60)
        at.session_state["lang"] = lang
        at.session_state[presenter.STATE_KEY] = presenting
        at.run()
        at.switch_page(page).run()
        assert not at.exception, f"{page}: {at.exception}"


def test_one_sweep_serves_both_languages_each_with_its_own_labels(warmed, monkeypatch):
    monkeypatch.setattr(capacity, "sweep", computed)
    labels = {}
    for lang in LANGUAGES:
        with speaking(lang):
            trace, chosen, parameter, values = capacity.first_sweep()
            rows = capacity.run_sweep(trace, chosen, parameter, values, progress=computed)
            labels[lang] = [row["policy"] for row in rows]
            assert set(labels[lang]) == {entry.label for entry in chosen}
    assert labels["en"] != labels["zh"]


def test_text_made_outside_a_session_is_in_the_language_spoken():
    english = t("nav_home")
    with speaking("zh"):
        assert language() == "zh" and t("nav_home") == STRINGS["nav_home"]["zh"] != english
    assert language() == "en" and t("nav_home") == english
