"""The worked example's story played in a real Chromium while forty protocol sessions keep the server busy (a class):
Play's first frame within 200 ms of the click, every frame shown in order with every panel at its time, Pause
within one frame, and nothing sent to the server while it plays. Then each frame's words fit their boxes at both
sizes, in both languages and in presenter mode. Needs Debian's Chromium, like tests/test_browser.py."""
from __future__ import annotations

import re
import subprocess
import sys

import pytest

from kit.browser_kit import CHROMIUM, CHROMIUM_ARGS, ROOT, ServerError, streamlit_server
from tests.test_browser import SCREENSHOTS, wait_idle

playwright_api = pytest.importorskip("playwright.sync_api")

LOAD_SESSIONS, LOAD_SECONDS = 40, 60
FIRST_FRAME_MS = 200
SPEED = 2  # ticks a second while the test plays: a frame every 500 ms
END, ENDS = 11, (11, 8)  # the story's last time; when each run (static, continuous) is over
STORY = ".st-key-ex_story"

# Reads, in one turn of the page's script (so from one drawn state), the time each panel shows: the titles' times,
# each narration's first words, and where each chart's curtain (the white shape hiding what is still to come)
# begins, in ticks, from its drawn position against its axis's drawn tick labels. (The layout only says which chart
# or box a drawn shape or note belongs to.)
READ = r"""() => {
  const gd = document.querySelector('.st-key-ex_story .js-plotly-plot');
  const titles = Array.from(gd.querySelectorAll('.annotation-text')).map(e => e.textContent)
    .map(t => (t.match(/(?:time|时间) (\d+)/) || [])[1]).filter(Boolean).map(Number);
  const named = (name) => Array.from(gd.querySelectorAll('.annotation[data-index]'))
    .filter(a => (gd.layout.annotations[Number(a.dataset.index)] || {}).name === name);
  const words = ['narration0', 'narration1'].map(name => named(name)[0].textContent);
  const curtains = {};
  gd.querySelectorAll('.shapelayer path[data-index]').forEach(path => {
    const shape = gd.layout.shapes[Number(path.dataset.index)];
    if (!shape || shape.type !== 'rect' || shape.layer !== 'above') return;  // a curtain, not a box
    const axis = shape.xref;  // x, x2...: its tick labels are classed xtick, x2tick...
    const ticks = Array.from(gd.querySelectorAll(`.${axis}tick text`));
    const at = (n) => { const r = ticks.find(e => e.textContent === String(n)).getBoundingClientRect();
                        return r.left + r.width / 2; };
    const per = (at(10) - at(0)) / 10;
    curtains[axis] = (path.getBoundingClientRect().left - at(0)) / per;
  });
  return {titles, words, curtains: ['x', 'x2', 'x3', 'x4'].map(a => curtains[a])};
}"""

# Records, on the page's own clock, every click on the story's buttons, every frame Plotly starts, and, while
# `window.story.watching`, every state the browser paints that differs from the last (read just before the paint).
PROBE = "() => {" + f"const read = {READ};" + r"""
  const gd = document.querySelector('.st-key-ex_story .js-plotly-plot');
  window.story = {frames: [], clicks: [], paints: [], watching: false};
  document.addEventListener('click', (e) => {
    const button = e.target.closest('.updatemenu-button');
    if (button) window.story.clicks.push([button.textContent, e.timeStamp]);
  }, true);
  gd.on('plotly_animatingframe', (e) => window.story.frames.push([e.name, performance.now()]));
  let last = '';
  const paint = (at) => {
    if (window.story.watching) {
      const panels = read(), seen = JSON.stringify(panels);
      if (seen !== last) window.story.paints.push({at: performance.now(), panels});
      last = seen;
    }
    requestAnimationFrame(paint);
  };
  requestAnimationFrame(paint);
}"""
SHOWN = "() => { const p = window.story.paints.at(-1); return p ? p.panels.titles[0] : null; }"


def expected_words(now: int, end: int) -> str:
    if now == 0:
        return "Time 0"
    return f"t={end}: every request is done" if now > end else f"t={now - 1}:"


def assert_panels_at(panels: dict, now: int) -> None:
    """Every panel of one drawn state shows time `now`."""
    assert panels["titles"] and set(panels["titles"]) == {now}, panels
    for words, end in zip(panels["words"], ENDS):
        assert words.startswith(expected_words(now, end)), (now, panels)
    assert all(abs(x - now) < 0.1 for x in panels["curtains"]), (now, panels)


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium)")
    with playwright_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def server():
    try:
        with streamlit_server() as base:
            yield base
    except ServerError as error:
        pytest.fail(str(error))


def button(page, label: str):
    """The story's button labelled `label` exactly (the Play button's label holds a ▶ too)."""
    return page.locator(f"{STORY} .updatemenu-button").filter(has_text=re.compile(rf"^\s*{re.escape(label)}\s*$"))


def open_story(browser, base: str, locale: str = "en-US", viewport: dict | None = None):
    context = browser.new_context(locale=locale, viewport=viewport or {"width": 1400, "height": 900})
    context.set_default_timeout(300_000)  # the page's first visit queues behind forty others
    page = context.new_page()
    sent = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(payload)))
    page.goto(base + "/worked_example")
    wait_idle(page)
    page.locator(f"{STORY} .main-svg").first.wait_for()
    return context, page, sent


def shown_after(page, now: int) -> None:
    page.wait_for_function(f"() => ({SHOWN})() === {now}")


def test_the_story_plays_in_the_browser_under_a_class_load(browser, server):
    load = subprocess.Popen([sys.executable, "-m", "kit.protocol_load", server, "--sessions", str(LOAD_SESSIONS),
                             "--seconds", str(LOAD_SECONDS)], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert load.stdout.readline().strip() == "busy"
        context, page, sent = open_story(browser, server)
        page.evaluate(PROBE)
        page.locator(f"{STORY} .updatemenu-header-group").last.click()  # the speed
        page.locator(f"{STORY} .updatemenu-dropdown-button").filter(has_text=f"{SPEED} ticks/s").click()
        page.evaluate("() => { window.story.watching = true; }")
        for now in (1, 2):
            button(page, "▶").click()
            shown_after(page, now)
        page.screenshot(path=str(SCREENSHOTS / "story-under-load-t2.png"))
        before, painted = len(sent), page.evaluate("() => window.story.paints.length")
        button(page, "▶ Play").click()
        shown_after(page, END)
        page.screenshot(path=str(SCREENSHOTS / "story-under-load-end.png"))
        assert len(sent) == before, "the browser sent the server messages while the story played"
        story = page.evaluate("() => window.story")
        (label, clicked), paints = story["clicks"][-1], story["paints"][painted - 1:]
        assert label == "▶ Play" and paints[0]["panels"]["titles"][0] == 2
        for paint in paints:  # no torn frame: every state painted has every panel at one time
            assert_panels_at(paint["panels"], paint["panels"]["titles"][0])
        assert [p["panels"]["titles"][0] for p in paints] == list(range(2, END + 1))  # none skipped, in order
        first = paints[1]["at"] - clicked
        print(f"\nthe story under {LOAD_SESSIONS} sessions' load: Play's first frame painted {first:.0f} ms after the "
              f"click; {len(paints)} states painted, each at one time", file=sys.__stderr__)
        assert first <= FIRST_FRAME_MS, f"Play's first frame painted {first:.0f} ms after the click"

        button(page, "▶ Play").click()  # over: from the start again
        shown_after(page, 3)
        button(page, "❚❚ Pause").click()
        page.wait_for_timeout(3 * 1000 / SPEED)  # three frames' time: a paused story shows none of them
        story = page.evaluate("() => window.story")
        paused = story["clicks"][-1][1]
        after = [p for p in story["paints"] if p["at"] > paused]
        assert len(after) <= 1 and all(p["at"] - paused <= 1000 / SPEED for p in after), after  # one frame at most
        print(f"Pause: {len(after)} frame painted after the click", file=sys.__stderr__)
        assert load.poll() is None, "the class's load ended before the story was measured"
        context.close()
    finally:
        out, _ = load.communicate(timeout=LOAD_SECONDS + 600)
    assert load.returncode == 0, out


@pytest.mark.parametrize("presenting", [False, True], ids=["plain", "presenter"])
@pytest.mark.parametrize("locale", ["en-US", "zh-CN"])
@pytest.mark.parametrize("size", [(1024, 768), (1400, 900)], ids=["1024", "1400"])
def test_every_frames_words_fit_their_boxes(browser, server, locale, size, presenting):
    """No words of any frame stick out of their box, and every frame shows each panel at its time."""
    context, page, _ = open_story(browser, server, locale, {"width": size[0], "height": size[1]})
    if presenting:
        page.locator(".st-key-w_presenter label").first.click()
        wait_idle(page)
        page.locator(f"{STORY} .main-svg").first.wait_for()
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
            name = f"story-{locale[:2]}-{size[0]}{'-presenter' if presenting else ''}-t{now}.png"
            page.screenshot(path=str(SCREENSHOTS / name))
    context.close()
