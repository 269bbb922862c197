"""The Many servers page (ui/fleet.py): what its stories claim holds in its runs, every figure is the runs', and
its Gantt charts draw each replica and the KV transfers."""
import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ui import fleet
from ui.i18n import speaking
from ui.numbers import duration, share
from ui.strings import STRINGS

APP = str(Path(__file__).resolve().parents[1] / "classroom.py")


@pytest.fixture(scope="module")
def made():
    return fleet.runs()


def test_what_the_routing_story_says_holds(made):
    routing = made["routing"]
    rr, lr, affinity = routing["chats"]
    assert affinity.metrics.prefix_hit_rate > max(rr.metrics.prefix_hit_rate, lr.metrics.prefix_hit_rate)
    assert affinity.metrics.percentiles["ttft"][50] < rr.metrics.percentiles["ttft"][50]  # "falls from ... to"
    hot_rr, hot_lr, hot_affinity = routing["hot"]
    assert hot_affinity.metrics.percentiles["ttft"][99] > 10 * hot_lr.metrics.percentiles["ttft"][99]  # the hot spot
    assert fleet.busiest(hot_affinity) > fleet.busiest(hot_lr)
    assert all(len(f.parts) == fleet.REPLICAS for f in routing["chats"] + routing["hot"])


def test_what_the_split_story_says_holds(made):
    sweep = made["split"]["sweep"]
    colocated, fast, slow = (fleet.knee(sweep, i) for i in range(3))
    assert fast is not None and colocated is not None and fast > colocated  # the split serves more within SLO
    assert slow is None or slow < colocated  # a slow link costs it its lead
    at = fast
    assert sweep[at][1].metrics.percentiles["tpot"][90] < sweep[at][0].metrics.percentiles["tpot"][90]
    assert sweep[at][1].metrics.percentiles["ttft"][90] > sweep[at][0].metrics.percentiles["ttft"][90]  # "grows"
    # every variant at every rate served the same arrivals
    for fleets in sweep.values():
        assert len({tuple(r.arrival for r in f.metrics.requests) for f in fleets}) == 1


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_page_shows_the_runs_figures(made, lang):
    at = AppTest.from_file(APP, default_timeout=120)
    at.session_state["lang"] = lang
    at.run()
    at.switch_page("pages/many_servers.py").run()
    assert not at.exception, at.exception
    assert len(at.get("plotly_chart")) == 6  # two bars and two Gantt charts, goodput against load and one Gantt chart
    routing, split = at.dataframe[0].value, at.dataframe[1].value
    chats = made["routing"]["chats"]
    with speaking(lang):
        hits = [share(f.metrics.prefix_hit_rate) for f in chats]
        ttft = duration(chats[2].metrics.percentiles["ttft"][50])
    assert list(routing.iloc[0, 1:]) == hits
    text = "\n".join(m.value for m in at.markdown)
    assert ttft in text and hits[2] in text
    knee = fleet.knee(made["split"]["sweep"], 1)
    assert STRINGS["fleet_rate"][lang].format(rate=knee) == split.iloc[0, 2]
    assert len(at.get("download_button")) == 2


def test_the_split_gantt_draws_each_transfer_between_the_replicas(made):
    small = made["split"]["small"]
    figure = json.loads(fleet.fleet_gantt(small, "t").to_json())
    labels = [note["text"] for note in figure["layout"]["annotations"]]
    assert labels[:3] == [STRINGS["fleet_panel_prefill"]["en"].format(index=0), STRINGS["fleet_panel_transfers"]["en"],
                          STRINGS["fleet_panel_decode"]["en"].format(index=1)]
    bars = next(trace for trace in figure["data"] if trace["name"] == STRINGS["legend_transfer"]["en"])
    moved = [m for m in small.split.transfers if m is not None]
    assert bars["base"] == [m.start for m in moved] and bars["x"] == pytest.approx([m.end - m.start for m in moved])


def test_the_routing_gantts_share_one_time_axis(made):
    """The routers' Gantt charts are read one against the other: each draws the same span, with the same ticks."""
    with speaking("en"):
        pictures = fleet.routing_lesson(made["routing"]).charts[2:]
    ranges = [tuple(json.loads(p.to_json())["layout"]["xaxis"]["range"]) for p in pictures]
    assert len(pictures) >= 2 and len(set(ranges)) == 1
    assert ranges[0][1] >= max(s.makespan for f in made["routing"]["small"] for s, _, _ in f.parts)
