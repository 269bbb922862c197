"""The trace lab does what the user chose (issue 26): a preset loads whole, its edits and errors gone."""
from pathlib import Path

from streamlit.testing.v1 import AppTest

from ui import lab_state
from ui.presets import PRESETS

APP = str(Path(__file__).resolve().parents[1] / "classroom.py")
EDIT = {"edited_rows": {2: {"prompt": -2}}, "added_rows": [], "deleted_rows": []}


def open_lab(lang: str = "en", link: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["lang"] = lang
    at.run()
    at.switch_page("pages/trace_lab.py")
    if link:
        at.query_params["s"] = link
    return at.run()


def editor_key(at: AppTest) -> str:
    """lab_state.editor_key of the app's session (the test's own has none)."""
    restarts = at.session_state[lab_state.RESTARTS] if lab_state.RESTARTS in at.session_state else 0
    return f"{lab_state.EDITOR}_{restarts}" if restarts else lab_state.EDITOR


def editor(at: AppTest):
    return next(d for d in at.dataframe if d.proto.id.endswith("-" + editor_key(at)))


def test_loading_the_same_preset_again_drops_the_edits_and_their_errors():
    at = open_lab()
    at.session_state[lab_state.EDITOR] = EDIT
    at.run()
    assert at.error and list(at.session_state[lab_state.CURRENT]["prompt"]) == [4, 2, -2]
    before = editor(at).proto.id
    at.button(key="preset_load").click().run()  # the preset shown is the one the lab started from
    assert not at.exception and not at.error
    assert at.session_state[lab_state.CURRENT].equals(lab_state.frame(PRESETS["seed"].build()))
    # A browser keeps an editor's edits while the page draws the same editor: this one is new, with none.
    assert editor(at).proto.id != before and not any(dict(at.session_state[editor_key(at)]).values())
    at.number_input(key="w_lab_token_budget").set_value(9).run()  # the next change: the error stays away
    assert not at.error and list(at.session_state[lab_state.CURRENT]["prompt"]) == [4, 2, 3]


def test_loading_another_table_keeps_the_editors_key():
    """Only the same table needs a new editor (another one is a new widget anyway): the key stays as tests and the
    browser know it."""
    at = open_lab()
    at.session_state[lab_state.EDITOR] = EDIT
    at.run()
    at.selectbox(key="preset_choice").set_value("bursty").run()
    at.button(key="preset_load").click().run()
    assert editor_key(at) == lab_state.EDITOR and not at.error
