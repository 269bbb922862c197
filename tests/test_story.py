"""The worked example's story (ui/story.py): what is known at each time, the rules said once, the play."""
import pytest

from sim.core.config import Config
from sim.core.engine import simulate
from sim.report.metrics import compute
from sim.trace.trace import SEED_BUDGET
from tests.conftest import SEED_ROWS, make_trace
from ui import story


@pytest.fixture(scope="module")
def runs() -> list[story.Run]:
    trace = make_trace(*SEED_ROWS)
    schedules = [simulate(trace, Config(SEED_BUDGET), policy) for policy in ("static", "continuous")]
    return [story.Run(s.policy, s, compute(s)) for s in schedules]


def cell(table, request: str, label: str, column: str) -> str:
    """The cell of `request` under policy `label` (A or B) in `column`."""
    return table.set_index(["request", "policy"]).loc[(request, label), column]


def test_at_time_3_nobody_knows_cs_ttft_and_at_the_end_everyone_does(runs):
    at_3 = story.request_table(runs, 3)
    assert list(at_3["request"]) == ["A", "A", "B", "B", "C", "C"] and list(at_3["policy"]) == ["A", "B"] * 3
    assert cell(at_3, "C", "A", "TTFT") == story.PENDING and cell(at_3, "C", "B", "TTFT") == story.PENDING
    assert cell(at_3, "B", "A", "E2E") == "3"  # B finished at 3 under both
    assert cell(at_3, "A", "A", "TTFT") == "2" and cell(at_3, "A", "A", "TPOT") == story.PENDING
    at_end = story.request_table(runs, 11)
    assert [cell(at_end, "C", label, "TTFT") for label in "AB"] == ["5", "2"]
    assert story.PENDING not in at_end.to_numpy()


def test_each_figure_appears_the_moment_it_is_known(runs):
    static = runs[0].metrics.requests[2]  # C under static: waits 3, first token at 8, done at 11
    assert story.known_at(3, static)["queue_time"] is None  # still waiting at 3
    assert story.known_at(6, static)["queue_time"] is None  # admitted at 6: its first tick has not run yet
    assert story.known_at(7, static)["queue_time"] == 3
    assert story.known_at(7.9, static)["ttft"] is None and story.known_at(8, static)["ttft"] == 5
    assert story.known_at(10, static)["e2e"] is None and story.known_at(11, static)["e2e"] == 8


def test_overall_figures_wait_for_their_run_to_end(runs):
    at_8 = story.overall_table(runs, 8).set_index("metric")
    assert list(at_8.loc["makespan (ticks)"]) == [story.PENDING, "8"]  # continuous is over at 8, static is not
    at_11 = story.overall_table(runs, 11).set_index("metric")
    assert list(at_11.loc["throughput (tokens a tick)"]) == ["1", "1.375"]
    assert list(at_11.loc["budget used"]) == ["22.7%", "31.2%"]


def test_each_rule_is_said_the_first_time_it_applies(runs):
    lines = story.sentences(runs[0], 11)
    closed = ": a static batch is closed until its longest member finishes"
    assert closed in lines[3] and "C arrives and waits" in lines[3]
    assert [closed in line for line in lines].count(True) == 1
    assert lines[6].startswith("t=6: C is admitted") and "a new static batch starts only" in lines[6]
    assert "continuous batching admits at every iteration" in story.sentences(runs[1], 4)[3]


def test_the_narration_highlights_the_latest_tick_and_folds_all_but_the_last_four(runs):
    assert story.narration(runs[1], 0) == ("", "Time 0: nothing has run yet. Press Play, or step forward.")
    earlier, recent = story.narration(runs[1], 3)
    assert earlier == "" and len(recent.splitlines()) == 3 and recent.splitlines()[-1].startswith(
        "- :blue-background[**t=2:")
    earlier, recent = story.narration(runs[1], 11)
    assert [line[:5] for line in earlier.splitlines()] == ["- t=0", "- t=1", "- t=2", "- t=3", "- t=4"]
    assert recent.splitlines() == ["- " + line for line in story.sentences(runs[1], 11)[5:]] + [
        "- :blue-background[**t=8: every request is done; the run is over.**]"]


def test_a_play_shows_each_time_to_the_end_at_its_speed_then_stops(monkeypatch):
    state, slept = {}, []
    monkeypatch.setattr(story.st, "session_state", state)
    story.init()
    assert state == {story.TICK: 0, story.PLAYING: False, story.SPEED: 1.0}
    state[story.TICK], state[story.SPEED] = 8, 4.0
    story.play(11)
    assert list(story.playing(11, slept.append)) == [8, 9, 10, 11] and slept == [0.25] * 3
    assert state[story.TICK] == 11 and not state[story.PLAYING]
    story.play(11)  # Play at the end starts again from time 0
    assert state[story.TICK] == 0 and state[story.PLAYING]
    shown = story.playing(11, slept.append)
    assert [next(shown), next(shown)] == [0, 1]  # a click ends the page's run here: the time stays at 1
    assert state[story.TICK] == 1
    story.pause()
    story.pause()  # twice is still paused
    assert not state[story.PLAYING]
    story.step(5, 11)
    assert state[story.TICK] == 6
    story.play(11)
    story.step(-20, 11)  # a step pauses
    assert state[story.TICK] == 0 and not state[story.PLAYING]
