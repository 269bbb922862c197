"""The batching classroom's server: `streamlit run app.py` serves classroom.py to every session, once the heavy
libraries are imported (see ui/preload.py: sessions that imported them side by side broke on a fresh server) and
what every visitor's first visit computes is computed (ui/warm.py); it stops its worker processes with it."""
import gc
import time
from contextlib import asynccontextmanager

import streamlit as st
from streamlit.logger import get_logger

LOG = get_logger("classroom")


@asynccontextmanager
async def lifespan(app):
    """Before the server takes its first connection: import and exercise what every page uses, start the sweep
    workers and fill the caches of first visits. After its last: stop the workers (SIGTERM or Ctrl-C)."""
    started = time.perf_counter()
    import ui.preload  # noqa: F401
    from ui import capacity, warm
    imported = time.perf_counter()
    capacity.start_pool()
    try:
        warm.warm()
        gc.freeze()  # what start-up made lives as long as the server: the collector need not look at it again
        LOG.info("libraries imported in %.1f s; sweep workers started and first visits precomputed in %.1f s",
                 imported - started, time.perf_counter() - imported)
        yield
    finally:
        capacity.stop_pool()


app = st.App("classroom.py", lifespan=lifespan)
