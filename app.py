"""The batching classroom's server: `streamlit run app.py` serves classroom.py to every session, once the heavy
libraries are imported (see ui/preload.py: sessions that imported them side by side broke on a fresh server)."""
import gc
import logging
import time
from contextlib import asynccontextmanager

import streamlit as st


@asynccontextmanager
async def preload(app):
    """Before the server takes its first connection: import and exercise what every page uses."""
    started = time.perf_counter()
    import ui.preload  # noqa: F401
    gc.freeze()  # what start-up made lives as long as the server: the collector need not look at it again
    logging.getLogger("classroom").info("libraries imported in %.1f s", time.perf_counter() - started)
    yield


app = st.App("classroom.py", lifespan=preload)
