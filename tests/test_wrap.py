"""Text in Plotly table cells (ui/wrap.py): the lines it takes, and Chinese broken into lines that fit."""
from hypothesis import given
from hypothesis import strategies as st

from ui import wrap


def test_lines_are_counted_as_plotly_wraps_them_at_spaces():
    assert wrap.lines_needed("one two three", 10, 1000) == 1
    assert wrap.lines_needed("one two three", 10, 30) == 3  # a word a line
    assert wrap.lines_needed("a<br>b<br>c", 10, 10) == 3  # its own breaks, and no wrapping
    bold, plain = "<b>" + "word " * 60 + "</b>", "word " * 60
    assert wrap.lines_needed(bold, 10, 240) > wrap.lines_needed(plain, 10, 240)  # bold is wider


def test_chinese_breaks_between_characters_and_keeps_punctuation_with_what_it_follows():
    text = "静态批次在其最长的成员完成之前不接纳新请求；C 到达并等待。"
    broken = wrap.break_lines(text, 10, 60)
    lines = broken.split("<br>")
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")  # nothing lost
    assert len(lines) > 1 and all(wrap.em(line) * 10 <= 60 for line in lines)
    assert not any(line[0] in wrap.CLOSING for line in lines)


@given(st.lists(st.sampled_from(["静", "态", "批", "次", "；", "，", " ", "token", "decode", "C", "8", "（", "）"]),
                max_size=60), st.integers(8, 24), st.integers(60, 400))
def test_broken_lines_fit_and_keep_every_word_whole(pieces, font, width):
    text = "".join(pieces)
    lines = wrap.break_lines(text, font, width).split("<br>")
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")
    for line in lines:
        if len(wrap._pieces(line.strip())) > 1:  # a line of one piece cannot be broken further
            assert wrap.em(line) * font <= width
    glued = [i for i, c in enumerate(text) if c in wrap.CLOSING and i and text[i - 1] != " "]
    starts = {sum(len(line) for line in lines[:k]) for k in range(1, len(lines))}  # where each later line begins
    assert not starts & set(glued) or " " in text  # (spaces dropped at a break shift the offsets)
    words = [w for w in text.split(" ") if w.isascii() and w]
    assert all(any(w in line for line in lines) for w in words)  # a Latin word is never split


@given(st.lists(st.sampled_from(["静", "态", "批", "次", "，", " ", "token", "decode", "KV", "8", "·"]), max_size=60),
       st.integers(8, 24), st.integers(60, 700))
def test_balanced_lines_take_as_many_lines_as_break_lines_and_none_longer(pieces, font, width):
    text = "".join(pieces)
    greedy, balanced = (f(text, font, width).split("<br>") for f in (wrap.break_lines, wrap.balanced_lines))
    assert len(balanced) == len(greedy)
    assert "".join(balanced).replace(" ", "") == text.replace(" ", "")
    width_of = lambda lines: max(wrap.em(line.strip()) for line in lines)  # noqa: E731 (a space at a break is dropped)
    assert width_of(balanced) <= width_of(greedy) + 1e-9


def test_a_title_one_word_too_long_breaks_near_its_middle_not_before_its_last_word():
    title = "The three requests under static and continuous batching, on one time axis"
    assert wrap.break_lines(title, 20, 667).endswith("<br>axis")
    first, second = wrap.balanced_lines(title, 20, 667).split("<br>")
    assert abs(wrap.em(first) - wrap.em(second)) < 3
