"""The worked example's story played in a real Chromium while forty protocol sessions keep the server busy (a class):
Play's first frame within 200 ms of the click, every frame shown in order with every panel at its time, Pause
within one frame, and nothing sent to the server while it plays. Then each frame's words fit their boxes at both
sizes, in both languages and in presenter mode. Needs Debian's Chromium, like tests/test_browser.py."""
from __future__ import annotations

import subprocess
import sys

import pytest

from kit.browser_kit import ROOT
from kit.story_play import END, PROBE, READ, SPEED, STORY, button, open_story, panels_at, play
from tests.test_browser import SCREENSHOTS, wait_idle
from tests.test_layout import at_both_sizes
from ui.presenter import MIN_FONT_PX

pytest.importorskip("playwright.sync_api")  # (its browser fixture drives Chromium)

LOAD_SESSIONS, LOAD_SECONDS = 40, 60
FIRST_FRAME_MS = 200
PRESENTER_DRAWN = f"""() => {{ const gd = document.querySelector('{STORY} .js-plotly-plot');
  return Boolean(gd && gd.layout && gd.querySelector('.main-svg') && gd.layout.font.size >= {MIN_FONT_PX}); }}"""


def assert_panels_at(panels: dict, now: int) -> None:
    assert panels_at(panels, now), (now, panels)


def test_the_story_plays_in_the_browser_under_a_class_load(browser, server):
    # (the load ends when its standard input closes, as communicate() closes it once the story is measured)
    load = subprocess.Popen([sys.executable, "-m", "kit.protocol_load", server, "--sessions", str(LOAD_SESSIONS),
                             "--seconds", str(LOAD_SECONDS), "--until-eof"], cwd=ROOT, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    try:
        assert load.stdout.readline().strip() == "busy"
        context, page, sent = open_story(browser, server)
        played = play(page, sent)
        page.screenshot(path=str(SCREENSHOTS / "story-under-load-paused.png"))
        assert load.poll() is None, "the class's load ended before the story was measured"
        context.close()
    finally:
        out, _ = load.communicate(timeout=LOAD_SECONDS + 600)
    assert load.returncode == 0, out
    print(f"\nthe story under {LOAD_SESSIONS} sessions' load: Play's first frame painted {played.first_ms:.0f} ms "
          f"after the click; {len(played.paints)} states painted; {len(played.after_pause)} after Pause",
          file=sys.__stderr__)
    assert played.sent == 0, "the browser sent the server messages while the story played"
    assert played.torn == []  # no torn frame: every state painted has every panel at one time
    assert played.times == list(range(2, END + 1))  # none skipped, in order
    assert played.first_ms <= FIRST_FRAME_MS, f"Play's first frame painted {played.first_ms:.0f} ms after the click"
    # Pause within one frame: at most the frame on its way is painted, and no later than a frame's time
    assert len(played.after_pause) <= 1 and all(p["at"] - played.paused_at <= 1000 / SPEED for p in played.after_pause)


@pytest.mark.parametrize("presenting", [False, True], ids=["plain", "presenter"])
@pytest.mark.parametrize("locale", ["en-US", "zh-CN"])
def test_every_frames_words_fit_their_boxes(browser, side, server, locale, presenting):
    """No words of any frame stick out of their box, and every frame shows each panel at its time, at both sizes."""
    at_both_sizes(side, browser, lambda chromium, viewport: frames_fit(chromium, server, locale, viewport, presenting))


def frames_fit(browser, server: str, locale: str, viewport: dict, presenting: bool) -> list[str]:
    """test_every_frames_words_fit_their_boxes at one size: its assertions fail it; no problems are left to return."""
    context, page, _ = open_story(browser, server, locale, viewport)
    if presenting:
        page.locator(".st-key-w_presenter label").first.click()
        # The click's rerun may not have begun when the page first looks idle: wait for the chart drawn afresh at
        # presenter mode's sizes, or the probe would listen to the chart about to be replaced and see no frame
        page.wait_for_function(PRESENTER_DRAWN)
        wait_idle(page)
        page.evaluate(PROBE)
    # Every note that names a box (a narration, a table's figures, the summary) lies inside that box, as drawn
    outside = r"""() => {
      const gd = document.querySelector('.st-key-ex_story .js-plotly-plot');
      const boxes = {};
      gd.querySelectorAll('.shapelayer path[data-index]').forEach(path => {
        const name = (gd.layout.shapes[Number(path.dataset.index)] || {}).name;
        if (name) boxes[name] = path.getBoundingClientRect();
      });
      return Array.from(gd.querySelectorAll('.annotation[data-index]')).map(note => {
        const name = (gd.layout.annotations[Number(note.dataset.index)] || {}).name;
        if (!name || !note.textContent) return null;
        const r = note.querySelector('.annotation-text-g').getBoundingClientRect(), box = boxes[name];
        const out = Math.max(box.left - r.left, r.right - box.right, box.top - r.top, r.bottom - box.bottom);
        return out > 1 ? `${name}: "${note.textContent.slice(0, 40)}" ${Math.round(out)} px out of its box` : null;
      }).filter(Boolean);
    }"""
    for now in range(END + 1):
        if now:
            button(page, "▶").click()
        page.wait_for_function("(n) => window.story.frames.some(f => f[0] === String(n))", arg=now) if now else None
        assert page.evaluate(outside) == [], now
        if locale == "en-US":
            assert_panels_at(page.evaluate(READ), now)
        if now in (0, 3, 6, END):
            name = f"story-{locale[:2]}-{viewport['width']}{'-presenter' if presenting else ''}-t{now}.png"
            page.screenshot(path=str(SCREENSHOTS / name))
    context.close()
    return []
