"""Serving a class larger than one interpreter: `python serve.py --workers N` starts N servers (`streamlit run app.py`)
on this machine behind nginx, which keeps each browser on one of them, and stops them all together.

A session lives in the memory of the server that runs it, so a browser's requests (the page, the health check that
sets its XSRF cookie, the websocket, uploads) must all reach that one. nginx open source has no sticky-cookie
directive, so the cookie is made by hand: a request without it is placed by a hash of the request's own random id,
and the response gives the browser that id as its cookie, which every later request hashes to the same server
(`hash ... consistent` over a map of the cookie). The servers share one `server.cookieSecret`, which Streamlit signs
its cookies with, so a cookie one server made holds on the others. `--remote HOST:PORT` adds a server started on
another machine with the same secret (README: "Serving a large class"). nginx runs as the invoking user from a
configuration written into a temporary folder; Ctrl-C or SIGTERM stops nginx and every server, each in a process
group of its own that is ended with it, within STOP_GRACE seconds.
"""
from __future__ import annotations

import argparse
import grp
import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"  # Debian's (apt-get install nginx)
COOKIE = "classroom_server"  # the sticky cookie nginx sets
SECRET_ENV = "STREAMLIT_SERVER_COOKIE_SECRET"  # Streamlit's server.cookieSecret, as every server reads it
START_TIMEOUT = 180.0  # seconds for every server to answer its health check (each warms its caches first)
STOP_GRACE = 8.0  # seconds the processes get to stop before they are killed
UPLOAD_MB = 20  # server.maxUploadSize in .streamlit/config.toml


def nginx_config(listen: str, servers: list[str], run: Path, logs: Path) -> str:
    """nginx's whole configuration: `listen` (address:port) proxied to `servers` (host:port), sticky by the COOKIE;
    its pid and temporary files in `run`, its logs in `logs`."""
    user = ""
    if os.geteuid() == 0:  # else nginx's workers would run as nobody, who cannot read `run`
        user = f"user {pwd.getpwuid(os.getuid()).pw_name} {grp.getgrgid(os.getgid()).gr_name};"
    upstream = "\n".join(f"        server {server};" for server in servers)
    return f"""{user}
worker_processes 1;
daemon off;
pid {run}/nginx.pid;
error_log {logs}/error.log warn;
events {{ worker_connections 4096; }}
http {{
    log_format classroom '$remote_addr [$time_local] "$request" $status upstream=$upstream_addr sticky=$sticky';
    access_log {logs}/access.log classroom;
    client_body_temp_path {run}/body;
    proxy_temp_path {run}/proxy;
    fastcgi_temp_path {run}/fastcgi;
    uwsgi_temp_path {run}/uwsgi;
    scgi_temp_path {run}/scgi;
    client_max_body_size {UPLOAD_MB + 1}m;
    # The server a browser keeps: its cookie's value, or for a first request the request's own random id, which
    # the response then sets as the cookie.
    map $cookie_{COOKIE} $sticky {{
        "" $request_id;
        default $cookie_{COOKIE};
    }}
    map $cookie_{COOKIE} $sticky_cookie {{
        "" "{COOKIE}=$request_id; Path=/; HttpOnly; SameSite=Lax";
        default "";
    }}
    map $http_upgrade $connection_upgrade {{
        default upgrade;
        "" "";
    }}
    upstream classroom {{
        hash $sticky consistent;
{upstream}
    }}
    server {{
        listen {listen};
        location / {{
            proxy_pass http://classroom;
            proxy_http_version 1.1;
            proxy_set_header Host $http_host;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_read_timeout 1d;
            proxy_send_timeout 1d;
            add_header Set-Cookie $sticky_cookie;
        }}
    }}
}}
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def healthy(base: str) -> bool:
    try:
        with urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as answer:
            return answer.status == 200
    except OSError:
        return False


def start_server(port: int, log: Path, secret: str) -> subprocess.Popen:
    """One `streamlit run app.py` on 127.0.0.1:`port`, in its own process group, its output in `log`."""
    command = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
               "--server.address", "127.0.0.1"]
    with log.open("w") as out:
        return subprocess.Popen(command, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                                env=os.environ | {SECRET_ENV: secret})


def start_nginx(listen: str, servers: list[str], run: Path, logs: Path) -> subprocess.Popen:
    """nginx in the foreground (its master a child of ours), in its own process group, configured in `run`."""
    config = run / "nginx.conf"
    config.write_text(nginx_config(listen, servers, run, logs))
    return subprocess.Popen([NGINX, "-p", str(run), "-c", str(config), "-e", str(logs / "error.log")],
                            start_new_session=True)


def stop(processes: list[subprocess.Popen]) -> None:
    """SIGTERM to each (nginx stops at once, a server after its lifespan stops its workers), then SIGKILL to what
    is left of their process groups."""
    for process in processes:
        if process.poll() is None:
            process.terminate()
    deadline = time.monotonic() + STOP_GRACE
    for process in processes:
        try:
            process.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            pass
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.wait()


def wait_healthy(base: str, processes: list[subprocess.Popen], deadline: float, stopping: threading.Event) -> bool:
    """Whether `base` answers before one of `processes` ends, the deadline passes or we are asked to stop."""
    while not healthy(base):
        if any(process.poll() is not None for process in processes) or time.monotonic() > deadline \
                or stopping.is_set():
            return False
        time.sleep(0.25)  # polling what is starting
    return True


def serve(workers: int, listen: str, remote: list[str], logs: Path, stopping: threading.Event) -> int:
    """Start the servers, then nginx in front of them, say where, and hold them until `stopping` is set or one of
    them ends; then stop them all."""
    secret = os.environ.get(SECRET_ENV) or secrets.token_urlsafe(32)
    ports = [free_port() for _ in range(workers)]
    processes = [start_server(port, logs / f"server-{i}.log", secret) for i, port in enumerate(ports, start=1)]
    names = {process.pid: f"server {i}" for i, process in enumerate(processes, start=1)}

    def failed(what: str) -> int:
        if stopping.is_set():  # asked to stop while starting: nothing failed
            return 0
        ended = ", ".join(names[p.pid] for p in processes if p.poll() is not None) or "none"
        print(f"{what} (ended: {ended}); logs in {logs}", file=sys.stderr)
        return 1

    deadline = time.monotonic() + START_TIMEOUT
    with tempfile.TemporaryDirectory(prefix="classroom-nginx-") as run:
        try:
            for i, port in enumerate(ports, start=1):
                if not wait_healthy(f"http://127.0.0.1:{port}", processes, deadline, stopping):
                    return failed(f"server {i} did not start")
                print(f"server {i}: http://127.0.0.1:{port}", flush=True)
            for address in remote:
                print(f"remote server: http://{address}" + ("" if healthy(f"http://{address}") else " (not answering)"),
                      flush=True)
            nginx = start_nginx(listen, [f"127.0.0.1:{port}" for port in ports] + remote, Path(run), logs)
            processes.append(nginx)
            names[nginx.pid] = "nginx"
            host, port = listen.rsplit(":", 1)
            if not wait_healthy(f"http://{'127.0.0.1' if host == '0.0.0.0' else host}:{port}", processes, deadline,
                                stopping):
                return failed("nginx did not start")
            count = workers + len(remote)
            print(f"The batching classroom: http://{listen} ({count} server{'s' * (count != 1)} behind nginx; logs "
                  f"in {logs})", flush=True)
            while not stopping.wait(0.5):
                if any(process.poll() is not None for process in processes):
                    return failed("stopping the others")
            return 0
        finally:
            stop(processes)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                        help="servers on this machine (default: one a CPU)")
    parser.add_argument("--address", default="0.0.0.0", help="the address nginx listens on (default: every one)")
    parser.add_argument("--port", type=int, default=8501, help="the port nginx listens on (default: 8501)")
    parser.add_argument("--remote", action="append", default=[], metavar="HOST:PORT",
                        help="a server started on another machine with the same cookie secret (repeatable)")
    parser.add_argument("--logs", type=Path, help="where nginx and each server write their logs (default: a "
                        "temporary folder, removed at the end)")
    args = parser.parse_args()
    if args.workers < 0 or args.workers + len(args.remote) < 1:
        parser.error("serve at least one server: --workers N, --remote HOST:PORT or both")
    stopping = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stopping.set())
    with tempfile.TemporaryDirectory(prefix="classroom-logs-") as temporary:
        logs = args.logs or Path(temporary)
        logs.mkdir(parents=True, exist_ok=True)
        return serve(args.workers, f"{args.address}:{args.port}", args.remote, logs.resolve(), stopping)


if __name__ == "__main__":
    sys.exit(main())
