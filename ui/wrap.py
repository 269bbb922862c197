"""Text in Plotly table cells: how many lines it takes at a width, and Chinese broken into lines.

Plotly wraps a table cell's text at its spaces (and never inside a run of characters without one), unless the
text holds a <br>, which turns the wrapping off. Chinese has few spaces, so it is broken here, between
characters, with <br>. Widths are estimated from the font size, by the widths of the app's Source Sans measured
in Chromium (em per character: lower case 0.47, upper case 0.57, digits 0.50, a space 0.20, other marks 0.37, a
Chinese character 1; bold about 7% wider), each taken a little wider, and a line kept 5% short, so that an
estimate never falls short."""
from __future__ import annotations

import math
import re

TAG = re.compile(r"<[^>]+>")
SPACE_HUNDREDTHS = 20  # a space's width, in hundredths of an em
SPACE_EM = SPACE_HUNDREDTHS / 100
BOLD = 1.07  # bold text is this much wider
SLACK = 0.95  # the share of a line's width the estimate fills
CLOSING = "，。；：、）」』！？"  # punctuation that may not begin a line: it stays with what it follows


def is_wide(char: str) -> bool:
    """A character one em wide: CJK ideographs, kana, full-width forms and punctuation, and symbols (arrows,
    dingbats: ▶ ❚ ⇤)."""
    return ord(char) >= 0x2E80 or 0x2190 <= ord(char) <= 0x2BFF


def em(text: str) -> float:
    """The estimated width of `text` (tags left out) in ems, in the regular weight: the sum of its characters'
    widths, counted in hundredths of an em (so that the same characters in any order are the same width)."""
    if "<" in text:
        text = TAG.sub("", text)
    if text.isascii():  # (a table's cells: a few hundred thousand of them in one table)
        return sum(text.encode().translate(_ASCII_HUNDREDTHS)) / 100
    return sum(map(_hundredths, text)) / 100


def widest_em(texts) -> float:
    """The largest `em` of `texts` (0 for none), each distinct text measured once."""
    return max(map(em, set(texts)), default=0.0)


def _hundredths(c: str) -> int:
    """A character's width in hundredths of an em."""
    if is_wide(c):
        return 100
    if c == " ":
        return SPACE_HUNDREDTHS
    return 50 if c.islower() else 60 if c.isupper() else 52 if c.isdigit() else 40


# the width of each ASCII character, as a bytes.translate table (which takes 256 entries)
_ASCII_HUNDREDTHS = bytes(_hundredths(chr(code)) if code < 128 else 0 for code in range(256))


def lines_needed(text: str, font: float, width: float) -> int:
    """How many lines `text` takes in a cell `width` px wide (its padding left out) at `font` px: its own <br>
    lines, or Plotly's wrapping at spaces."""
    if re.search("<br>", text, re.IGNORECASE):
        return len(re.split("<br>", text, flags=re.IGNORECASE))
    room, lines, used = _room(text, font, width), 1, 0.0
    for word in text.split(" "):
        size = em(word)
        if used and used + SPACE_EM + size > room:
            lines, used = lines + 1, size
        else:
            used += (SPACE_EM if used else 0) + size
    return lines


def _room(text: str, font: float, width: float) -> float:
    """How many regular ems a line of `text` holds (bold text, as a whole sentence in <b>, fewer)."""
    return width / font * SLACK / (BOLD if "<b>" in text else 1.0)


PIECES = re.compile(rf"<[^>]+>|(?:[\u2e80-\U0010ffff]|[^\s<\u2e80-\U0010ffff]+)[{CLOSING}]*| ")


def _pieces(text: str) -> list[str]:
    """Where a line may break: before each wide character, each Latin word and each space, never before closing
    punctuation; tags stay whole."""
    return PIECES.findall(text)


def break_lines(text: str, font: float, width: float) -> str:
    """`text` with <br> where a `width` px line at `font` px is full: between characters or at spaces, never
    before closing punctuation."""
    room = _room(text, font, width)
    lines, line, used = [], "", 0.0
    for piece in _pieces(text):
        if piece.startswith("<"):
            line += piece
            continue
        size = em(piece)
        if used + size > room and line.strip():
            lines.append(line.rstrip())
            line, used = "", 0.0
            if piece == " ":
                continue
        line += piece
        used += size
    lines.append(line.rstrip())
    return "<br>".join(lines)


def balanced_lines(text: str, font: float, width: float) -> str:
    """break_lines, in as many lines but of even lengths: the narrowest width (to a px) that breaks `text` into no
    more lines than `width` does, so that a title's last line is not one word left over."""
    greedy = break_lines(text, font, width)
    lines = greedy.count("<br>")
    if not lines:
        return greedy
    low, high = 1, math.ceil(width)  # the least width whose lines are no more than `width`'s, by bisection
    while low < high:
        middle = (low + high) // 2
        if break_lines(text, font, middle).count("<br>") <= lines:
            high = middle
        else:
            low = middle + 1
    return break_lines(text, font, high)
