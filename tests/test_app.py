"""AppTest of the Streamlit app."""
from pathlib import Path

from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def test_home_shows_the_seed_figures():
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception
    table = at.dataframe[0].value
    assert table.set_index("policy").loc["static", "makespan"] == 11
    assert table.set_index("policy").loc["continuous", "throughput"] == 1.375
