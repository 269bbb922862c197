"""Many servers: a fleet of the one engine behind a router, and prefill split from decode; each lesson's story,
charts and table from its runs (ui/fleet.py)."""
import streamlit as st

from ui import fleet, presenter
from ui.boot import through_app
from ui.i18n import language, t

through_app()

st.title(t("fleet_title"))
with presenter.options(t("fleet_about")):
    st.markdown(t("fleet_intro"))
with st.spinner(t("fleet_running")):
    told = fleet.lessons(language(), presenter.on())
for number, lesson in enumerate(told, start=1):
    st.header(f"{number}. {t(f'fleet_{lesson.key}_title')}", divider="gray")
    first, *more = lesson.charts
    # On a projector the picture comes first, the story told over it; on a screen the story leads to the picture.
    shown = [first, lesson.story, *more] if presenter.on() else [lesson.story, first, *more]
    for index, part in enumerate(shown):
        if isinstance(part, str):
            st.markdown(part)
        else:
            st.plotly_chart(part, key=f"fleet_chart_{lesson.key}_{index}", config={"displaylogo": False})
    st.dataframe(lesson.table, hide_index=True, key=f"fleet_table_{lesson.key}")
    st.download_button(t("fleet_download"), lesson.table.to_csv(index=False), f"fleet-{lesson.key}.csv", "text/csv",
                       key=f"fleet_dl_{lesson.key}")
st.header(t("fleet_hidden_title"), divider="gray")
st.markdown(t("fleet_hidden"))
