"""The worked example's story played in Chromium, measured on the page's own clock: what tests/test_story_browser.py
checks and bench/story_play.py prints. Each painted state is read just before the browser paints it, so a torn
state (panels at two times), a skipped frame or a late one shows in what `play` returns."""
from __future__ import annotations

import re
from dataclasses import dataclass

STORY = ".st-key-ex_story"
END, ENDS = 11, (11, 8)  # the story's last time; when each run (static, continuous) is over
SPEED = 2  # ticks a second while a measured story plays: a frame every 500 ms

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
    """How a run's narration begins at time `now` (in English)."""
    if now == 0:
        return "Time 0"
    return f"t={end}: every request is done" if now > end else f"t={now - 1}:"


def panels_at(panels: dict, now: int) -> bool:
    """Whether every panel of one drawn state shows time `now`: the titles, both narrations and the curtains."""
    return (bool(panels["titles"]) and set(panels["titles"]) == {now}
            and all(words.startswith(expected_words(now, end)) for words, end in zip(panels["words"], ENDS))
            and all(abs(x - now) < 0.1 for x in panels["curtains"]))


def button(page, label: str):
    """The story's button labelled `label` exactly (the Play button's label holds a ▶ too)."""
    return page.locator(f"{STORY} .updatemenu-button").filter(has_text=re.compile(rf"^\s*{re.escape(label)}\s*$"))


def open_story(browser, base: str, locale: str = "en-US", viewport: dict | None = None):
    """The worked example in a new context, drawn, with its probe installed: (context, page, the websocket
    messages the page has sent so far, a list that grows)."""
    context = browser.new_context(locale=locale, viewport=viewport or {"width": 1400, "height": 900})
    context.set_default_timeout(300_000)  # the page's first visit may queue behind a class's
    page = context.new_page()
    sent = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(payload)))
    page.goto(base + "/worked_example")
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]')
    page.locator(f"{STORY} .main-svg").first.wait_for()
    page.evaluate(PROBE)
    return context, page, sent


def shown_after(page, now: int) -> None:
    page.wait_for_function(f"() => ({SHOWN})() === {now}")


@dataclass
class Played:
    """One measured play from time 2 to the end, then a pause: every state painted from the click on, Play's
    first frame's delay, the messages sent while it played, and what was painted after Pause was clicked."""
    paints: list[dict]
    first_ms: float
    sent: int
    paused_at: float
    after_pause: list[dict]

    @property
    def times(self) -> list[int]:
        return [p["panels"]["titles"][0] for p in self.paints]

    @property
    def torn(self) -> list[dict]:
        return [p["panels"] for p in self.paints if not panels_at(p["panels"], p["panels"]["titles"][0])]


def play(page, sent: list) -> Played:
    """At SPEED ticks a second: step to time 2, Play to the end, Play again (from the start) and Pause at 3."""
    page.locator(f"{STORY} .updatemenu-header-group").last.click()  # the speed
    page.locator(f"{STORY} .updatemenu-dropdown-button").filter(has_text=f"{SPEED} ticks/s").click()
    page.evaluate("() => { window.story.watching = true; }")
    for now in (1, 2):
        button(page, "▶").click()
        shown_after(page, now)
    before, painted = len(sent), page.evaluate("() => window.story.paints.length")
    button(page, "▶ Play").click()
    shown_after(page, END)
    story = page.evaluate("() => window.story")
    (label, clicked), paints = story["clicks"][-1], story["paints"][painted - 1:]
    assert label == "▶ Play", label
    quiet = len(sent) - before
    button(page, "▶ Play").click()  # over: from the start again
    shown_after(page, 3)
    button(page, "❚❚ Pause").click()
    page.wait_for_timeout(3 * 1000 / SPEED)  # three frames' time: a paused story shows none of them
    story = page.evaluate("() => window.story")
    paused = story["clicks"][-1][1]
    return Played(paints, paints[1]["at"] - clicked, quiet, paused, [p for p in story["paints"] if p["at"] > paused])
