"""A stopped server leaves no process behind: `streamlit run app.py` (the real server, in its own process group, as
the other tests start it) stopped by SIGTERM or by Ctrl-C in the middle of a sweep, with its session's socket open,
is gone within STOP_WITHIN seconds, its sweep workers, their fork server and multiprocessing's resource tracker
included."""
import asyncio

import pytest

from kit.browser_kit import ServerError, app_server, group_processes, stop_and_wait
from kit.protocol_load import sweeping

STOP_WITHIN = 10.0  # seconds, as the README promises


async def stopped_mid_sweep(server, stop: str) -> float | None:
    async with sweeping(server.base):
        assert len(group_processes(server.process.pid)) > 1, "no sweep workers to see stopped"
        return await asyncio.to_thread(stop_and_wait, server, stop, STOP_WITHIN)


@pytest.mark.parametrize("stop", ["SIGTERM", "Ctrl-C"])
def test_a_server_stopped_in_the_middle_of_a_sweep_leaves_no_process_behind(stop):
    try:
        with app_server() as server:
            took = asyncio.run(stopped_mid_sweep(server, stop))
            assert took is not None, f"left {STOP_WITHIN:g} s after {stop}: {group_processes(server.process.pid)}"
    except ServerError as error:
        pytest.fail(str(error))
