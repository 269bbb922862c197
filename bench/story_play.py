"""The worked example's story played in Chromium while N protocol sessions keep the server busy (default 40, a
class): Play's first frame (ms from the click to the first new state painted), skipped and torn frames, frames
painted after Pause, and the messages the browser sent while it played; over --runs plays (each in a fresh page,
after one warm-up play left out), the median and the worst. Goals (issue 26): first frame within 200 ms, no frame
skipped or torn, Pause within one frame, nothing sent.
Usage: python bench/story_play.py [--sessions N] [--runs N]"""
import argparse
import statistics
import subprocess
import sys

from common import ROOT  # (puts the project on sys.path)
from playwright.sync_api import sync_playwright

from kit.browser_kit import CHROMIUM, CHROMIUM_ARGS, streamlit_server
from kit.story_play import END, SPEED, open_story, play

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--sessions", type=int, default=40)
parser.add_argument("--runs", type=int, default=5)
args = parser.parse_args()

with streamlit_server() as base, sync_playwright() as p:
    browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
    load = subprocess.Popen([sys.executable, "-m", "kit.protocol_load", base, "--sessions", str(args.sessions),
                             "--seconds", "3600"], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert load.stdout.readline().strip() == "busy"
        plays = []
        for attempt in range(args.runs + 1):
            context, page, sent = open_story(browser, base)
            played = play(page, sent)
            context.close()
            if attempt:  # the first is a warm-up: the browser's first page and the server's first rush
                plays.append(played)
    finally:
        load.terminate()
        load.wait()
    browser.close()

first = [p.first_ms for p in plays]
skipped = [len(set(range(2, END + 1)) - set(p.times)) for p in plays]
print(f"{args.runs} plays at {SPEED} ticks a second under {args.sessions} protocol sessions' load:")
print(f"  Play's first frame: median {statistics.median(first):.0f} ms, worst {max(first):.0f} ms (goal <= 200 ms)")
print(f"  frames skipped: {sum(skipped)}; torn states painted: {sum(len(p.torn) for p in plays)} (goal 0)")
print(f"  frames painted after Pause: at most {max(len(p.after_pause) for p in plays)} (goal <= 1)")
print(f"  messages sent to the server while playing: {sum(p.sent for p in plays)} (goal 0)")
