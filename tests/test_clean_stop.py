"""A stopped server leaves no process behind: `streamlit run app.py` (the real server, in its own process group, as
the other tests start it) stopped by SIGTERM or by Ctrl-C in the middle of a sweep is gone within STOP_WITHIN seconds,
its sweep workers, their fork server and multiprocessing's resource tracker included."""
import asyncio
import os
import signal
import time

import pytest
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState

from kit.browser_kit import ServerError, app_server, group_processes
from kit.protocol_load import ProtocolReport, Student, session_socket
from sim.report.sweep import MAX_POINTS
from ui.trace_sources import MAX_REQUESTS

STOP_WITHIN = 10.0  # seconds, as the README promises


async def start_a_sweep(base: str) -> None:
    """In the capacity lab (whose default sweep is precomputed), generate the largest trace, click Run with the most
    points (half a minute of work for the workers) and return once the sweep runs (its progress bar has moved),
    with the socket still open."""
    async with await session_socket(base) as ws:
        student = Student(ws, base, 0, ProtocolReport())
        _, shown = await student.run("capacity lab", page_name="capacity_lab")
        for key, value in (("sw_gen_n", MAX_REQUESTS), ("w_sw_points_rate", MAX_POINTS)):
            student.chosen[shown.keyed[key].id] = WidgetState(id=shown.keyed[key].id, int_value=value)
        await student.run("capacity lab, a large trace made", triggers=(shown.keyed["sw_gen_make"].id,))
        await student.send(triggers=(shown.keyed["sw_run"].id,))
        while True:
            forward = ForwardMsg.FromString(await asyncio.wait_for(ws.recv(), 60))
            assert forward.WhichOneof("type") != "script_finished", "the sweep ended before it was seen running"
            element = forward.delta.new_element
            if element.WhichOneof("type") == "progress" and element.progress.value > 0:
                return


@pytest.mark.parametrize("stop", ["SIGTERM", "Ctrl-C"])
def test_a_server_stopped_in_the_middle_of_a_sweep_leaves_no_process_behind(stop):
    try:
        with app_server() as server:
            group = server.process.pid
            asyncio.run(start_a_sweep(server.base))
            assert len(group_processes(group)) > 1, "no sweep workers to see stopped"
            if stop == "SIGTERM":
                server.process.send_signal(signal.SIGTERM)
            else:
                os.killpg(group, signal.SIGINT)  # a terminal sends Ctrl-C to its whole foreground group
            deadline = time.monotonic() + STOP_WITHIN
            while group_processes(group) and time.monotonic() < deadline:
                time.sleep(0.1)  # polling the process table
            assert group_processes(group) == [], f"left {STOP_WITHIN:g} s after {stop}"
    except ServerError as error:
        pytest.fail(str(error))
