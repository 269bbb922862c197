"""A stopped server leaves no process behind: `streamlit run app.py` (the real server, in its own process group, as
the other tests start it) stopped by SIGTERM or by Ctrl-C in the middle of a sweep, with its session's socket open,
is gone within STOP_WITHIN seconds, its sweep workers, their fork server and multiprocessing's resource tracker
included. Its sweep workers, started before any session, are light: none ran the app's script (torch and all)."""
import asyncio
from pathlib import Path

import pytest

from kit.browser_kit import ServerError, app_server, group_processes, stop_and_wait
from kit.protocol_load import sweeping

STOP_WITHIN = 10.0  # seconds, as the README promises


async def stopped_mid_sweep(server, stop: str) -> float | None:
    async with sweeping(server) as workers:
        assert workers, "no sweep workers to see stopped"
        # Started before the first session, the workers never ran the app's script: none holds torch.
        assert not [pid for pid in workers if "torch" in Path(f"/proc/{pid}/maps").read_text()]
        return await asyncio.to_thread(stop_and_wait, server, stop, STOP_WITHIN)


@pytest.mark.parametrize("stop", ["SIGTERM", "Ctrl-C"])
def test_a_server_stopped_in_the_middle_of_a_sweep_leaves_no_process_behind(stop):
    try:
        with app_server() as server:
            took = asyncio.run(stopped_mid_sweep(server, stop))
            assert took is not None, f"left {STOP_WITHIN:g} s after {stop}: {group_processes(server.process.pid)}"
    except ServerError as error:
        pytest.fail(str(error))
