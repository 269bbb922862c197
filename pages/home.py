"""Home: continuous batching in a few sentences, a live picture of the worked example, links to every page."""
import streamlit as st

from sim.core.config import Config
from sim.trace.trace import SEED_BUDGET
from ui.boot import through_app
from ui.charts import gantt
from ui.i18n import t
from ui.runs import run, seed_trace

through_app()

st.title(t("home_title"))
st.markdown(t("home_intro"))

trace = seed_trace()
runs = {policy: run(trace, Config(SEED_BUDGET), policy) for policy in ("static", "continuous")}
x_max = max(schedule.makespan for schedule, _ in runs.values())
columns = st.columns(2)
for column, (policy, (schedule, metrics)) in zip(columns, runs.items()):
    with column:
        st.plotly_chart(gantt(schedule, t(f"policy_{policy}"), x_max=x_max), key=f"home_{policy}")
        st.caption(t("home_caption", makespan=metrics.makespan, waste=metrics.padding_waste,
                     throughput=metrics.throughput))
st.markdown(t("home_after"))

st.subheader(t("home_pages"))
for page, icon in (("worked_example", "🧮"), ("costs", "💸"), ("trace_lab", "🧪"), ("capacity_lab", "📈"),
                   ("real_model", "🤖"), ("metrics_guide", "📏")):
    st.page_link(f"pages/{page}.py", label=t(f"home_link_{page}"), icon=icon)
