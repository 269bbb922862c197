"""What the browser tests and the benchmarks share: Debian's Chromium, a `streamlit run` server and serve.py's class of
servers behind nginx, each started in its own process group and ended with it."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync"]


class ServerError(RuntimeError):
    """The app's server did not start; the message carries its log."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass(frozen=True)
class Server:
    """A server a test started: where it answers, and its process, the leader of its own process group."""
    base: str
    process: subprocess.Popen


def _processes() -> Iterator[tuple[int, str, int, int, str]]:
    """(pid, state, parent, process group, command) of every process (one that ends while we look is left out)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
            command = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue
        state, parent, group = text[text.rindex(")") + 2:].split()[:3]  # after "pid (name) "
        yield int(stat.parent.name), state, int(parent), int(group), command


def group_processes(group: int) -> list[str]:
    """The live processes of a process group, each as "pid command" (zombies, which hold nothing but an exit
    status until their parent reads it, left out)."""
    return [f"{pid} {command}" for pid, state, _, pgrp, command in _processes() if pgrp == group and state != "Z"]


def child_groups(pid: int) -> set[int]:
    """The process groups of `pid`'s children (serve.py starts each server and nginx in a group of its own)."""
    return {group for _, state, parent, group, _ in _processes() if parent == pid and state != "Z"}


def cpu_seconds(pids: list[int]) -> float:
    """The CPU seconds (user and system) the processes have used so far; one that has ended counts nothing."""
    ticks = 0
    for pid in pids:
        try:
            text = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        ticks += sum(map(int, text[text.rindex(")") + 2:].split()[11:13]))  # utime, stime (after "pid (name) ")
    return ticks / os.sysconf("SC_CLK_TCK")


def stop_and_wait(server: Server, stop: str, limit: float) -> float | None:
    """Stop the server as `stop` says (SIGTERM to it, or Ctrl-C, which a terminal sends its whole foreground process
    group) and wait until its group holds no process: the seconds that took, or None if some were left after
    `limit` seconds."""
    group, started = server.process.pid, time.monotonic()
    if stop == "SIGTERM":
        server.process.send_signal(signal.SIGTERM)
    else:
        os.killpg(group, signal.SIGINT)
    while group_processes(group):
        if time.monotonic() - started > limit:
            return None
        time.sleep(0.05)  # polling the process table
    return time.monotonic() - started


def kill_group(group: int) -> None:
    """SIGKILL to whatever is left of a process group."""
    try:
        os.killpg(group, signal.SIGKILL)
    except ProcessLookupError:
        pass


@contextmanager
def started(command: list[str], base: str, start_timeout: float) -> Iterator[Server]:
    """Run `command` (from the project's folder, in its own process group) until `base`/_stcore/health answers;
    yield it; then stop it (SIGTERM) and kill whatever is left of its group."""
    with tempfile.TemporaryFile("w+") as log:
        process = subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            deadline = time.monotonic() + start_timeout
            while True:
                if process.poll() is not None or time.monotonic() > deadline:
                    log.seek(0)
                    raise ServerError(f"{' '.join(command)} did not answer on {base}:\n{log.read()}")
                try:
                    with urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as answer:
                        if answer.status == 200:
                            break
                except OSError:
                    time.sleep(0.25)  # polling the server, not waiting on a page
            yield Server(base, process)
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            kill_group(process.pid)


@contextmanager
def app_server(start_timeout: float = 60) -> Iterator[Server]:
    """`streamlit run app.py` on a free port with the project's settings, in its own process group."""
    port = free_port()
    with started([sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true", "--server.port",
                  str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"],
                 f"http://127.0.0.1:{port}", start_timeout) as server:
        yield server


@contextmanager
def streamlit_server(start_timeout: float = 60) -> Iterator[str]:
    """`streamlit run app.py` (app_server); yields the base URL once /_stcore/health answers, and stops the server
    and its group afterwards."""
    with app_server(start_timeout) as server:
        yield server.base


@contextmanager
def served_class(workers: int, start_timeout: float = 180, logs: Path | None = None,
                 remote: tuple[str, ...] = ()) -> Iterator[Server]:
    """`python serve.py --workers N`: N servers (and the `remote` ones, host:port) behind nginx on a free port of
    127.0.0.1, its logs in `logs`. At the end, whatever is left of the servers' and nginx's own process groups is
    killed too."""
    port = free_port()
    command = [sys.executable, "serve.py", "--workers", str(workers), "--address", "127.0.0.1", "--port", str(port),
               *(["--logs", str(logs)] if logs else []), *(f"--remote={address}" for address in remote)]
    groups: set[int] = set()
    try:
        with started(command, f"http://127.0.0.1:{port}", start_timeout) as server:
            groups = child_groups(server.process.pid)
            yield server
    finally:
        for group in groups:
            kill_group(group)
