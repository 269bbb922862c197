"""Layout test: every page at 1400×900 and 1024×768, in English and Chinese, drawn without sideways-scrolling tables,
text that sticks out of its Plotly chart (a subtitle included), a legend that scrolls, or a widget, metric or page
link label cut off.

Each page opens in a fresh browser context whose locale picks the language (the app follows the browser's locale on
first visit). The lab's options and the capacity lab's examples are checked at both sizes at once: one in a second
Chromium on a thread of its own (`side`), as two students' browsers. In the check of every page no button is
pressed: what is checked is what a page draws by itself (the capacity lab's first-visit sweep included); the pages
that fold options into expanders are checked again at both sizes, plain and in presenter mode, with each one open.
The pages come from the files in pages/ (home.py is "/", x.py is "/x"), so a page added later is checked too. The
checks run as one script in the page (CHECKS) that returns a list of problems, each naming the page, the language
and the element; the test fails showing that list. Needs Debian's Chromium, like tests/test_browser.py.
"""
from __future__ import annotations

import json
import re
import sys
import time
from collections.abc import Callable
from concurrent.futures import wait

import pytest

from kit.browser_kit import CHROMIUM, CHROMIUM_ARGS, ROOT, streamlit_server
from tests.test_browser import SCREENSHOTS, title, wait_idle
from ui.presenter import MIN_FONT_PX, PAGE_KEY

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect
PlaywrightTimeout = playwright_api.TimeoutError

VIEWPORTS = {"1400x900": {"width": 1400, "height": 900}, "1024x768": {"width": 1024, "height": 768}}
VIEWPORT = VIEWPORTS["1400x900"]
LOCALES = {"en": "en-US", "zh": "zh-CN"}
TIMEOUT_MS = 90_000  # the capacity lab's first-visit sweep takes several seconds, more on a busy machine
SETTLE_S = 0.3  # the page's geometry must stay the same over three polls this far apart
PAGES = {("/" if file.stem == "home" else f"/{file.stem}") for file in (ROOT / "pages").glob("*.py")}
TITLES = {  # path: (English title, Chinese title), of the pages that open with a chart
    "/": ("The batching classroom", "批处理课堂"),
    "/worked_example": ("Worked example", "示例推演"),
    "/trace_lab": ("Trace lab", "Trace 实验室"),
    "/metrics_guide": ("Metrics guide", "指标指南"),
    "/many_servers": ("Many servers: routers and prefill/decode disaggregation", "多台服务器：路由与预填充/解码分离"),
    "/planner": ("Plan a fleet: how many GPUs does this trace need?", "规划集群：这条 trace 需要多少块 GPU？"),
}

# Shared by the checks: what is drawn (a hidden tab's or a folded expander's elements have no boxes), a short name
# for a table (its key, the heading it is under, its first column headers) and a chart (its title, else its heading).
HELPERS = r"""
  const shown = (el) => el.getClientRects().length > 0 && el.getBoundingClientRect().width > 0
    && !el.closest('details:not([open])');  // a folded expander's content may keep its boxes
  const text = (el) => (el.textContent || '').replace(/\s+/g, ' ').trim();
  const keyed = (el) => {
    const box = el.closest('[class*="st-key-"]');
    const key = box && Array.from(box.classList).find(c => c.startsWith('st-key-'));
    return key ? key.slice('st-key-'.length) : null;
  };
  const under = (el) => {  // the last heading before the element, in the page's order
    const heads = Array.from(document.querySelectorAll('h1, h2, h3, h4, h5, h6'))
      .filter(h => h.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING);
    return heads.length ? ` under "${text(heads[heads.length - 1])}"` : '';
  };
  const tableName = (el, i) => {
    const grid = el.querySelector('table[role=grid]');
    const heads = Array.from(el.querySelectorAll('th[role=columnheader]')).map(text).filter(Boolean);
    const count = grid && grid.getAttribute('aria-colcount');
    const first = heads.length ? `: ${heads.slice(0, 4).join(' | ')}${heads.length > 4 ? ' | …' : ''}` : '';
    const cols = `${count ? `${count} columns` : 'columns'}${first}`;
    return `table #${i + 1}${keyed(el) ? ` (key ${keyed(el)})` : ''}${under(el)} [${cols}]`;
  };
  const cutTexts = (input, texts) => {  // the texts an input would cut, each in its font: [text, px it needs, px room]
    const style = getComputedStyle(input), measure = document.createElement('canvas').getContext('2d');
    measure.font = style.font;
    const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    return texts.map(value => [value, measure.measureText(value).width]).filter(([, width]) => width > room + 1)
      .map(([value, width]) => [value, Math.round(width), Math.round(room)]);
  };
  const chartName = (el, i) => {
    const title = el.querySelector('.gtitle');
    const name = title ? text(title) : '';
    return `chart #${i + 1}${name ? ` "${name.length > 60 ? name.slice(0, 59) + '…' : name}"` : under(el)}`;
  };
"""

# What the page must have drawn before it is checked: every shown chart its SVG, every shown table its scroller.
# Returns what is still missing, and a signature of the geometry (to wait until nothing moves any more).
DRAWN = "() => {" + HELPERS + r"""
  const missing = [];
  const charts = Array.from(document.querySelectorAll('[data-testid="stPlotlyChart"]')).filter(shown);
  charts.forEach((c, i) => { if (!c.querySelector('.main-svg')) missing.push(`chart #${i + 1}`); });
  const tables = Array.from(document.querySelectorAll('[data-testid="stDataFrame"]')).filter(shown);
  tables.forEach((t, i) => { if (!t.querySelector('.dvn-scroller')) missing.push(`table #${i + 1}`); });
  const boxes = [...charts, ...tables, ...tables.map(t => t.querySelector('.dvn-scroller')).filter(Boolean),
                 ...document.querySelectorAll('[data-testid="stWidgetLabel"], [data-testid="stMetricLabel"]')]
    .map(e => { const r = e.getBoundingClientRect();
                return [Math.round(r.width), Math.round(r.height), e.scrollWidth].join(','); });
  return {missing, signature: boxes.join(';')};
}"""

# The checks: a list of problem strings (empty when the page is fine). Argument: the "page · language" prefix.
CHECKS = "(where) => {" + HELPERS + r"""
  const problems = [];
  // 1. A table (st.dataframe, st.data_editor) must fit its width: glide-data-grid scrolls in `.dvn-scroller`.
  Array.from(document.querySelectorAll('[data-testid="stDataFrame"]')).filter(shown).forEach((t, i) => {
    const scroller = t.querySelector('.dvn-scroller');
    if (!scroller) { problems.push(`${where}: ${tableName(t, i)} has no .dvn-scroller to measure`); return; }
    if (scroller.scrollWidth > scroller.clientWidth + 1)
      problems.push(`${where}: ${tableName(t, i)} scrolls sideways ` +
                    `(content ${scroller.scrollWidth} px in ${scroller.clientWidth} px)`);
  });
  // 2. A chart's titles and subtitles, legend entries and annotations lie inside its box (2 px of slack); its legend
  //    does not scroll (plotly keeps a `.scrollbar` rect in `.legend`, of zero size unless the legend scrolls).
  Array.from(document.querySelectorAll('[data-testid="stPlotlyChart"]')).filter(shown).forEach((c, i) => {
    const svg = c.querySelector('.main-svg');
    if (!svg) { problems.push(`${where}: chart #${i + 1} is not drawn`); return; }
    const box = svg.getBoundingClientRect();
    c.querySelectorAll('.gtitle, .gtitle-subtitle, .legendtext, .xtitle, .ytitle, .annotation-text').forEach(el => {
      const r = el.getBoundingClientRect();
      if (!text(el) || r.width === 0) return;
      const left = box.left - r.left, right = r.right - box.right;
      if (left > 2 || right > 2)
        problems.push(`${where}: ${chartName(c, i)}: ${el.getAttribute('class').split(' ')[0]} "${text(el)}" ` +
                      `sticks out of the chart by ${Math.round(Math.max(left, right))} px on the ` +
                      `${left > right ? 'left' : 'right'}`);
    });
    // 2b. No arrow or line of the chart crosses a label: an annotation's text box and a drawn line (an arrow, or a
    //     shape thinner than 3 px: a rule, a knee, the clock) overlap by more than 2 px both ways.
    const lines = [...c.querySelectorAll('.annotation-arrow-g path, .shapelayer path')]
      .map(p => p.getBoundingClientRect())
      .filter(r => Math.min(r.width, r.height) < 3 && Math.max(r.width, r.height) > 0);
    c.querySelectorAll('.annotation').forEach(note => {
      const label = note.querySelector('.annotation-text');
      if (!label || !text(label)) return;
      const r = label.getBoundingClientRect();
      if (lines.some(l => Math.min(r.right, l.right) - Math.max(r.left, l.left) > 2
                          && Math.min(r.bottom, l.bottom) - Math.max(r.top, l.top) > 2))
        problems.push(`${where}: ${chartName(c, i)}: a line crosses the label "${text(label).slice(0, 60)}"`);
    });
    c.querySelectorAll('.legend .scrollbar').forEach(bar => {
      const r = bar.getBoundingClientRect();
      if (r.width > 0 && r.height > 0)
        problems.push(`${where}: ${chartName(c, i)}: the legend scrolls ` +
                      `(${Array.from(c.querySelectorAll('.legendtext')).map(text).join(', ')})`);
    });
  });
  // 3. A widget, metric or page link label, a button's label, or a metric's value, is not cut off: the element of it
  //    that ends in an ellipsis (a metric label's stMarkdownEllipsis, a metric value, a page link's label, a button's
  //    text in a column too narrow for it) holds its whole text.
  //    Widget labels have none (they wrap): their paragraphs must not stick out of their box either (a word too long
  //    for a narrow column runs into the help icon or beyond).
  const kinds = {stMetricLabel: 'metric', stMetricValue: 'metric value', 'stPageLink-NavLink': 'page link'};
  const labels = Array.from(document.querySelectorAll(
    '[data-testid="stWidgetLabel"], [data-testid="stMetricLabel"], [data-testid="stMetricValue"], ' +
    '[data-testid="stPageLink-NavLink"], [data-testid^="stBaseButton"]'))
    .filter(label => shown(label) && text(label));
  labels.forEach((label, i) => {
    const kind = kinds[label.dataset.testid] || (label.dataset.testid.startsWith('stBaseButton') ? 'button' : 'widget');
    const name = `${kind} label #${i + 1} "${text(label)}"`;
    [label, ...label.querySelectorAll('*')]
      .filter(el => getComputedStyle(el).textOverflow === 'ellipsis' && shown(el))
      .forEach(el => {
        if (el.scrollWidth > el.clientWidth + 1)
          problems.push(`${where}: ${name} is cut off (${el.scrollWidth} px shown in ${el.clientWidth} px)`);
      });
    if (kind === 'widget')
      label.querySelectorAll('p').forEach(el => {
        if (shown(el) && el.scrollWidth > el.clientWidth + 1)
          problems.push(`${where}: ${name} sticks out of its box (${el.scrollWidth} px in ${el.clientWidth} px)`);
      });
  });
  // 4. A selectbox shows its whole choice: Streamlit writes it into the box's input, which clips what is too long.
  Array.from(document.querySelectorAll('[data-testid="stSelectbox"]')).filter(shown).forEach((box, i) => {
    const input = box.querySelector('input');
    if (input && input.scrollWidth > input.clientWidth + 1) {
      const label = box.querySelector('[data-testid="stWidgetLabel"]');
      problems.push(`${where}: selectbox #${i + 1} "${label ? text(label) : ''}" cuts its choice "${input.value}" ` +
                    `(${input.scrollWidth} px shown in ${input.clientWidth} px)`);
    }
  });
  return problems;
}"""


# Presenter mode's own checks: every text of a chart at 18 px at least, and the first chart within the first screen
# (of a page as it loads: after a click the page stands where the button was).
PRESENTER_CHECKS = "([where, least, firstScreen]) => {" + HELPERS + r"""
  const problems = [];
  const charts = Array.from(document.querySelectorAll('[data-testid="stPlotlyChart"]')).filter(shown);
  charts.forEach((c, i) => {
    const small = Array.from(c.querySelectorAll('.main-svg text')).filter(el => !el.closest('.hoverlayer'))
      .filter(el => text(el) && el.getBoundingClientRect().width > 0)
      .filter(el => parseFloat(getComputedStyle(el).fontSize) < least - 0.5);
    if (small.length)
      problems.push(`${where}: ${chartName(c, i)}: ${small.length} texts under ${least} px, e.g. ` +
                    small.slice(0, 3).map(el => `"${text(el).slice(0, 30)}" at ${getComputedStyle(el).fontSize}`)
                      .join(', '));
  });
  if (firstScreen && charts.length && charts[0].getBoundingClientRect().top >= window.innerHeight)
    problems.push(`${where}: the first chart starts ${Math.round(charts[0].getBoundingClientRect().top)} px down, ` +
                  `under the first screen (${window.innerHeight} px)`);
  return problems;
}"""


def settle(page, where: str) -> None:
    """Wait until the run is over (no running icon), every shown chart and table is drawn, and nothing moves."""
    wait_idle(page)
    expect(page.get_by_test_id("stStatusWidgetRunningIcon")).to_have_count(0, timeout=TIMEOUT_MS)
    deadline, last, same = time.monotonic() + TIMEOUT_MS / 1000, None, 0
    while same < 2:
        drawn = page.evaluate(DRAWN)
        if time.monotonic() > deadline:
            pytest.fail(f"{where}: not drawn after {TIMEOUT_MS / 1000:.0f} s: {drawn['missing'] or 'still moving'}")
        same = same + 1 if not drawn["missing"] and drawn["signature"] == last else 0
        last = drawn["signature"]
        time.sleep(SETTLE_S)  # polling the page's own geometry until it holds still, not waiting on a guess
    wait_idle(page)


def layout_problems(browser, base: str, path: str, language: str, viewport: dict = VIEWPORT,
                    click: str | None = None, modes: tuple[bool, ...] = (False,), heading: str | None = None,
                    unfold: bool = False, choices: bool = False) -> list[str]:
    """Open `path` in `language` at `viewport` (with a click on the button of key `click`) and return the checks'
    problems in each of `modes` in turn (False: plain; True: presenter mode, switched on where the page stands,
    as a teacher does), a screenshot kept of each with any. One page serves both modes: a second load would only
    draw the plain page again. `heading`: the page's title in the language, and a chart drawn on it, checked too
    in each mode. `unfold`: every folded expander of the page is opened first (in each mode). `choices`: every
    choice of every select box must fit its box too, not only the one chosen (`choice_problems`)."""
    shown = path.split("?")[0] + (" (a link)" if "?" in path else "")  # (a share link's query is long)
    size = f"{language} · {viewport['width']}×{viewport['height']}"
    context = browser.new_context(locale=LOCALES[language], viewport=viewport)
    context.set_default_timeout(TIMEOUT_MS)
    try:
        page = context.new_page()
        page.goto(base + path)
        settle(page, f"{shown} · {size}")
        if click:
            page.locator(f".st-key-{click} button").first.click()
            settle(page, f"{shown} ({click}) · {size}")
        problems = []
        for presenting in modes:
            where = f"{shown}{f' ({click})' if click else ''}{' (presenter)' if presenting else ''} · {size}"
            if presenting:
                page.locator(".st-key-w_presenter label").first.click()
                # (the page drawn before is hidden at once: wait for the rerun's own, or a blank page would settle)
                page.locator(f".st-key-{PAGE_KEY}").wait_for(state="attached")
                settle(page, where)
            while unfold and page.evaluate(OPEN_FOLDED, []):  # (all those drawn, then those their reruns drew)
                settle(page, where)
            raised = page.get_by_test_id("stException").all_inner_texts()  # a broken page is no layout to judge
            found = [f"{where}: the page raised {' '.join(text.split())[:300]}" for text in raised]
            found += page.evaluate(CHECKS, where)
            if choices:
                found += choice_problems(page, where)
            if heading is not None:
                shown_title = title(page).inner_text()
                if shown_title != heading:
                    found.append(f"{where}: the title is {shown_title!r}, not {heading!r}")
                if not page.locator('[data-testid="stPlotlyChart"] .main-svg').count():
                    found.append(f"{where}: no chart is drawn")
            if presenting:
                found += page.evaluate(PRESENTER_CHECKS, [where, MIN_FONT_PX, click is None and not unfold])
            if found:
                SCREENSHOTS.mkdir(parents=True, exist_ok=True)
                name = re.sub(r"[^A-Za-z0-9_.-]+", "_", f"layout-{shown.strip('/') or 'home'}-{click or ''}-"
                              f"{'presenter-' if presenting else ''}{language}-{viewport['width']}")
                page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))
            problems += found
        return problems
    finally:
        context.close()


# The choices of the select box of index `i` among those shown (its list is open) that its box would cut: (label,
# choice, px it needs, px it has), each measured in the box's own font.
CUT_CHOICES = "(i) => {" + HELPERS + r"""
  const box = Array.from(document.querySelectorAll('[data-testid="stSelectbox"]')).filter(shown)[i];
  const label = box.querySelector('[data-testid="stWidgetLabel"]');
  const choices = Array.from(document.querySelectorAll('[role="option"]')).map(text);
  return cutTexts(box.querySelector('input'), choices).map(cut => [label ? text(label) : '', ...cut]);
}"""


def choice_problems(page, where: str) -> list[str]:
    """Every choice of every select box the page shows (and a user may open) fits the box that would show it: a
    choice the box cuts is found only once chosen, which the other checks never do. Each list is opened (the
    choices are drawn only then), read and closed again."""
    problems = []
    boxes = page.get_by_test_id("stSelectbox").locator("visible=true")
    for i in range(boxes.count()):
        input_ = boxes.nth(i).locator("input")
        if input_.is_disabled():
            continue
        input_.click()
        options = page.get_by_role("option")
        try:  # (a click on a box just drawn may only focus it; the arrow key opens its list then)
            options.first.wait_for(timeout=2000)
        except PlaywrightTimeout:
            page.keyboard.press("ArrowDown")
            options.first.wait_for()
        problems += [f"{where}: select box \"{label}\" would cut its choice \"{choice}\" ({width} px in {room} px)"
                     for label, choice, width, room in page.evaluate(CUT_CHOICES, i)]
        page.keyboard.press("Escape")
        expect(options).to_have_count(0)
    return problems


def at_both_sizes(side, browser, check: Callable[..., list[str]]) -> list[str]:
    """`check(chromium, viewport)`'s problems at both VIEWPORTS at once: the first size in the `side` Chromium (its
    thread's), the second in `browser`, here (each in a context of its own, as two students' browsers); an
    exception raised by either check is raised here."""
    first, second = VIEWPORTS.values()
    there = side(check, first)
    try:
        here = check(browser, second)
    finally:
        wait([there])  # (the side page is closed before the next test opens another)
    return there.result() + here


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
@pytest.mark.parametrize("language", list(LOCALES))
@pytest.mark.parametrize("path", sorted(PAGES), ids=lambda path: path.strip("/") or "home")
def test_the_page_fits_the_screen(server, browser, path, language, viewport):
    """Every page in both languages at both sizes, plain and then in presenter mode (where every chart's text is
    at least 18 px and the first chart is within the first screen); a page of TITLES opens with its title in the
    language and a chart. One size at a time: drawn side by side, the trace lab at 1024 px failed its checks in
    plain mode in one full run (its message lost), and passed alone."""
    heading = TITLES[path][language == "zh"] if path in TITLES else None
    problems = layout_problems(browser, server, path, language, VIEWPORTS[viewport], modes=(False, True),
                               heading=heading)
    assert not problems, json.dumps(problems, ensure_ascii=False, indent=1)


@pytest.mark.parametrize("example", ["sw_prefix_example", "sw_split_example"])
@pytest.mark.parametrize("language", list(LOCALES))
def test_the_capacity_labs_examples_fit_the_screen(server, browser, side, language, example):
    """The prefix example adds a hit-rate column to the results table, the split example shows the fleet's columns
    and an engines column: each still fits, at both sizes, plain and on a projector (where a split's knee label in
    Chinese once stuck out of the chart)."""
    problems = at_both_sizes(side, browser, lambda chromium, viewport: layout_problems(
        chromium, server, "/capacity_lab", language, viewport, example, modes=(False, True)))
    assert not problems, json.dumps(problems, ensure_ascii=False, indent=1)


@pytest.mark.parametrize("language", list(LOCALES))
@pytest.mark.parametrize("path", ["/capacity_lab", "/planner", "/real_model", "/many_servers"])
def test_a_pages_options_opened_fit_the_screen(server, browser, side, path, language):
    """These pages fold options into expanders (the capacity lab its generator's settings, and in presenter mode
    each page its options), which the check of every page leaves folded: opened, at both sizes, plain and on a
    projector, every label is still whole (in Chinese the capacity lab's arrival rate once stuck out of its column
    at 1024 px, and three of plan a fleet's six trace inputs on a projector at 1400 px). At 1024 px every choice of
    every select box fits its box too (the generator's "lognormal (long tail)" did not, plain or on a projector)."""
    problems = at_both_sizes(side, browser, lambda chromium, viewport: layout_problems(
        chromium, server, path, language, viewport, modes=(False, True), unfold=True,
        choices=viewport == VIEWPORTS["1024x768"]))
    assert not problems, json.dumps(problems, ensure_ascii=False, indent=1)


# The trace lab's options panel, opened (every expander under "2 · Budgets and policies"): each widget label's lines
# hold more than one letter and break between words, never inside one (a column too narrow for a label's longest
# word stacks it a letter a line: "D / r / a / f / t"); every choice of a policy's select box fits its box, not only
# the chosen one, and so does every number input's value (measured in the box's own font). Argument:
# [where, {widget key: [choice texts]}].
LAB_CHECKS = "([where, choices]) => {" + HELPERS + r"""
  const problems = [];
  const lines = (el) => {  // the characters of each line the element's text is drawn on, and a word cut in two
    const found = []; let top = null, last = '', cut = false;
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode())
      for (let i = 0; i < node.length; i++) {
        const range = document.createRange(); range.setStart(node, i); range.setEnd(node, i + 1);
        const box = range.getClientRects()[0], char = node.data[i];
        if (!box || !char.trim()) { last = ' '; continue; }
        if (top === null || box.top > top + box.height / 2) {
          if (/\w/.test(last) && /\w/.test(char)) cut = true;
          found.push(''); top = box.top;
        }
        found[found.length - 1] += char; last = char;
      }
    return {found, cut};
  };
  document.querySelectorAll('[data-testid="stWidgetLabel"]').forEach(label => {
    if (!shown(label) || !text(label)) return;
    const {found, cut} = lines(label);
    if (found.length > 1 && found.some(line => line.length === 1))
      problems.push(`${where}: widget label "${text(label)}" stacks a letter a line (${found.join(' / ')})`);
    else if (cut)
      problems.push(`${where}: widget label "${text(label)}" breaks inside a word (${found.join(' / ')})`);
  });
  const fits = (input, texts, what) => cutTexts(input, texts).forEach(([value, width, room]) =>
    problems.push(`${where}: ${what} "${value}" is cut off (${width} px in ${room} px)`));
  Object.entries(choices).forEach(([key, options]) => {
    const input = document.querySelector(`.st-key-${key} [data-testid="stSelectbox"] input`);
    if (input && shown(input)) fits(input, options, `select ${key}: the choice`);
  });
  document.querySelectorAll('[data-testid="stNumberInput"] input').forEach(input => {
    if (shown(input)) fits(input, [input.value], `number input "${text(input.closest('[data-testid="stNumberInput"]')
      .querySelector('[data-testid="stWidgetLabel"]'))}": its value`);
  });
  return problems;
}"""


def lab_choices(language: str) -> dict[str, list[str]]:
    """The texts of every choice of the lab's policy select boxes, by widget key, in `language`."""
    from sim.core.config import POLICY_CHOICES
    from ui.strings import STRINGS
    key = {"batching": "policy_{}"}
    return {f"w_lab_policy_{side}_{name}": [STRINGS[key.get(name, f"opt_{name}_{{}}").format(k).replace("-", "_")]
                                           [language] for k in options]
            for side in "ab" for name, options in POLICY_CHOICES.items()}


# Click every folded expander's summary in the main section but those whose title names one in the argument; how
# many.
OPEN_FOLDED = """(kept) => {
  const folded = Array.from(document.querySelectorAll('[data-testid="stMain"] details:not([open]) > summary'))
    .filter(summary => !kept.some(title => summary.textContent.includes(title)));  // (folded: no innerText lines)
  folded.forEach(summary => summary.click());
  return folded.length;
}"""


def lab_options_problems(browser, base: str, language: str, viewport: dict, presenter: bool) -> list[str]:
    """The lab's options panel with every expander of its budgets and policies open (in presenter mode, the
    folded options first) and the linear cost model's coefficients drawn: the page's label checks and LAB_CHECKS'
    (a screenshot kept if any)."""
    from ui.strings import STRINGS
    where = f"/trace_lab options{' (presenter)' if presenter else ''} · {language} · {viewport['width']}"
    context = browser.new_context(locale=LOCALES[language], viewport=viewport)
    context.set_default_timeout(TIMEOUT_MS)
    try:
        page = context.new_page()
        page.goto(base + "/trace_lab")
        settle(page, where)
        section = page.get_by_test_id("stMain")
        if presenter:
            page.locator(".st-key-w_presenter label").first.click()
            # The page drawn in presenter mode: its trace section folded under its heading (another expander, the
            # chat's, is there before the switch's rerun has begun, and a list of folded ones read from that page
            # names other elements after it)
            trace = STRINGS["lab_trace"][language]
            expect(section.locator("[data-testid=stExpander] summary").filter(has_text=trace)).to_be_visible()
            wait_idle(page)
        # Open every folded expander but the chat's and the share link's: all those shown at once (one click each,
        # in the page), then again for those the reruns drew, until none is left.
        kept = [STRINGS["chat_title"][language], STRINGS["link_title"][language]]
        while page.evaluate(OPEN_FOLDED, kept):
            settle(page, where)
        page.locator(".st-key-w_lab_cost_kind label").filter(has_text=STRINGS["cost_linear"][language]).click()
        settle(page, where)
        labels = [problem for problem in page.evaluate(CHECKS, where) if "widget label" in problem]
        problems = labels + page.evaluate(LAB_CHECKS, [where, lab_choices(language)])
        if problems:
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            name = f"layout-lab-options-{'presenter-' if presenter else ''}{language}-{viewport['width']}.png"
            page.screenshot(path=str(SCREENSHOTS / name), full_page=True)
        return problems
    finally:
        context.close()


@pytest.mark.parametrize("presenter", [False, True], ids=["plain", "presenter"])
@pytest.mark.parametrize("language", list(LOCALES))
def test_the_labs_options_fit_the_screen(server, browser, side, language, presenter):
    """Every option of both policies, the KV cache, MoE and streaming, open: no label a letter a line, no choice
    cut off, nothing sticking out, at both sizes."""
    problems = at_both_sizes(side, browser, lambda chromium, viewport: lab_options_problems(
        chromium, server, language, viewport, presenter))
    assert not problems, json.dumps(problems, ensure_ascii=False, indent=1)


@pytest.mark.parametrize("language", list(LOCALES))
def test_the_lab_with_options_on_fits_the_screen(server, browser, language):
    """The lab's shared-prefix preset at 1024 px, opened by its share link: a preempted request adds a column to
    the per-request table, the option rows (preemptions, prefix hits, KV blocks) lengthen the overall table, and the
    KV charts' titles name the options. All of it still fits, plain and on a projector."""
    from ui.presets import PRESETS
    from ui.scenario import Scenario, encode
    preset = PRESETS["shared_prefix"]
    link = encode(Scenario(preset.build(), preset.config, preset.policy_a, preset.policy_b))
    problems = layout_problems(browser, server, "/trace_lab?s=" + link, language, VIEWPORTS["1024x768"],
                               modes=(False, True))
    assert not problems, json.dumps(problems, ensure_ascii=False, indent=1)


@pytest.mark.parametrize("click", ["rm_run", "rmf_run"])
@pytest.mark.parametrize("language", list(LOCALES))
def test_the_real_models_runs_fit_the_screen(server, browser, language, click):
    """The real model page after a run at 1024 px, plain and on a projector: the measured and predicted Gantt
    charts side by side (their titles stuck out by 111 px, and by 193 px on a projector), the comparison's table
    (its void header scrolled it sideways on a projector), and the fleet's four cards (on a projector each value
    ended in "…")."""
    problems = layout_problems(browser, server, "/real_model", language, VIEWPORTS["1024x768"], click=click,
                               modes=(False, True))
    assert not problems, json.dumps(problems, ensure_ascii=False, indent=1)


if __name__ == "__main__":  # python -m tests.test_layout WIDTH PATH... : the problems at another viewport width
    width, paths = int(sys.argv[1]), sys.argv[2:] or sorted(PAGES)
    with streamlit_server() as base, playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        for path in paths:
            for language in LOCALES:
                print(json.dumps(layout_problems(browser, base, path, language, {"width": width, "height": 900}),
                                 ensure_ascii=False, indent=1))
