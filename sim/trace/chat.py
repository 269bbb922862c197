"""Chat templates and tokenizers: how a conversation becomes a prompt's text, and how many tokens that text is.

Standard library only. A template (`apply_template`) turns messages into the one text a model reads; a tokenizer
(`count`, `tokens`) cuts it into tokens: `bytes` is the tiny model's (one token a UTF-8 byte), `classroom-bpe` a
byte-level BPE trained on the tiny model's corpus (`python -m gpu_demo tokenizer` writes its file) and encoded
here by the same rules as the library that trained it (tests/test_chat.py holds the two equal)."""
from __future__ import annotations

import heapq
import json
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from itertools import groupby
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:  # trace.py imports this module: the types only, for the annotations
    from .trace import Request, Trace

ROLES = ("system", "user", "assistant")
TOKENIZER_DIR = Path(__file__).with_name("tokenizers")
BYTES = "bytes"
TOKENIZERS = (BYTES, "classroom-bpe")
WORD_CACHE = 1 << 16  # words a BPE remembers the tokens of (forgotten all at once when full)
# The templates' markers. A subword tokenizer reads each as one special token (the BPE file lists them); the tiny
# byte-level model reads their bytes like any other text.
SPECIAL_TOKENS = ("<|im_start|>", "<|im_end|>", "<|begin_of_text|>", "<|start_header_id|>", "<|end_header_id|>",
                  "<|eot_id|>", "<s>", "</s>")


class Message(NamedTuple):
    role: str
    content: str


class MessagesError(ValueError):
    """A `messages` cell that is no conversation: `code` is a problem code of sim.trace.trace.MESSAGES."""

    def __init__(self, code: str, **params: object):
        self.code, self.params = code, params
        super().__init__(code)


def parse_messages(value: object) -> tuple[Message, ...]:
    """The messages of a `messages` cell: JSON text (a CSV cell) or a list (a JSON trace) of {"role", "content"}
    objects, or Messages already. Raises MessagesError saying what is wrong and, for one message, which."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except (json.JSONDecodeError, RecursionError) as error:
            raise MessagesError("msg_not_json", detail=f"{error.msg} at character {error.pos}"
                                if isinstance(error, json.JSONDecodeError) else "nested too deeply") from None
        except ValueError:  # int() refuses a number of thousands of digits
            raise MessagesError("msg_not_json", detail="a number has thousands of digits") from None
    if not isinstance(value, list | tuple) or not value:
        raise MessagesError("msg_not_list")
    return tuple(_message(item, index) for index, item in enumerate(value, start=1))


def _message(item: object, index: int) -> Message:
    if isinstance(item, Message):
        role, content = item
    elif isinstance(item, Mapping) and "role" in item and "content" in item:
        role, content = item["role"], item["content"]
    else:
        raise MessagesError("msg_bad_item", index=index)
    if role not in ROLES:
        raise MessagesError("msg_bad_role", index=index, role=_short(role))
    if not isinstance(content, str) or not content.strip():
        raise MessagesError("msg_empty", index=index)
    return Message(role, content)


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def conversation(text: str | None = None, system: str | None = None,
                 messages: Iterable[Message] | None = None) -> tuple[Message, ...]:
    """A request's messages: its `messages`, else its `system` message and its `text` as the user's."""
    if messages:
        return tuple(messages)
    return tuple(Message(role, content) for role, content in (("system", system), ("user", text)) if content)


# The templates, written from each model family's public documentation of its prompt format. Each ends with the
# opening of the assistant's turn (the "generation prompt"), as a server does before it generates the answer.
def _plain(messages: tuple[Message, ...]) -> str:
    """No template: the contents as they are, one after another."""
    return "\n\n".join(m.content for m in messages)


def _chatml(messages: tuple[Message, ...]) -> str:
    """ChatML (OpenAI's Chat Markup Language; Qwen and many others use it)."""
    turns = "".join(f"<|im_start|>{m.role}\n{m.content}<|im_end|>\n" for m in messages)
    return turns + "<|im_start|>assistant\n"


def _llama3(messages: tuple[Message, ...]) -> str:
    """Meta Llama 3's prompt format: a header per turn, the content trimmed, each turn ended by <|eot_id|>."""
    turns = "".join(f"<|start_header_id|>{m.role}<|end_header_id|>\n\n{m.content.strip()}<|eot_id|>"
                     for m in messages)
    return "<|begin_of_text|>" + turns + "<|start_header_id|>assistant<|end_header_id|>\n\n"


def _llama2(messages: tuple[Message, ...]) -> str:
    """Meta Llama 2's chat format: no turn of its own for the system message, which goes inside the first
    [INST] between <<SYS>> markers; each user turn opens with <s>, each answer ends with </s>."""
    system = "\n\n".join(m.content.strip() for m in messages if m.role == "system")
    pending = f"<<SYS>>\n{system}\n<</SYS>>\n\n" if system else ""
    out = []
    for m in messages:
        if m.role == "user":
            out.append(f"<s>[INST] {pending}{m.content.strip()} [/INST]")
            pending = ""
        elif m.role == "assistant":
            out.append(f" {m.content.strip()} </s>")
    if pending:  # a system message and no user turn
        out.append(f"<s>[INST] {pending.rstrip()} [/INST]")
    return "".join(out)


TEMPLATES: dict[str, Callable[[tuple[Message, ...]], str]] = {
    "none": _plain, "chatml": _chatml, "llama3": _llama3, "llama2": _llama2}


def apply_template(name: str, messages: Iterable[Message]) -> str:
    """The text a model reads for `messages` under the chat template `name` (a TEMPLATES key)."""
    if name not in TEMPLATES:
        raise ValueError(f"unknown chat template {name!r}: use one of {', '.join(TEMPLATES)}")
    return TEMPLATES[name](tuple(messages))


def request_messages(request: Request) -> tuple[Message, ...]:
    """What a request says in words: its messages, or its system message and text; () for a prompt given only
    as a number of tokens."""
    return conversation(request.text, request.system, parse_messages(request.messages) if request.messages else None)


def with_template(trace: Trace, template: str = "none", tokenizer: str = BYTES) -> Trace:
    """The trace as a server would see it under a chat template and a tokenizer: each request that says its
    prompt in words gets the templated text as its text (its system message and messages folded in) and that
    text's token count as its prompt, which is what admission and the prefill budget then count. Requests
    given as numbers are unchanged."""
    if template not in TEMPLATES or tokenizer not in TOKENIZERS:
        raise ValueError(f"unknown chat template {template!r} or tokenizer {tokenizer!r}")
    requests = []
    for request in trace.requests:
        said = request_messages(request)
        if said:
            text = apply_template(template, said)
            request = request._replace(prompt=count(tokenizer, text), text=text, system=None, messages=None)
        requests.append(request)
    return replace(trace, requests=tuple(requests))


def count(tokenizer: str, text: str) -> int:
    """The number of tokens `text` is under `tokenizer` (a TOKENIZERS name)."""
    if tokenizer == BYTES:
        return len(text.encode("utf-8", errors="replace"))
    return len(bpe(tokenizer).encode(text))


def tokens(tokenizer: str, text: str) -> list[bytes]:
    """The tokens of `text` under `tokenizer`, each as the bytes it stands for (a special token as its text)."""
    if tokenizer == BYTES:
        return [bytes([b]) for b in text.encode("utf-8", errors="replace")]
    return bpe(tokenizer).pieces(text)


def piece_text(piece: bytes) -> str:
    """A token's bytes as text to show: the characters when they are whole UTF-8, else each byte in hex, <E4>
    (a character cut between tokens, as the bytes tokenizer cuts every non-ASCII character)."""
    try:
        return piece.decode("utf-8")
    except UnicodeDecodeError:
        return "".join(f"<{b:02X}>" for b in piece)


# -- The byte-level BPE ---------------------------------------------------------------------------------------
# GPT-2's byte-level scheme, as the HuggingFace `tokenizers` library runs it: special tokens are cut out first;
# the rest is split into words by GPT-2's pattern (letters, numbers, other marks, whitespace, each run with at
# most one leading space); each word's UTF-8 bytes become printable characters (_BYTE_CHARS) and are merged pair
# by pair, always the pair whose merge was learned first (its rank), leftmost on a tie.
def _byte_chars() -> list[str]:
    """GPT-2's map of the 256 byte values to printable characters (printable Latin-1 stays itself)."""
    kept = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    extra = iter(range(256, 512))
    return [chr(b) if b in kept else chr(next(extra)) for b in range(256)]


_BYTE_CHARS = _byte_chars()
_CHAR_BYTES = {c: b for b, c in enumerate(_BYTE_CHARS)}
# The library's whitespace: Python's isspace() but the four information separators, U+001C-U+001F.
_NOT_SPACE = {chr(c) for c in range(0x1C, 0x20)}


@cache
def _word_pattern() -> re.Pattern:
    """GPT-2's pre-tokenizer pattern in the standard library's `re`, which lacks \\p{L}: the classes are built
    from the Unicode database once (letters L*, numbers N*, whitespace), about a third of a second."""
    kinds = {"L": [], "N": [], "S": []}
    for kind, group in groupby(range(0x110000), key=_kind):
        if kind in kinds:
            points = list(group)
            kinds[kind].append(f"{_escaped(points[0])}-{_escaped(points[-1])}")
    letters, numbers, space = ("".join(kinds[k]) for k in "LNS")
    return re.compile(rf"'s|'t|'re|'ve|'m|'ll|'d| ?[{letters}]+| ?[{numbers}]+| ?[^{space}{letters}{numbers}]+"
                      rf"|[{space}]+(?![^{space}])|[{space}]+")


def _kind(point: int) -> str:
    char = chr(point)
    category = unicodedata.category(char)
    if category[0] in "LN":
        return category[0]
    return "S" if char.isspace() and char not in _NOT_SPACE else ""


def _escaped(point: int) -> str:
    return f"\\U{point:08x}"


@dataclass(frozen=True, eq=False)
class BPE:
    """A byte-level BPE: its vocabulary (token -> id), merge ranks and special tokens, from the library's file."""
    vocab: dict[str, int]
    ranks: dict[tuple[str, str], int]
    specials: tuple[str, ...]
    words: dict[str, tuple[str, ...]] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_file(cls, path: Path) -> BPE:
        document = json.loads(path.read_text(encoding="utf-8"))
        model = document["model"]
        merges = [tuple(m.split(" ", 1)) if isinstance(m, str) else tuple(m) for m in model["merges"]]
        specials = tuple(t["content"] for t in document["added_tokens"])
        return cls(model["vocab"], {pair: rank for rank, pair in enumerate(merges)}, specials)

    def encode(self, text: str) -> list[str]:
        """The tokens of `text` (vocabulary strings: bytes as GPT-2's characters, special tokens as such)."""
        out: list[str] = []
        for part in self._special_split(text):
            if part in self.specials:
                out.append(part)
            elif part:
                for word in _word_pattern().findall(part):
                    out.extend(self._merged(word))
        return out

    def ids(self, text: str) -> list[int]:
        return [self.vocab[token] for token in self.encode(text)]

    def pieces(self, text: str) -> list[bytes]:
        """Each token as the bytes it stands for."""
        return [t.encode() if t in self.specials else bytes(_CHAR_BYTES[c] for c in t) for t in self.encode(text)]

    def _special_split(self, text: str) -> list[str]:
        """`text` cut around its special tokens, the longest first where they overlap (the library's rule)."""
        if not self.specials:
            return [text]
        ordered = sorted(self.specials, key=len, reverse=True)
        return re.split("(" + "|".join(map(re.escape, ordered)) + ")", text)

    def _merged(self, word: str) -> tuple[str, ...]:
        """One word's tokens: its bytes as characters, merged pair by pair, the lowest rank first and the leftmost
        on a tie, until no learned pair is left. A heap of the candidate pairs keeps a long word (a run of 100,000
        marks is one word) at O(n log n). Words repeat a lot: each is merged once and remembered."""
        known = self.words.get(word)
        if known is not None:
            return known
        symbols = [_BYTE_CHARS[b] for b in word.encode("utf-8", errors="replace")]
        after = [*range(1, len(symbols)), -1]  # the next symbol still there (a linked list over the positions)
        before = list(range(-1, len(symbols) - 1))
        queue = [(rank, i) for i, pair in enumerate(zip(symbols, symbols[1:])) if (rank := self.ranks.get(pair))
                 is not None]
        heapq.heapify(queue)
        while queue:
            rank, i = heapq.heappop(queue)
            j = after[i]
            if not symbols[i] or j < 0 or self.ranks.get((symbols[i], symbols[j])) != rank:
                continue  # a side of this pair was merged into another since it was queued
            symbols[i], symbols[j], after[i] = symbols[i] + symbols[j], "", after[j]
            if after[i] >= 0:
                before[after[i]] = i
            for left in (before[i], i):  # the two new pairs the merged symbol is in
                right = after[left] if left >= 0 else -1
                if right >= 0 and (rank := self.ranks.get((symbols[left], symbols[right]))) is not None:
                    heapq.heappush(queue, (rank, left))
        if len(self.words) >= WORD_CACHE:
            self.words.clear()
        self.words[word] = merged = tuple(symbol for symbol in symbols if symbol)
        return merged


@cache
def bpe(name: str) -> BPE:
    """The shipped BPE tokenizer `name` (a TOKENIZERS name other than bytes), read once."""
    if name not in TOKENIZERS or name == BYTES:
        raise ValueError(f"unknown tokenizer {name!r}: use one of {', '.join(TOKENIZERS)}")
    return BPE.from_file(TOKENIZER_DIR / f"{name}.json")
