"""The worked example's story: what is known at each time and the rules said while they apply (ui/story.py), and
the figure whose frames the browser plays, every panel at the frame's time (ui/story_figure.py)."""
import json

import plotly.graph_objects as go
import plotly.io
import pytest

from sim.core.config import Config
from sim.core.engine import simulate
from sim.report.metrics import compute
from sim.trace.trace import SEED_BUDGET
from tests.conftest import SEED_ROWS, make_trace
from ui import presenter, story, story_figure, wrap
from ui.i18n import speaking


@pytest.fixture(scope="module")
def runs() -> list[story.Run]:
    trace = make_trace(*SEED_ROWS)
    schedules = [simulate(trace, Config(SEED_BUDGET), policy) for policy in ("static", "continuous")]
    return [story.Run(s.policy, s, compute(s)) for s in schedules]


@pytest.fixture(scope="module")
def figure(runs) -> dict:
    return json.loads(plotly.io.to_json(story_figure.story_figure(runs), validate=False))


def cell(rows: list[list[str]], request: str, policy: str, column: str) -> str:
    index = {"queue": 2, "TTFT": 3, "TPOT": 4, "E2E": 5}[column]
    return next(row[index] for row in rows if row[:2] == [request, policy])


def test_at_time_3_nobody_knows_cs_ttft_and_at_the_end_everyone_does(runs):
    at_3 = story.request_rows(runs, 3)
    assert [row[:2] for row in at_3] == [[name, policy] for name in "ABC" for policy in ("static", "continuous")]
    assert cell(at_3, "C", "static", "TTFT") == story.PENDING and cell(at_3, "C", "continuous", "TTFT") == story.PENDING
    assert cell(at_3, "B", "static", "E2E") == "3"  # B finished at 3 under both
    assert cell(at_3, "A", "static", "TTFT") == "2" and cell(at_3, "A", "static", "TPOT") == story.PENDING
    at_end = story.request_rows(runs, 11)
    assert [cell(at_end, "C", policy, "TTFT") for policy in ("static", "continuous")] == ["5", "2"]
    assert story.PENDING not in {value for row in at_end for value in row}


def test_each_figure_appears_the_moment_it_is_known(runs):
    static = runs[0].metrics.requests[2]  # C under static: waits 3, first token at 8, done at 11
    assert story.known_at(3, static)["queue_time"] is None  # still waiting at 3
    assert story.known_at(6, static)["queue_time"] is None  # admitted at 6: its first tick has not run yet
    assert story.known_at(7, static)["queue_time"] == 3
    assert story.known_at(7.9, static)["ttft"] is None and story.known_at(8, static)["ttft"] == 5
    assert story.known_at(10, static)["e2e"] is None and story.known_at(11, static)["e2e"] == 8


def test_overall_figures_wait_for_their_run_to_end_and_read_as_every_page_reads_them(runs):
    at_8 = {row[0]: row[1:] for row in story.overall_rows(runs, 8)}
    assert at_8["makespan (ticks)"] == [story.PENDING, "8"]  # continuous is over at 8, static is not
    at_11 = {row[0]: row[1:] for row in story.overall_rows(runs, 11)}
    assert at_11["throughput (tokens a tick)"] == ["1", "1.38"]  # ui.numbers: three significant digits
    assert at_11["budget used"] == ["22.7%", "31.3%"]


def test_the_rule_that_explains_cs_wait_stays_while_it_applies(runs):
    static, continuous = runs
    closed = "C waits: a static batch is closed until its longest member finishes."
    # C arrives at 3 and waits through ticks 3, 4 and 5 (shown at times 4, 5 and 6); it starts at tick 6
    assert [closed in story.told(static, now)[1] for now in range(12)] == [now in (4, 5, 6) for now in range(12)]
    sentence, why = story.told(static, 7)
    assert sentence.startswith("t=6: C is admitted") and any("a new static batch starts only" in w for w in why)
    sentence, why = story.told(continuous, 4)
    assert sentence == "t=3: A decodes 1 token; C is admitted and prefills 3 tokens; 4 of 8 budget idle"
    assert why == ["C joins at once: continuous batching admits at every iteration, into the budget the decoders "
                   "leave."]


def test_every_time_has_words_for_both_runs(runs):
    for run in runs:
        start, rule = story.told(run, 0)
        assert start.startswith("Time 0: nothing has run yet") and rule  # the policy's rule, before anything runs
        assert all(story.told(run, now)[1] for now in range(12))  # never a box without its rules
        assert story.told(run, run.end + 1)[0] == f"t={run.end}: every request is done; the run is over."


def test_the_summary_waits_for_both_runs_and_takes_its_figures_from_them(runs):
    assert story.takeaway(runs, 10).startswith("The summary waits")
    assert story.takeaway(runs, 11) == (
        "Static batching: makespan 11 ticks, padding waste 5 token-work, throughput 1 token a tick, C's TTFT 5 "
        "ticks. Continuous batching: makespan 8 ticks, padding waste 0 token-work, throughput 1.38 tokens a tick, "
        "C's TTFT 2 ticks. Every TPOT is 1 tick a token.")
    with speaking("zh"):  # (no space after a Chinese full stop)
        summary = story.takeaway(runs, 11)
    assert summary.count("。") == 3 and "。 " not in summary and summary.startswith("静态批处理：")


def notes(frame: dict, name: str) -> list[str]:
    return [a["text"] for a in frame["layout"]["annotations"] if a.get("name") == name]


def test_a_frame_a_time_each_changing_the_layout_only(figure):
    """Frames never touch a trace: Plotly draws a frame's traces, and the shapes and notes on an axis, a task
    before the rest of it, so a frame that changed both kinds would show torn."""
    frames = figure["frames"]
    assert [f["name"] for f in frames] == [str(now) for now in range(12)]
    assert all(not f.get("data") and not f.get("traces") for f in frames)
    assert [step["args"][0] for step in figure["layout"]["sliders"][0]["steps"]] == [[f["name"]] for f in frames]
    for f in frames:
        still = [a for a in f["layout"]["annotations"] if a["xref"] == "paper"]
        assert still == [a for a in frames[0]["layout"]["annotations"] if a["xref"] == "paper"]  # what stays, stays
        moving = [a for a in f["layout"]["annotations"] if a["xref"] != "paper"]
        assert all(a["xref"].startswith("x") and a["yref"].startswith("y") for a in moving)  # on an axis: at once
    assert figure["layout"]["annotations"] == frames[0]["layout"]["annotations"]  # the page opens at time 0


def test_each_frame_moves_every_panel_to_its_time(figure):
    for f in figure["frames"]:
        now = int(f["name"])
        curtains = [s for s in f["layout"]["shapes"] if s["type"] == "rect" and s["xref"] != "paper"]
        assert [(s["x0"], s["fillcolor"], s["layer"]) for s in curtains] == [(now, "white", "above")] * 4
        assert len({s["xref"] for s in curtains}) == 4  # both Gantt charts and both budget charts
        lines = [s["x0"] for s in f["layout"]["shapes"] if s["type"] == "line" and "domain" not in s["xref"]]
        assert lines == [now] * 4
        titles = [a["text"] for a in f["layout"]["annotations"]]
        assert f"<b>Static batching · time {now}</b>" in titles
        assert f"<b>Per request at time {now} (ticks)</b>" in titles
        sentence = notes(f, "narration0")[0].replace("<br>", " ")
        assert sentence.startswith("<b>Time 0" if now == 0 else f"<b>t={now - 1}:")
        c_ttft = [line for line in notes(f, "table")[1].split("<br>") if line][4:]  # the TTFT column: C's two rows
        # C's first token is out at 5 under continuous batching, at 8 under static
        assert c_ttft == [story.PENDING if now < 8 else "5", story.PENDING if now < 5 else "2"]


def test_the_step_buttons_of_each_frame_go_to_its_neighbours_and_play_leaves_the_speed_alone(figure):
    for f in figure["frames"]:
        now = int(f["name"])
        play, steps = f["layout"]["updatemenus"]
        assert play == {}  # a frame keeps the Play button (and the speed set on it) as it is
        assert [b["args"][0] for b in steps["buttons"]] == [["0"], [str(max(0, now - 1))], [str(min(11, now + 1))]]
    play, _, speed = figure["layout"]["updatemenus"]
    assert [b["method"] for b in play["buttons"]] == ["animate", "animate"]
    assert play["buttons"][0]["args"][0] is None and play["buttons"][0]["args"][1]["fromcurrent"]
    durations = [b["args"][0]["updatemenus[0].buttons[0].args[1].frame.duration"] for b in speed["buttons"]]
    assert durations == [1000 / s for s in story_figure.SPEEDS]


def test_the_figure_passes_plotly_validation_frames_and_all(runs):
    shown = story_figure.story_figure(runs)
    go.Figure(shown.to_dict())  # raises on a bad key


@pytest.mark.parametrize("presenting", [False, True])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_words_of_every_frame_fit_their_boxes_at_the_narrowest_width(runs, monkeypatch, lang, presenting):
    """By the estimate in ui/wrap.py (the browser test measures the drawn words): no line of a narration is wider
    than its column, and the tallest frame's narration fits its band."""
    monkeypatch.setattr("ui.i18n.language", lambda: lang)
    monkeypatch.setattr(presenter, "on", lambda: presenting)
    sizes = story_figure.Sizes.for_mode()
    column = sizes.width(story_figure.COLUMNS[0][1] - story_figure.COLUMNS[0][0])
    fig = json.loads(plotly.io.to_json(story_figure.story_figure(runs), validate=False))
    box = next(s for s in fig["layout"]["shapes"] if s.get("name") == "narration0")
    plot = fig["layout"]["height"] - story_figure.MARGIN["t"] - story_figure.MARGIN["b"]
    for f in fig["frames"]:
        for i in (0, 1):
            sentence, why = notes(f, f"narration{i}")
            lines = sentence.split("<br>") + why.split("<br>")
            assert all(wrap.em(line) * sizes.font * (wrap.BOLD if line is lines[0] else 1) <= column for line in lines)
            assert len(lines) * sizes.line + 3 * story_figure.PAD <= (box["y1"] - box["y0"]) * plot + 1
