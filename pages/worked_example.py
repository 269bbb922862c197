"""Worked example: the seed's trace under static and continuous batching, revealed tick by tick."""
import streamlit as st

from sim.config import Config, Policy
from sim.explain import tick_facts
from sim.trace import SEED_BUDGET
from ui import lab_state
from ui.boot import through_app
from ui.charts import budget_chart, gantt
from ui.i18n import t
from ui.narration import sentence
from ui.runs import run, seed_trace
from ui.tables import overall_table, request_table

through_app()

POLICIES = ("static", "continuous")
SEED_FIGURES = ("makespan", "throughput", "padding_waste", "utilization", "ttft_p50", "e2e_p50")

st.title(t("ex_title"))
st.markdown(t("ex_intro"))

trace = seed_trace()
config = Config(SEED_BUDGET)
runs = {policy: run(trace, config, policy) for policy in POLICIES}
x_max = max(schedule.makespan for schedule, _ in runs.values())

if "ex_tick" not in st.session_state:
    st.session_state["ex_tick"] = x_max


def _step(delta: int) -> None:
    st.session_state["ex_tick"] = min(x_max, max(0, st.session_state["ex_tick"] + delta))


back, slider, forward, reset = st.columns([1, 8, 1, 2], vertical_alignment="bottom")
back.button("◀", on_click=_step, args=(-1,), help=t("ex_back"), key="ex_back")
slider.slider(t("ex_slider"), 0, int(x_max), key="ex_tick", help=t("ex_slider_help"))
forward.button("▶", on_click=_step, args=(1,), help=t("ex_forward"), key="ex_forward")
reset.button(t("ex_show_all"), on_click=_step, args=(x_max,), key="ex_all")
now = st.session_state["ex_tick"]

charts, tables = st.columns([3, 2])
with charts:
    for policy, (schedule, _) in runs.items():
        st.plotly_chart(gantt(schedule, t(f"policy_{policy}"), x_max=x_max, reveal=now), key=f"ex_gantt_{policy}")
        st.plotly_chart(budget_chart(schedule, t("budget_title", policy=t(f"policy_{policy}")), x_max=x_max,
                                     reveal=now), key=f"ex_budget_{policy}")
with tables:
    metrics = [m for _, m in runs.values()]
    st.subheader(t("ex_overall"))
    titles = [t(f"policy_{policy}") for policy in POLICIES]
    st.dataframe(overall_table(*metrics, titles, names=SEED_FIGURES).iloc[:, :4], hide_index=True, key="ex_overall")
    st.info(t("ex_takeaway"))
    if st.button(t("ex_open_lab"), type="primary", key="ex_open", on_click=lab_state.load,
                 args=(trace, config, *map(Policy.named, POLICIES))):
        st.switch_page("pages/trace_lab.py")
st.subheader(t("ex_per_request"))
st.dataframe(request_table(metrics, titles), hide_index=True, key="ex_requests")

st.subheader(t("ex_narration", tick=now))
columns = st.columns(2)
for column, (policy, (schedule, _)) in zip(columns, runs.items()):
    with column:
        st.markdown(f"**{t(f'policy_{policy}')}**")
        lines = [sentence(tick_facts(schedule, tick)) for tick in range(min(now, int(schedule.makespan)))]
        st.markdown("\n".join(f"- {line}" for line in lines) if lines else t("ex_narration_empty"))
