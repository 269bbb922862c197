"""The server's warm-up (ui/warm.py, run by app.py before the first session): afterwards no page's first visit, in
either language, simulates, sweeps or loads the model; and text made outside a session is in the language asked."""
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ui import capacity, costs, real_model, runs, warm
from ui.i18n import language, speaking, t
from ui.strings import STRINGS

APP = str(Path(__file__).resolve().parents[1] / "classroom.py")
PAGES = sorted(f"pages/{path.name}" for path in (Path(APP).parent / "pages").glob("*.py"))


@pytest.fixture(scope="module")
def warmed():
    warm.warm()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_after_the_warm_up_no_first_visit_computes_what_every_visitor_sees(warmed, lang, monkeypatch):
    def computed(*args, **kwargs):
        raise AssertionError("a first visit computed what the server's warm-up should have")

    # The work behind each cached function the pages call on a first visit, reached only on a cache miss.
    monkeypatch.setattr(runs, "simulate", computed)  # home, worked example, metrics guide, trace lab
    monkeypatch.setattr(costs, "interference", computed)  # What it costs (the first of its lessons' runs)
    monkeypatch.setattr(capacity, "sweep", computed)  # the capacity lab's default sweep
    monkeypatch.setattr(real_model, "load_model", computed)  # the real model's page
    for page in PAGES:
        at = AppTest.from_file(APP, default_timeout=60)
        at.session_state["lang"] = lang
        at.run()
        at.switch_page(page).run()
        assert not at.exception, f"{page}: {at.exception}"


def test_text_made_outside_a_session_is_in_the_language_spoken():
    english = t("nav_home")
    with speaking("zh"):
        assert language() == "zh" and t("nav_home") == STRINGS["nav_home"]["zh"] != english
    assert language() == "en" and t("nav_home") == english
