"""What it costs: the price of continuous batching, one lesson a cost, each measured in milliseconds."""
import streamlit as st

from ui import costs, presenter
from ui.boot import through_app
from ui.i18n import language, t
from ui.lessons import lessons

through_app()

st.title(t("cost_title"))
with presenter.options(t("cost_about")):  # on a projector, folded: the first lesson's picture on the first screen
    st.markdown(t("cost_intro", ms=costs.MS_PER_TICK))
st.page_link("pages/worked_example.py", label=t("cost_back"), icon="🧮")
with st.spinner(t("cost_running")):
    told = lessons(language(), presenter.on())
for number, lesson in enumerate(told, start=1):
    st.header(f"{number}. {t(f'cost_{lesson.key}_title')}", divider="gray")
    first, *more = lesson.charts
    # On a projector the picture comes first, the story told over it; on a screen the story leads to the picture.
    shown = [first, lesson.story, *more] if presenter.on() else [lesson.story, first, *more]
    for index, part in enumerate(shown):
        if isinstance(part, str):
            st.markdown(part)
        else:
            st.plotly_chart(part, key=f"cost_chart_{lesson.key}_{index}", config={"displaylogo": False})
    st.dataframe(lesson.table, hide_index=True, key=f"cost_table_{lesson.key}")
    st.download_button(t("cost_download"), lesson.table.to_csv(index=False), f"cost-{lesson.key}.csv", "text/csv",
                       key=f"cost_dl_{lesson.key}")
st.header(t("cost_hidden_title"), divider="gray")
st.markdown(t("cost_hidden"))
