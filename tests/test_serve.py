"""serve.py: a class of servers behind nginx. Two servers serve protocol sessions through nginx's one address; each
browser (its cookie) stays on one server, its health check and its websocket alike; both servers get browsers and
share one cookie secret; SIGTERM stops nginx and both servers, their sweep workers included, leaving no process
behind. A server started elsewhere joins with --remote (and is left running when Ctrl-C stops serve.py). Skips only
where nginx is not installed (.ci/run installs it)."""
import os
import re
import signal
import time
from collections import defaultdict
from pathlib import Path

import pytest

from kit.browser_kit import ServerError, app_server, child_groups, group_processes, kill_group, served_class
from kit.protocol_load import HOME, SHARE_LINK, cold_rush
from serve import NGINX, SECRET_ENV

pytestmark = pytest.mark.skipif(not Path(NGINX).exists(), reason="nginx is not installed (apt-get install nginx)")

WORKERS, SESSIONS = 2, 16  # 16 browsers: all on one server by chance once in 30,000 runs
STOP_WITHIN = 10.0
LINE = re.compile(r'"GET (\S+?)(?:\?\S*)? HTTP/1\.1" (\d+) upstream=(\S+) sticky=(\S+)')


def visits(log: Path, streams: int, timeout: float = 10.0) -> list[tuple[str, str, str]]:
    """(path, server, sticky cookie) of each request in nginx's access log, once `streams` websockets are in it (a
    websocket is logged when it closes)."""
    deadline = time.monotonic() + timeout
    while True:
        found = [(path, upstream, sticky) for path, _, upstream, sticky in LINE.findall(log.read_text())]
        if sum(path == "/_stcore/stream" for path, _, _ in found) >= streams or time.monotonic() > deadline:
            return found
        time.sleep(0.1)  # polling the log


def cookie_secret(pid: int) -> str | None:
    entries = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return next((e.split(b"=", 1)[1].decode() for e in entries if e.startswith(SECRET_ENV.encode() + b"=")), None)


def test_two_servers_behind_nginx_keep_each_browser_on_one_and_stop_leaving_no_process(tmp_path):
    try:
        with served_class(WORKERS, logs=tmp_path) as served:
            groups = child_groups(served.process.pid)
            servers = [group for group in groups if "streamlit run app.py" in " ".join(group_processes(group))]
            assert len(groups) == WORKERS + 1 and len(servers) == WORKERS  # the servers and nginx
            assert all(len(group_processes(group)) > 1 for group in servers)  # each with its sweep workers
            report = cold_rush(served.base, SESSIONS)
            assert report.errors == [], report.summary()
            assert {page: len(times) for page, times in report.runs.items()} == {HOME: SESSIONS // 2,
                                                                                 SHARE_LINK: SESSIONS // 2}
            browsers, paths = defaultdict(set), defaultdict(set)
            for path, upstream, sticky in visits(tmp_path / "access.log", SESSIONS):
                browsers[sticky].add(upstream)
                paths[sticky].add(path)
            sessions = [sticky for sticky, seen in paths.items() if "/_stcore/stream" in seen]
            assert len(sessions) == SESSIONS  # one cookie a browser (the others: start-up's health checks)
            assert all(paths[sticky] == {"/_stcore/health", "/_stcore/stream"} for sticky in sessions), paths
            assert all(len(browsers[sticky]) == 1 for sticky in sessions), browsers
            assert len(set().union(*(browsers[sticky] for sticky in sessions))) == WORKERS  # both servers got browsers
            secrets = {cookie_secret(group) for group in servers}
            assert len(secrets) == 1 and None not in secrets  # one cookie secret for all

            served.process.send_signal(signal.SIGTERM)
            deadline = time.monotonic() + STOP_WITHIN
            left = lambda: [p for group in {served.process.pid, *groups} for p in group_processes(group)]  # noqa: E731
            while left() and time.monotonic() < deadline:
                time.sleep(0.1)  # polling the process table
            assert left() == [], f"left {STOP_WITHIN:g} s after SIGTERM"
    except ServerError as error:
        pytest.fail(str(error))


def test_a_server_started_elsewhere_serves_the_class_through_nginx_with_remote_and_ctrl_c_stops_it(tmp_path):
    try:
        with app_server() as elsewhere:
            address = elsewhere.base.removeprefix("http://")
            with served_class(0, logs=tmp_path, remote=(address,)) as served:  # nginx alone, before another machine
                assert cold_rush(served.base, 2).errors == []
                served_by = {upstream for path, upstream, _ in visits(tmp_path / "access.log", 2)
                             if path == "/_stcore/stream"}
                assert served_by == {address}
                groups = child_groups(served.process.pid)
                os.killpg(served.process.pid, signal.SIGINT)  # Ctrl-C, as a terminal sends it to serve.py's group
                assert served.process.wait(STOP_WITHIN) == 0
                assert [p for group in groups for p in group_processes(group)] == []  # nginx stopped
            assert group_processes(elsewhere.process.pid)  # a remote server is not serve.py's to stop
    except ServerError as error:
        pytest.fail(str(error))


def test_when_a_server_ends_serve_stops_the_rest_and_says_so_with_its_status():
    try:
        with served_class(1) as served:
            groups = child_groups(served.process.pid)
            server = next(group for group in groups if "streamlit run app.py" in " ".join(group_processes(group)))
            kill_group(server)  # the server dies (out of memory, say)
            assert served.process.wait(STOP_WITHIN) == 1
            assert [p for group in groups for p in group_processes(group)] == []  # nginx stopped too
    except ServerError as error:
        pytest.fail(str(error))
