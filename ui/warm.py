"""What the pages compute for every visitor, computed once as the server starts (app.py's lifespan calls `warm`
before the first session), so that a page's first visit finds it cached.

A warmer takes no arguments and calls the cached functions that a page's first run calls, with the same arguments.
Each runs once in each language and mode, with `language()` and `presenter.on()` saying which (text and sizes are
part of what some of them cache; what holds neither is found cached the second time). A page that precomputes
something new adds its builder to WARMERS. One that holds neither and works in the sweep's worker processes goes
in ASIDE instead: it runs once, on a thread of its own, while this process makes the rest.
"""
from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

from streamlit.logger import get_logger

from sim.core.config import Config
from sim.trace.trace import SEED_BUDGET

from . import capacity, costs, fleet, lessons, planner, presenter, real_model, runs
from .i18n import LANGUAGES, language, speaking
from .lab_state import LabSettings

LOG = get_logger("classroom")


def seed_runs() -> None:
    """Home, the worked example and the metrics guide: the seed trace under both policies."""
    for policy in ("static", "continuous"):
        runs.run(runs.seed_trace(), Config(SEED_BUDGET), policy)


def lab_runs() -> None:
    """The trace lab opened without a link: the seed trace under the lab's default settings and policies."""
    settings = LabSettings()
    for policy in (settings.policy_a, settings.policy_b):
        runs.run(runs.seed_trace(), settings.config(), policy)


def cost_lessons() -> None:
    """What it costs, its lessons on the teaching GPU and on the real one."""
    for hardware in costs.HARDWARE:
        lessons.lessons(language(), presenter.on(), hardware)


def fleet_lessons() -> None:
    """Many servers."""
    fleet.lessons(language(), presenter.on())


def story() -> None:
    """The worked example's story, every frame of it."""
    runs.story_figure()


def default_sweep() -> None:
    """The capacity lab's sweep of its default scenario (its policies are named in the language; the sweep's cache
    leaves their names out, and gives each language its own)."""
    capacity.run_sweep(*capacity.first_sweep(), progress=lambda done, total: None)


def default_plan() -> None:
    """Plan a fleet: its default plan (the same in both languages)."""
    state = planner.PlannerState()
    planner.plan(state.trace(), state.ask(), state.config(), lambda points: None)


def model() -> None:
    """The real-model page's model, loaded and warmed up."""
    real_model.shared_model(real_model.default_device(), real_model.DTYPES[0])


WARMERS: tuple[Callable[[], object], ...] = (seed_runs, story, lab_runs, cost_lessons, fleet_lessons, model)
# The same in every language and mode (a sweep's cache leaves its labels out), and run in the worker processes: each
# on a thread of its own, their 2-3 s and 1.5 s overlap the lessons that this process makes meanwhile.
ASIDE: tuple[Callable[[], object], ...] = (default_plan, default_sweep)


@contextmanager
def _quiet_session_reads() -> Iterator[None]:
    """Charts read presenter mode from the session, which outside a session is Streamlit's empty stand-in (off),
    and each read logs a warning meant for scripts run without a server: not one for the server's own warm-up."""
    logger = logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def warm() -> None:
    """Every warmer in every language, in and out of presenter mode (a warmer whose result depends on neither
    finds it cached after the first), and ASIDE's once, beside them; each one's time goes to the log (at debug
    level)."""
    with ThreadPoolExecutor(len(ASIDE)) as side:
        aside = [side.submit(_aside, warmer) for warmer in ASIDE]
        for lang in LANGUAGES:
            for mode in (False, True):
                with speaking(lang), presenter.presenting(mode), _quiet_session_reads():
                    for warmer in WARMERS:
                        _timed(warmer, f" ({lang}{', presenter' if mode else ''})")
        for done in aside:
            done.result()  # (its error, if any, is the warm-up's)


def _aside(warmer: Callable[[], object]) -> None:
    """An ASIDE warmer on its side thread, in the first language (text it makes is not kept: it reads no session)."""
    with speaking(next(iter(LANGUAGES))):
        _timed(warmer, "")


def _timed(warmer: Callable[[], object], how: str) -> None:
    started = time.perf_counter()
    warmer()
    LOG.debug("warmed %s%s in %.2f s", warmer.__name__, how, time.perf_counter() - started)
