"""AppTest of every page: default render, editing the lab's trace, bad input, language, share links."""
import json
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from sim.core.config import Config, Policy
from sim.trace.trace import validate
from tests.conftest import cut_cells
from ui.scenario import Scenario, encode

APP = str(Path(__file__).resolve().parents[1] / "classroom.py")  # the script app.py serves
PAGES = ("pages/home.py", "pages/worked_example.py", "pages/costs.py", "pages/trace_lab.py", "pages/capacity_lab.py",
         "pages/many_servers.py", "pages/planner.py", "pages/metrics_guide.py")


def open_page(page: str, lang: str = "en", state: dict | None = None) -> AppTest:
    """`page` opened through the app in `lang`, with the session's `state` (key: value) set before its first run."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["lang"] = lang
    for key, value in (state or {}).items():
        at.session_state[key] = value
    at.run()
    return at.switch_page(page).run()


def figure(at: AppTest, i: int) -> dict:
    return json.loads(at.get("plotly_chart")[i].proto.spec)


def text_of(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown) + "\n".join(str(d.value) for d in at.dataframe)


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_page_renders(page, lang):
    at = open_page(page, lang)
    assert not at.exception, at.exception
    assert at.get("plotly_chart"), "every page draws at least one chart"
    assert not cut_cells(at), cut_cells(at)
    assert at.title[0].value == {"en": {"pages/home.py": "The batching classroom", "pages/worked_example.py":
                                        "Worked example", "pages/trace_lab.py": "Trace lab",
                                        "pages/costs.py": "What continuous batching costs",
                                        "pages/capacity_lab.py": "Capacity lab: how much load before the SLO breaks?",
                                        "pages/many_servers.py":
                                            "Many servers: routers and prefill/decode disaggregation",
                                        "pages/planner.py": "Plan a fleet: how many GPUs does this trace need?",
                                        "pages/metrics_guide.py": "Metrics guide"},
                                 "zh": {"pages/home.py": "批处理课堂", "pages/worked_example.py": "示例推演",
                                        "pages/costs.py": "连续批处理的代价",
                                        "pages/trace_lab.py": "Trace 实验室",
                                        "pages/capacity_lab.py": "容量实验：负载多大时 SLO 开始失守？",
                                        "pages/many_servers.py": "多台服务器：路由与预填充/解码分离",
                                        "pages/planner.py": "规划集群：这条 trace 需要多少块 GPU？",
                                        "pages/metrics_guide.py": "指标指南"}}[lang][page]


def test_home_links_every_other_page():
    at = open_page("pages/home.py")
    linked = {Path(link.proto.page).stem for link in at.get("page_link")}  # the page's URL name
    assert linked == {path.stem for path in (Path(APP).parent / "pages").glob("*.py")} - {"home"}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_homes_link_to_the_cost_page_names_every_lesson(lang):
    from ui.lessons import KEYS
    from ui.strings import STRINGS
    at = open_page("pages/home.py", lang)
    label = next(link.proto.label for link in at.get("page_link") if Path(link.proto.page).stem == "costs")
    assert all(STRINGS[f"cost_{key}_topic"][lang] in label for key in KEYS), label
    assert len(at.get("plotly_chart")) == 1  # both runs on one time axis, static above continuous
    labels = [note["text"] for note in figure(at, 0)["layout"]["annotations"]]
    assert labels == [STRINGS[f"policy_{policy}"][lang] for policy in ("static", "continuous")]


def test_homes_figures_are_the_runs_in_the_one_form():
    """Continuous batching's throughput, 1.375 tokens a tick, reads 1.38 as everywhere else; 37.5% more than static."""
    at = open_page("pages/home.py")
    told = "\n".join([m.value for m in at.markdown] + [c.value for c in at.caption])
    assert "throughput 1.38 tokens/tick" in told and "1.375" not in told
    assert "comes 3 ticks sooner" in told and "tick 8 instead of 11" in told and "37.5% more tokens" in told
    assert "A=(0,4,5), B=(0,2,2), C=(3,3,4)" in told and "budget of 8 token-work" in told


def story_notes(at: AppTest, frame: int, name: str) -> list[str]:
    """The notes of the worked example's story named `name` (a narration, a table, the summary) at a frame, their
    lines joined back."""
    story = figure(at, 0)
    return [a["text"] for a in story["frames"][frame]["layout"]["annotations"] if a.get("name") == name]


def test_language_switch_in_the_sidebar():
    at = open_page("pages/worked_example.py")
    at.sidebar.radio[0].set_value("zh").run()
    assert at.title[0].value == "示例推演"
    continuous = story_notes(at, 4, "narration1")[0].replace("<br>", "")
    assert "t=3：A decode 1 个 token；C 被接纳并 prefill 3 个 token" in continuous


def test_worked_example_starts_at_time_0_and_ends_with_the_seed_figures():
    at = open_page("pages/worked_example.py")
    story = figure(at, 0)
    assert len(at.get("plotly_chart")) == 1 and [f["name"] for f in story["frames"]] == [str(n) for n in range(12)]
    columns = [[v for v in note.split("<br>") if v] for note in story_notes(at, 0, "overall")]
    assert set(columns[0] + columns[1]) == {"…"}  # nothing is known at time 0
    static, continuous = [[v for v in note.split("<br>") if v] for note in story_notes(at, 11, "overall")]
    shown = dict(zip(("makespan", "throughput", "padding_waste", "utilization", "ttft_p50", "e2e_p50"),
                     zip(static, continuous)))
    assert shown["makespan"] == ("11", "8") and shown["padding_waste"] == ("5", "0")
    assert shown["throughput"] == ("1", "1.38")
    ttft = [v for v in story_notes(at, 11, "table")[1].split("<br>") if v]  # TTFT: a row a request and policy
    assert ttft[4:] == ["5", "2"]  # C's TTFT: static, continuous
    summary = story_notes(at, 11, "summary")[0].replace("<br>", " ")
    assert "C's TTFT 5 ticks" in summary and "C's TTFT 2 ticks" in summary


def test_the_story_plays_in_the_browser_so_the_page_has_no_play_widgets():
    """Play, Pause, the steps and the clock are the figure's own: no widget of the page reruns it while it plays."""
    at = open_page("pages/worked_example.py")
    assert [b.key for b in at.button] == ["ex_open"] and not at.slider and not at.select_slider
    layout = figure(at, 0)["layout"]
    assert len(layout["sliders"][0]["steps"]) == 12 and len(layout["updatemenus"]) == 3


def test_worked_example_opens_the_lab_with_its_trace():
    at = open_page("pages/trace_lab.py")
    at.selectbox(key="w_preset_choice").set_value("bursty").run()
    at.button(key="preset_load").click().run()
    assert len(at.session_state["lab"].current) == 40
    at.switch_page("pages/worked_example.py").run()
    at.button(key="ex_open").click().run()  # sets the lab's scenario, then switches page (AppTest stays put)
    at.switch_page("pages/trace_lab.py").run()
    assert list(at.session_state["lab"].current["name"]) == ["A", "B", "C"]
    assert at.number_input(key="w_lab_token_budget").value == 8


def lab_overall(at: AppTest):
    return next(d.value for d in at.dataframe if "metric" in d.value.columns).set_index("metric")


def test_lab_default_compares_static_and_continuous():
    at = open_page("pages/trace_lab.py")
    assert not at.exception
    assert list(lab_overall(at).loc["makespan (tick)"].iloc[:2]) == [11, 8]
    assert len(at.get("plotly_chart")) == 4  # two Gantt charts and two budget charts
    assert at.query_params["s"]  # the share link is in the address bar
    assert not any(b.proto.disabled for b in at.get("download_button"))


def test_lab_edit_through_the_editor_changes_the_results():
    at = open_page("pages/trace_lab.py")
    at.session_state["trace"] = {"edited_rows": {2: {"output": 10}}, "added_rows": [], "deleted_rows": []}
    at.run()
    assert not at.exception
    assert list(lab_overall(at).loc["makespan (tick)"].iloc[:2]) == [17, 14]
    # the edit survives a page switch and a return
    at.switch_page("pages/home.py").run()
    at.switch_page("pages/trace_lab.py").run()
    assert list(at.session_state["lab"].current["output"]) == [5, 2, 10]
    assert list(lab_overall(at).loc["makespan (tick)"].iloc[:2]) == [17, 14]


def test_lab_bad_edit_names_the_row_and_keeps_the_typing():
    at = open_page("pages/trace_lab.py")
    at.session_state["trace"] = {"edited_rows": {1: {"prompt": -3}, 2: {"name": "A"}},
                                 "added_rows": [{"name": "D", "arrival": None, "prompt": 2, "output": 1}],
                                 "deleted_rows": []}
    at.run()
    assert not at.exception
    assert at.error and "need fixing" in at.error[0].value
    problems = next(d.value for d in at.dataframe if "problem" in d.value.columns)
    assert problems.values.tolist() == [[2, "B", "prompt", "must be at least 1, got -3"],
                                        [3, "A", "request", "repeats the name of row 1"],
                                        [4, "D", "arrival", "is empty"]]
    assert list(at.session_state["lab"].current["name"]) == ["A", "B", "A", "D"]  # nothing typed is lost
    assert any(b.label == "Download what is typed (CSV)" for b in at.get("download_button"))


def test_lab_typed_values_are_kept_as_typed_and_validated_like_an_upload():
    at = open_page("pages/trace_lab.py")
    at.session_state["trace"] = {"edited_rows": {0: {"name": None, "arrival": 2.5}, 1: {"output": 0}},
                                 "added_rows": [], "deleted_rows": []}
    at.run()
    assert not at.exception
    problems = next(d.value for d in at.dataframe if "problem" in d.value.columns)
    assert problems.values.tolist() == [[1, "", "request", "is empty"],
                                        [1, "", "arrival", "must be a whole number, got 2.5"],
                                        [2, "B", "output", "must be at least 1, got 0"]]
    typed = at.session_state["lab"].current
    assert list(typed["arrival"]) == [2.5, 0, 3] and list(typed["output"]) == [5, 0, 4]


def test_lab_prompt_over_budget_is_named():
    at = open_page("pages/trace_lab.py")
    at.number_input(key="w_lab_token_budget").set_value(3).run()
    assert not at.exception
    assert any("larger than the token budget" in e.value for e in at.error)
    problems = next(d.value for d in at.dataframe if "problem" in d.value.columns)
    assert sorted(problems["request"]) == ["A"]


def long_lab_run(monkeypatch, lang: str, cpu_limit: float, wall_limit: float) -> tuple[AppTest, list]:
    """The lab with C's output of 1,000,000 tokens under speculation in Policy 2: every iteration differs, none
    merge, and its run would take about 5 s alone (far longer with 64 such rows). The server's limits as given, no
    run of these inputs cached; the clock's limit of each run made (in the order made) comes with the page."""
    from sim.core.engine import simulate
    from ui import runs
    from ui.lab_state import LabSettings, LabState, frame
    monkeypatch.setattr(runs, "CPU_LIMIT_S", cpu_limit)
    monkeypatch.setattr(runs, "WALL_LIMIT_S", wall_limit)
    runs._run.clear()
    calls = []
    monkeypatch.setattr(runs, "simulate", lambda *args, **kwargs: calls.append(kwargs["wall_limit"]) or simulate(
        *args, **kwargs))
    settings = LabSettings(policy_b=Policy(spec_tokens=3, spec_accept=0.6))
    table = frame(runs.seed_trace()).assign(output=[5, 2, 1_000_000])
    at = open_page("pages/trace_lab.py", lang, {"lab": LabState(settings=settings, base=table, current=table)})
    assert not at.exception
    return at, calls


@pytest.mark.parametrize("lang, said", [("en", "The run of Policy 2 was stopped after 0.2 s of computing, at "),
                                         ("zh", "策略 2 的运行在计算 0.2 秒后被停止：此时模拟到 ")])
def test_a_run_past_the_servers_cpu_limit_is_stopped_named_and_keeps_the_inputs(monkeypatch, lang, said):
    at, calls = long_lab_run(monkeypatch, lang, cpu_limit=0.2, wall_limit=600)  # (stopped at its CPU limit)
    error = next(e.value for e in at.error if said in e.value)
    assert ("with 2 of 3 requests finished" if lang == "en" else "3 个请求中完成了 2 个") in error  # A and B
    assert "python -m sim run" in error
    assert not any("metric" in d.value.columns for d in at.dataframe)  # no results drawn from a run cut short
    assert list(at.session_state["lab"].current["output"]) == [5, 2, 1_000_000]  # what was typed stays
    if lang == "en":  # (a second run in zh trips AppTest on the preset box's translated options)
        ran = len(calls)
        at.run()  # a rerun (any widget) shows the stop again without spending the limit again
        assert any(said in e.value for e in at.error) and len(calls) == ran
        at.session_state["trace"] = {"edited_rows": {2: {"output": 4}}, "added_rows": [], "deleted_rows": []}
        at.run()
        assert not at.error and lab_overall(at).loc["makespan (tick)"].iloc[0] == 11  # Policy 1, static


@pytest.mark.parametrize("lang, said", [("en", r"The run of Policy 2 was stopped after (\S+) s of waiting: this "
                                                r"server is busy with the class"),
                                         ("zh", r"策略 2 的运行在等待 (\S+) 秒后被停止：服务器正忙于全班的请求")])
def test_a_run_past_its_wait_on_a_busy_server_is_stopped_said_and_tried_again(monkeypatch, lang, said):
    # The same long run, stopped by the clock (here 0.3 s for both runs together) before its CPU time (60 s): the
    # server was busy, so the stop is not kept, and Run tries again; a rerun of the page without Run does not (it
    # would at every widget a student touches, for up to a minute each), and says so. The page's clock moves 0.1 s
    # each time it is read: when the two runs start (0.1 s, 0.2 s), and when the page says how long it waited (0.3 s).
    import itertools
    import types

    from ui import runs
    ticks = itertools.count()
    monkeypatch.setattr(runs, "time", types.SimpleNamespace(monotonic=lambda: next(ticks) / 10))
    at, calls = long_lab_run(monkeypatch, lang, cpu_limit=60, wall_limit=0.3)
    error = next(e.value for e in at.error if re.search(said, e.value))
    assert re.search(said, error)[1] == "0.3"  # the page's wait, both runs'
    limits = [limit for limit in calls if limit is not None]  # (the lab's; the seed's pages have none)
    assert limits == pytest.approx([0.2, 0.1])  # what is left of the two runs' 0.3 s as each starts
    computed = re.search(r"(?:run had|运行计算了) (\d+(?:\.\d+)?) (?:s of computing|秒)", error)
    assert computed and 0 < float(computed[1]) < 5 and "60" in error  # (the CPU time it had in its 0.3 s)
    assert not any("metric" in d.value.columns for d in at.dataframe)
    assert list(at.session_state["lab"].current["output"]) == [5, 2, 1_000_000]
    if lang == "en":  # (a second run in zh trips AppTest on the preset box's translated options)
        ran = len(calls)
        at.run()  # a rerun of the page: it waits for Run
        assert len(calls) == ran and not at.error
        assert any("stopped because the server was busy" in w.value and "Press Run" in w.value for w in at.warning)
        at.button(key="lab_run").click().run()  # not kept: tried again
        assert any(re.search(said, e.value) for e in at.error) and len(calls) > ran


@pytest.mark.parametrize("lang, said", [("en", "bars to draw, too many to read or to send to the browser"),
                                         ("zh", "条，太多，既看不清也发不到浏览器")])
def test_a_gantt_chart_too_dense_to_draw_is_left_out_and_said(monkeypatch, lang, said):
    # The seed's runs draw a few bars a request; with a limit of 3 both are too dense: the load chart instead.
    from ui import charts
    monkeypatch.setattr(charts, "GANTT_BARS", 3)
    at = open_page("pages/trace_lab.py", lang)
    assert not at.exception
    notes = [c.value for c in at.caption if said in c.value]
    assert len(notes) == 2 and all(re.search(r"\d+ ", note) for note in notes)
    keys = [c.proto.id for c in at.get("plotly_chart")]
    assert not any("gantt" in key for key in keys) and sum("lab_load" in key for key in keys) == 2


@pytest.mark.parametrize("lang, schedule_said, chrome_said", [
    ("en", "times a page writes into a download", "a page writes into a download. A shorter trace"),
    ("zh", "超过页面下载能写入的", "缩短 trace 或请求即可生成")])
def test_downloads_too_large_to_make_in_a_page_are_not_offered_and_said(monkeypatch, lang, schedule_said,
                                                                       chrome_said):
    # The seed's two runs emit 22 tokens (outputs 5 + 2 + 4, twice) and make 58 Chrome events: under limits just
    # below those, the two buttons are disabled and the page says why; the small downloads stay.
    from ui import lab_results
    monkeypatch.setattr(lab_results, "SCHEDULE_TIMES", 21)
    monkeypatch.setattr(lab_results, "CHROME_EVENTS", 57)
    at = open_page("pages/trace_lab.py", lang)
    disabled = [key for key, b in ((b.proto.id, b) for b in at.get("download_button")) if b.proto.disabled]
    assert len(disabled) == 2 and all("lab_dl_schedule" in k or "lab_dl_chrome" in k for k in disabled)
    captions = [c.value for c in at.caption]
    assert any(schedule_said in c and " 22 " in c and " 21 " in c for c in captions)
    assert any(chrome_said in c and " 58 " in c and " 57 " in c for c in captions)


def test_a_run_that_cannot_start_keeps_the_edits_budgets_and_a_way_out():
    at = open_page("pages/trace_lab.py")
    at.session_state["trace"] = {"edited_rows": {2: {"output": 10}}, "added_rows": [], "deleted_rows": []}
    at.run()
    link = at.query_params["s"]
    at.number_input(key="w_lab_token_budget").set_value(3).run()  # A's prompt of 4 can never be admitted
    assert at.button(key="lab_run").disabled
    for page in ("pages/capacity_lab.py", "pages/home.py", "pages/trace_lab.py"):
        at.switch_page(page).run()
        assert not at.exception
    assert at.number_input(key="w_lab_token_budget").value == 3
    assert list(at.session_state["lab"].current["output"]) == [5, 2, 10]
    assert any("larger than the token budget" in e.value for e in at.error)
    # the trace still downloads, and the address bar keeps the last scenario that ran
    assert any(b.label == "Download trace (CSV)" for b in at.get("download_button"))
    assert at.query_params["s"] == link
    at.number_input(key="w_lab_token_budget").set_value(8).run()  # back to the budget the edit ran with
    assert list(lab_overall(at).loc["makespan (tick)"].iloc[:2]) == [17, 14]


def test_share_link_restores_the_scenario():
    trace = validate([{"name": n, "arrival": a, "prompt": p, "output": o}
                      for n, a, p, o in (("x", 0, 3, 2), ("y", 1, 5, 4), ("z", 2, 1, 6), ("w", 4, 2, 2))])
    code = encode(Scenario(trace, Config(10, max_seqs=2, first_token="prefill"), "continuous", "static"))
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["lang"] = "en"
    at.query_params["s"] = code
    at.run()
    at.switch_page("pages/trace_lab.py")
    at.query_params["s"] = code
    at.run()
    assert not at.exception
    assert list(at.session_state["lab"].current["name"]) == ["x", "y", "z", "w"]
    assert at.number_input(key="w_lab_token_budget").value == 10
    assert at.number_input(key="w_lab_max_seqs").value == 2
    assert at.session_state["lab"].settings.policy_a == Policy(batching="continuous")


def test_folded_scheduler_options_keep_the_policy_and_static_drops_continuous_only_ones():
    at = open_page("pages/trace_lab.py")
    at.session_state["lab"].settings.policy_b = Policy(chunk_size=3, order="sjf", graph_buckets=(1, 2, 4))
    at.run()
    assert not at.exception
    # folded, the options are not drawn, and the policy keeps them
    assert not [w for w in at.number_input if w.key == "w_lab_policy_b_chunk_size"]
    assert at.session_state["lab"].settings.policy_b == Policy(chunk_size=3, order="sjf", graph_buckets=(1, 2, 4))
    assert "Options changed: order sjf, chunks of 3, graphs 1,2,4" in [c.value for c in at.caption]
    # static batching has no chunked prefill: switching B to it drops the chunk, keeps the rest
    at.selectbox(key="w_lab_policy_b_batching").set_value("static").run()
    assert at.session_state["lab"].settings.policy_b == Policy(batching="static", order="sjf", graph_buckets=(1, 2, 4))


@pytest.mark.parametrize("link", ["garbage!!", "eJzLSM3JyVcozy_KSQEAGgQEXQ", "A" * 20000])
def test_bad_share_link_shows_a_message_and_the_default(link):
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["lang"] = "en"
    at.run()
    at.switch_page("pages/trace_lab.py")
    at.query_params["s"] = link
    at.run()
    assert not at.exception
    assert any("could not be opened" in e.value for e in at.error)
    assert list(at.session_state["lab"].current["name"]) == ["A", "B", "C"]


def test_html_in_a_request_name_stays_text():
    at = open_page("pages/trace_lab.py")
    at.session_state["trace"] = {"edited_rows": {0: {"name": "<img src=x onerror=alert(1)>"}}, "added_rows": [],
                                 "deleted_rows": []}
    at.run()
    at.number_input(key="w_lab_kv_blocks").set_value(1).run()  # too few blocks for A: a warning names it
    assert not at.exception
    named = [w.value for w in at.warning if "rejected" in w.value]
    assert named and all("\\<img" in text and not re.search(r"(?<!\\)<", text) for text in named)  # escaped
    assert not any(getattr(element.proto, "allow_html", False) for element in (*at.markdown, *at.warning))
    for i in range(len(at.get("plotly_chart"))):  # Plotly reads a little HTML in labels: escaped there too
        spec = at.get("plotly_chart")[i].proto.spec
        assert "<img" not in spec
    assert "&lt;img src=x onerror=alert(1)&gt;" in figure(at, 0)["layout"]["yaxis"]["categoryarray"]


def test_metrics_guide_draws_the_chosen_request():
    at = open_page("pages/metrics_guide.py")
    at.radio(key="guide_request").set_value("C").run()
    at.radio(key="guide_policy").set_value("static").run()
    fig = figure(at, 0)
    texts = [a.get("text", "") for a in fig["layout"]["annotations"]]
    assert "TTFT = 5" in texts and "queue = 3" in texts and "3 gaps, mean TPOT = 1" in texts
    # queue, TTFT, TPOT, throughput, goodput, makespan, padding waste, utilization (%): the one form of figures
    assert [m.value for m in at.metric] == ["3", "5", "1", "1", "3", "11", "5", "22.7"]


def test_capacity_lab_default_shows_continuous_knee_above_static_and_chunked_above_both():
    at = open_page("pages/capacity_lab.py")
    assert not at.exception, at.exception
    knees = [m.value for m in at.markdown if "keeps at least 90%" in m.value or "misses 90%" in m.value]
    assert len(knees) == 1 and knees[0].count("keeps at least 90%") == 3
    found = dict(re.findall(r"\*\*(.+?)\*\* keeps at least 90% of requests within every SLO up to \*\*([\d.]+)x",
                            knees[0]))
    assert float(found["static"]) < float(found["continuous"]) < float(found["chunked prefill"])
    static, continuous, chunked = found.values()
    readme = (Path(APP).parent / "README.md").read_text(encoding="utf-8")
    assert (f"static's knee at\n  {static}×, continuous's at {continuous}× and chunked prefill's at {chunked}×"
            in readme)  # the README's figures are the page's
    attainment = figure(at, 0)
    assert attainment["layout"]["title"]["text"].startswith("SLO attainment")
    labels = [a["text"] for a in attainment["layout"]["annotations"] if a["text"].startswith("★")]
    assert len(labels) == 3, "each knee is labelled on the attainment chart"
    rows = {a["y"] for a in attainment["layout"]["annotations"] if a["text"].startswith("★")}
    assert len(rows) == 3, "on a row of its own"
    assert len(at.get("plotly_chart")) == 5  # the TPOT chart is one flat line in ticks: a note instead
    assert any("TPOT is 1 tick at every point" in i.value for i in at.info)
    why = [m.value for m in at.markdown if "does worse than" in m.value]
    assert why and "starving long prompts" in why[0]  # past 3x, continuous keeps more in the SLO by starving
    table = at.dataframe[-1].value
    assert len(table) == 3 * 16 and "SLO met %" in table.columns


def test_capacity_lab_prefix_example_sweeps_the_same_trace_with_and_without_the_cache():
    """The example button: a Mooncake-shaped trace, two policies differing only in the cache; the cache's knee is
    the higher, and its hit rate stands beside its TTFT in the results."""
    at = open_page("pages/capacity_lab.py")
    at.button(key="sw_prefix_example").click().run()
    assert not at.exception, at.exception
    state = at.session_state["sweep"]
    assert state.source == "generated" and any(r.hash_ids for r in state.generated)
    knees = " ".join(m.value for m in at.markdown if "keeps at least 90%" in m.value or "misses 90%" in m.value)
    found = dict(re.findall(r"\*\*(.+?)\*\* keeps at least 90% of requests within every SLO up to \*\*([\d.]+)x",
                            knees))
    assert float(found["prefix cache"]) > 2 * float(found["no prefix cache"])
    assert at.radio(key="w_sw_columns").value == "prefix"  # what tells them apart is in view
    assert not any("differ in columns not shown" in c.value for c in at.caption)
    table = at.dataframe[-1].value
    assert len(table) == 2 * 16
    hits = [column for column in table.columns if "hit" in column.lower()]
    assert hits and (table[hits[0]] != "—").sum() == 16  # the cached policy's 16 points (the other's: "—")
    assert any("TTFT" in column for column in table.columns)


def test_capacity_lab_under_the_seeds_budget_says_why_continuous_falls_to_static():
    at = open_page("pages/capacity_lab.py")
    state = at.session_state["sweep"]
    state.policies = state.policies_now = state.policies.assign(token_budget=[8.0] * 3, chunk_size=[0.0, 0.0, 4.0])
    at.run()
    at.button(key="sw_run").click().run()
    assert not at.exception, at.exception
    why = " ".join(m.value for m in at.markdown if "does worse than" in m.value)
    assert "**continuous** does worse than **static**" in why
    assert "Long prompts starve under **continuous**: its slowest 1% of requests have prompts of 8.0 tokens" in why


def test_capacity_lab_sweeps_the_token_budget_and_names_points_that_cannot_run():
    at = open_page("pages/capacity_lab.py")
    at.selectbox(key="w_sw_parameter").set_value("token_budget").run()
    at.number_input(key="w_sw_low_token_budget").set_value(2).run()
    at.number_input(key="w_sw_high_token_budget").set_value(16).run()
    at.number_input(key="w_sw_points_token_budget").set_value(8).run()
    at.button(key="sw_run").click().run()
    assert not at.exception, at.exception
    assert any("could not run" in w.value and "larger than the token budget" in w.value for w in at.warning)
    assert any("from a token budget of" in m.value for m in at.markdown)


def test_capacity_lab_bad_policy_rows_and_oversized_sweeps_are_named():
    at = open_page("pages/capacity_lab.py")
    state = at.session_state["sweep"]
    state.policies = state.policies_now = state.policies.assign(chunk_size=[2, 0, 4])
    at.run()
    assert any("Policy row 1" in e.value and "continuous batching only" in e.value for e in at.error)
    assert at.button(key="sw_run").disabled
    state.policies = state.policies.assign(chunk_size=[0, 0, 4])
    at.number_input(key="w_sw_points_rate").set_value(50).run()
    state.generated = state.generated.__class__(state.generated.requests * 25)
    at.run()
    assert any("the web app takes up to" in e.value for e in at.error)


def test_capacity_lab_policy_table_names_typed_values_it_cannot_use():
    at = open_page("pages/capacity_lab.py")
    at.session_state["sw_policies_editor"] = {"edited_rows": {0: {"max_seqs": -3}, 1: {"token_budget": 2.5},
                                                              2: {"label": None}},
                                              "added_rows": [], "deleted_rows": []}
    at.run()
    assert not at.exception, at.exception
    errors = [e.value.replace("\\", "") for e in at.error]  # markdown escapes
    assert any("Policy row 1" in e and "“max seqs”: must be a whole number of at least 1, got -3" in e for e in errors)
    assert any("Policy row 2" in e and "“budget”: must be a whole number of at least 1, got 2.5" in e for e in errors)
    assert any("Policy row 3" in e for e in errors)
    assert at.button(key="sw_run").disabled
    assert list(at.session_state["sweep"].policies_now["token_budget"]) == [12, 2.5, 12]  # kept as typed


def test_real_model_page_renders_in_chinese():
    at = open_page("pages/real_model.py", "zh")
    assert not at.exception, at.exception
    assert at.title[0].value == "真实模型"


def test_real_model_page_serves_the_preset_and_draws_measured_charts(monkeypatch):
    import gpu_demo.compare

    monkeypatch.setattr(gpu_demo.compare, "VOID_DRIFT", float("inf"))  # (never void: the void page is tested below)
    at = open_page("pages/real_model.py")
    at.button(key="rm_run").click().run()
    assert not at.exception, at.exception
    shown = at.session_state["real_model"].shown
    results = shown.results
    # this machine's own profile (the session's first comparison may have measured it), each run calibrated
    assert shown.profile.exists() and len(shown.calibrations) == len(shown.threads) == 2
    captions = [c.value for c in at.caption]
    assert sum("of the profile's shapes ran at" in c for c in captions) == 2
    assert any(f"Torch threads, chosen just before each run: Policy 1 on {shown.threads[0].threads}, Policy 2 on "
               f"{shown.threads[1].threads} ({shown.threads[0].cores} cores" in c for c in captions)
    assert [r.schedule.unit for r in results] == ["ms", "ms"]
    assert all(len(out) == r.output for result in results for out, r in zip(result.outputs, result.schedule.requests))
    gantt = figure(at, 0)
    assert gantt["layout"]["xaxis"]["title"]["text"] == "ms"
    assert len(at.get("plotly_chart")) >= 4
    # the simulator's prediction beside each measured run: measured and predicted Gantt side by side, the errors
    assert len([c for c in at.caption if "off the profile's time for its shape" in c.value]) == 2
    assert any("ms × token rows" in c.value for c in at.caption)  # the profile's parameters, with units
    charts = [json.loads(c.proto.spec)["layout"]["title"]["text"] for c in at.get("plotly_chart")]
    assert sum("predicted by the simulator" in title for title in charts) == 2
    tables = [d.value for d in at.dataframe if "error" in d.value.columns]
    assert len(tables) == 2 and all(len(table) == 6 for table in tables)


def test_a_disturbed_real_model_run_is_void_and_draws_no_prediction(monkeypatch):
    import gpu_demo.compare

    monkeypatch.setattr(gpu_demo.compare, "VOID_DRIFT", -1.0)  # every run drifts from the profile by more than that
    at = open_page("pages/real_model.py")
    at.button(key="rm_run").click().run()
    assert not at.exception, at.exception
    assert len([w for w in at.warning if "is void" in w.value]) == 2
    charts = [json.loads(c.proto.spec)["layout"]["title"]["text"] for c in at.get("plotly_chart")]
    assert sum("predicted by the simulator" in title for title in charts) == 0
    assert sum(title.endswith(": measured") for title in charts) == 2
    tables = [d.value for d in at.dataframe if any("void" in c for c in d.value.columns)]
    assert len(tables) == 2 and all(len(table) == 6 for table in tables)  # the figures stay, headed as void
    assert not [c for c in at.caption if "off the profile's time for its shape" in c.value]


def test_real_model_page_names_a_budget_too_small_for_a_prompt():
    at = open_page("pages/real_model.py")
    at.number_input(key="w_rm_budget").set_value(4).run()
    at.button(key="rm_run").click().run()
    assert not at.exception, at.exception
    assert any("token budget" in e.value for e in at.error)
    assert at.session_state["real_model"].shown is None



def test_real_model_page_bounds_the_lab_trace_it_serves():
    from sim.trace.generate import Uniform, generate
    from ui.lab_state import frame

    at = open_page("pages/real_model.py")
    table = frame(generate(65, rate=1.0, prompt=Uniform(1, 8), output=Uniform(1, 8), seed=0))
    at.session_state["lab"].base = at.session_state["lab"].current = table
    at.radio(key="w_rm_source").set_value("lab").run()
    assert not at.exception, at.exception
    assert any("65 requests" in e.value and "at most 64" in e.value for e in at.error)
    assert not [b for b in at.button if b.key == "rm_run"]  # nothing to run until the trace is smaller


def test_a_text_trace_uploaded_to_the_lab_is_served_by_the_real_model_with_its_text():
    from tests.test_fuzz import upload
    from ui.lab_state import frame

    trace, error, _ = upload(b'name,arrival,output,text\nq,0,3,"def f(x):"\nr,1,2,"import os"\n')
    assert error is None and [(r.name, r.prompt) for r in trace] == [("q", 9), ("r", 9)]
    at = open_page("pages/real_model.py")
    at.session_state["lab"].base = at.session_state["lab"].current = frame(trace)
    at.radio(key="w_rm_source").set_value("lab").run()
    assert not at.exception, at.exception
    table = next(d.value for d in at.dataframe if "prompt text" in d.value.columns)
    assert table["prompt text"].tolist() == ["def f(x):", "import os"] and table["prompt"].tolist() == [9, 9]
    at.button(key="rm_run").click().run()
    assert not at.exception, at.exception
    results = at.session_state["real_model"].shown.results
    assert [len(out) for out in results[1].outputs] == [3, 2]


def test_a_run_in_milliseconds_labels_rates_and_sentences_in_ms():
    at = open_page("pages/trace_lab.py")
    at.radio(key="w_lab_cost_kind").set_value("linear").run()
    assert not at.exception, at.exception
    assert at.session_state["lab"].ran.config.cost.kind == "linear"
    overall = lab_overall(at)
    assert "throughput (tokens/ms)" in overall.index and "requests/ms" in overall.index
    assert not any("tick" in label for label in overall.index)
    assert any("Median TTFT moves from" in m.value and " ms with" in m.value for m in at.markdown)


def test_the_lab_runs_as_this_machine_would_serve_it_with_the_measured_profile_and_back():
    at = open_page("pages/trace_lab.py")
    c0 = at.session_state["lab"].settings.c0
    at.radio(key="w_lab_cost_kind").set_value("profile").run()
    assert not at.exception, at.exception
    cost = at.session_state["lab"].ran.config.cost
    assert cost.kind == "profile" and "cpu float32" in cost.source and cost.c_key > 0
    assert any("64 batch shapes" in c.value for c in at.caption)  # which profile, and how good it is
    assert any("ms × token rows" in c.value for c in at.caption)  # its formula, with units
    at.radio(key="w_lab_cost_kind").set_value("linear").run()
    assert not at.exception, at.exception
    assert at.session_state["lab"].ran.config.cost.kind == "linear"
    assert at.session_state["lab"].settings.c0 == c0  # the linear c0 the profile replaced comes back


def test_the_capacity_lab_sweeps_with_the_measured_profile_in_ms():
    at = open_page("pages/capacity_lab.py")
    at.radio(key="w_sw_cost").set_value("profile").run()
    assert not at.exception, at.exception
    assert at.warning and any("changed" in w.value or "stale" in w.value.lower() or "Run" in w.value
                              for w in at.warning)  # the shown sweep was made in ticks
    at.button(key="sw_run").click().run()
    assert not at.exception, at.exception
    result = at.session_state["sweep"].result
    assert result.unit == "ms" and all(entry.config.cost.kind == "profile" for entry in result.chosen)
    assert figure(at, 1)["layout"]["yaxis"]["title"]["text"].endswith("ms")
    assert any("(ms," in n.label for n in at.number_input if n.key == "w_sw_slo_ttft")


def test_prompts_over_the_budget_matter_only_to_a_policy_without_chunked_prefill():
    from sim.trace.trace import SEED_CSV, read_csv
    from ui import lab_state
    trace, config = read_csv(SEED_CSV), Config(3)  # A's prompt of 4 and nothing else is over 3
    chunked = Policy("continuous", chunk_size=2)
    assert lab_state.prompts_over_budget(trace, config, (chunked, chunked)) == ()
    problems = lab_state.prompts_over_budget(trace, config, (Policy("static"), chunked))
    assert [(p.name, p.column) for p in problems] == [("A", "prompt")]


def test_the_lab_settings_are_configs_fields_and_round_trip():
    from dataclasses import fields

    from sim.codec import flat
    from sim.core.config import SLO, ConfigError, CostModel
    from ui.lab_state import LabSettings
    names = [f.name for f in fields(LabSettings)]
    assert names == [*flat(Config()), "policy_a", "policy_b"]  # one field a Config field, nested ones flattened
    assert LabSettings().max_seqs == 0 and LabSettings().slo_ttft == 0.0  # Config's None as its widget shows it
    assert LabSettings() == LabSettings.of(Config(), Policy(batching="static"), Policy())
    config = Config(16, 4, "prefill", SLO(ttft=5.0, e2e=40.0), kv_blocks=32, block_size=8, swap_cost=3,
                    cost=CostModel("linear", c0=2.0, c_prefill=0.25, c_decode=0.5, c_attn=0.01))
    assert LabSettings.of(config, Policy(), Policy()).config() == config
    typed = LabSettings(token_budget=2.5)
    with pytest.raises(ConfigError) as error:
        typed.config()
    assert error.value.field == "token_budget" and typed.token_budget == 2.5  # kept as typed


def test_the_policy_form_is_made_from_policys_fields_and_round_trips():
    from dataclasses import fields

    from sim.codec import flat, shown, typed
    from sim.core.config import ConfigError
    from ui.policy_form import OPTIONS
    assert sorted(OPTIONS) == sorted(f.name for f in fields(Policy) if f.name != "batching")
    policy = Policy(order="aging", aging_rate=2.5, preemptive_priority=True, tenant_quotas=(("vip", 0.5), ("f", 0.25)),
                    chunk_size=3, mixing="prefill-first", kv_admission="overcommit", preempt="swap",
                    victim="lowest-priority", timeout=9, graph_buckets=(1, 2, 8), spec_tokens=2, spec_accept=0.5,
                    seed=7)
    widgets = {name: shown(name, value) for name, value in flat(policy).items()}
    assert widgets["tenant_quotas"] == "vip=0.5, f=0.25" and widgets["graph_buckets"] == "1, 2, 8"
    assert Policy(**{name: typed(name, value) for name, value in widgets.items()}) == policy
    assert shown("chunk_size", Policy().chunk_size) == 0 and typed("chunk_size", 0) is None
    with pytest.raises(ConfigError) as error:
        typed("graph_buckets", "1, two")
    assert error.value.field == "graph_buckets"


def test_the_open_policy_form_edits_every_option_and_names_a_bad_list():
    at = open_page("pages/trace_lab.py")
    at.session_state["w_lab_policy_b_options"] = True  # the expander's state: open
    at.run()
    at.number_input(key="w_lab_policy_b_chunk_size").set_value(4)
    at.selectbox(key="w_lab_policy_b_order").set_value("sjf").run()
    at.selectbox(key="w_lab_policy_b_sjf_key").set_value("output")
    at.text_input(key="w_lab_policy_b_graph_buckets").set_value("1, 4").run()
    assert at.session_state["lab"].settings.policy_b == Policy(chunk_size=4, order="sjf", sjf_key="output",
                                                               graph_buckets=(1, 4))
    at.text_input(key="w_lab_policy_b_graph_buckets").set_value("1, four").run()
    assert "“CUDA-graph batch sizes (empty = eager)”: write batch sizes" in " ".join(e.value for e in at.error)
    assert at.text_input(key="w_lab_policy_b_graph_buckets").value == "1, four"  # kept as typed
    assert at.session_state["lab"].settings.policy_b.graph_buckets == (1, 4)


def test_the_lab_runs_on_a_real_gpu_and_sizes_its_kv_cache_from_memory():
    """The lab's fourth cost model: a GPU and a model chosen, the roofline said in words, the KV cache button, and
    results that name the GPU and are in ms."""
    at = open_page("pages/trace_lab.py")
    at.radio(key="w_lab_cost_kind").set_value("roofline").run()
    assert not at.exception, at.exception
    at.selectbox(key="w_lab_hardware").set_value("L4").run()
    at.selectbox(key="w_lab_model").set_value("Qwen2.5-7B").run()
    cost = at.session_state["lab"].ran.config.cost
    assert (cost.kind, cost.hardware, cost.model, cost.tp) == ("roofline", "L4", "Qwen2.5-7B", 1)
    assert any("L4: 121 TFLOP/s" in c.value and "Qwen2.5-7B: 7.62 billion weights" in c.value for c in at.caption)
    assert any("Qwen2.5-7B on 1 x L4 (bf16)" in c.value for c in at.caption)  # the results say which
    at.button(key="roofline_kv_auto").click().run()
    from sim.core.hardware import kv_blocks
    assert at.session_state["lab"].settings.kv_blocks == kv_blocks("L4", "Qwen2.5-7B", 1, "bf16", 4, 0.9)
    at.radio(key="w_lab_precision").set_value("fp8").run()
    assert at.session_state["lab"].ran.config.cost.precision == "fp8"
    at.selectbox(key="w_lab_hardware").set_value("A100-80GB").run()  # no fp8 there: said, nothing lost
    assert not at.exception, at.exception
    assert any("no fp8 tensor cores" in e.value for e in at.error)
    assert at.session_state["lab"].settings.precision == "fp8"


def test_the_real_gpus_results_are_named_in_chinese_too():
    """In Chinese the results' caption names the model and the GPU in Chinese words around them, not the cost
    model's English label."""
    from ui.lab_state import LabSettings, LabState

    at = open_page("pages/trace_lab.py", "zh", {"lab": LabState(settings=LabSettings(cost_kind="roofline"))})
    assert not at.exception, at.exception  # (the lab's state set, as AppTest picks a radio's choices in English)
    assert any("运行在 1 块 H100 上（bf16）" in c.value for c in at.caption)
    assert not any(" on 1 x " in c.value for c in at.caption)


def test_the_capacity_lab_sweeps_on_a_real_gpu_in_ms():
    at = open_page("pages/capacity_lab.py")
    at.radio(key="w_sw_cost").set_value("roofline").run()
    at.selectbox(key="w_sw_hardware").set_value("A100-80GB").run()
    at.button(key="sw_run").click().run()
    assert not at.exception, at.exception
    result = at.session_state["sweep"].result
    assert result.unit == "ms"
    assert {(e.config.cost.kind, e.config.cost.hardware, e.config.cost.model) for e in result.chosen} == {
        ("roofline", "A100-80GB", "Llama-3.1-8B")}
    assert any("A100-80GB: 312 TFLOP/s" in c.value for c in at.caption)
    assert figure(at, 1)["layout"]["yaxis"]["title"]["text"].endswith("ms")
