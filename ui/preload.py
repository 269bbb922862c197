"""The heavy libraries the pages use, imported and exercised once, before the server takes its first session.

Streamlit runs each session's script in a thread of its own. Plotly checks a value against pandas by taking
pandas from `sys.modules` if it is there, without waiting on the import lock: while one session (opening the
lab, which imports pandas) was still importing it, another (drawing the home page's Gantt chart) got the
half-made module, "partially initialized module 'pandas' has no attribute 'Series'". A class opening the app at
once hit that on a fresh server. So app.py's lifespan imports this module before the first connection; and
classroom.py imports it too, so that under a server started another way each run waits on Python's import lock
until it is complete, and never meets a half-imported library.
"""
import pandas as pd
import plotly.graph_objects as go
import plotly.io
import torch  # noqa: F401  (the real model's page)
from streamlit import dataframe_util

import ui.boot
import ui.capacity  # noqa: F401  (the ui modules the pages use, so each page's imports are done)
import ui.charts  # noqa: F401
import ui.lab_results  # noqa: F401
import ui.real_model  # noqa: F401
import ui.trace_sources  # noqa: F401

# What is imported lazily on first use: Plotly's validators and its pandas and numpy checks (a horizontal bar
# with an array base, as the Gantt charts draw), its JSON encoder, and Streamlit's Arrow serialisation of a table.
plotly.io.to_json(go.Figure(go.Bar(orientation="h", base=pd.Series([0.5]), x=[1.0], y=["a"])))
dataframe_util.convert_anything_to_arrow_bytes(pd.DataFrame({"a": [1, 2], "b": ["x", None]}))
ui.boot.uses_navigation()  # deep links go through classroom.py from the first session on
