"""The batching classroom: entry point (a small home page until the full app lands)."""
import pandas as pd
import streamlit as st

from sim.__main__ import SEED_BUDGET, SEED_EXAMPLE
from sim.config import Config
from sim.engine import simulate
from sim.metrics import compute
from sim.trace import read_csv

st.set_page_config(page_title="The batching classroom", layout="wide")
st.title("The batching classroom")
st.write("The design document's worked example, A=(0,4,5), B=(0,2,2), C=(3,3,4) with a budget of 8 token-work "
         "a tick, computed by the simulator:")
trace = read_csv(SEED_EXAMPLE)
rows = []
for policy in ("static", "continuous"):
    m = compute(simulate(trace, Config(SEED_BUDGET), policy))
    ttft_c = next(r.ttft for r in m.requests if r.name == "C")
    rows.append({"policy": policy, "makespan": m.makespan, "padding waste": m.padding_waste,
                 "throughput": m.throughput, "C's TTFT": ttft_c})
st.dataframe(pd.DataFrame(rows), hide_index=True)
