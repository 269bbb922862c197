"""What it costs: the price of continuous batching, one lesson a cost, each measured in milliseconds."""
import streamlit as st

from ui import costs, presenter
from ui.boot import through_app
from ui.charts import gantt
from ui.i18n import language, t
from ui.lessons import lessons

through_app()

st.title(t("cost_title"))
st.markdown(t("cost_intro", ms=costs.MS_PER_TICK))
st.page_link("pages/worked_example.py", label=t("cost_back"), icon="🧮")
with st.spinner(t("cost_running")):
    told, example = lessons(language(), presenter.on())
for number, lesson in enumerate(told, start=1):
    st.header(f"{number}. {t(f'cost_{lesson.key}_title')}", divider="gray")
    st.markdown(lesson.story)
    if lesson.key == "interference":
        st.plotly_chart(gantt(example, t("cost_example_gantt")), key="cost_gantt", config={"displaylogo": False})
    st.plotly_chart(lesson.figure, key=f"cost_chart_{lesson.key}", config={"displaylogo": False})
    if lesson.heatmap is not None:
        st.plotly_chart(lesson.heatmap, key=f"cost_heatmap_{lesson.key}", config={"displaylogo": False})
    st.dataframe(lesson.table, hide_index=True, key=f"cost_table_{lesson.key}")
    st.download_button(t("cost_download"), lesson.table.to_csv(index=False), f"cost-{lesson.key}.csv", "text/csv",
                       key=f"cost_dl_{lesson.key}")
st.header(t("cost_hidden_title"), divider="gray")
st.markdown(t("cost_hidden"))
