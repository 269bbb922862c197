"""Chat templates and tokenizers: the templates on hand-written examples, the two tokenizers' counts, the pure-Python
BPE against the library that trained it, the trace's text/system/messages columns and their problems, the CLI
options, the trace lab's chat panel, and the real model prefilling exactly the templated bytes."""
import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.trace import chat
from sim.trace.chat import (
    SPECIAL_TOKENS,
    Message,
    apply_template,
    count,
    piece_text,
    tokens,
    with_template,
)
from sim.trace.trace import TraceError, read_csv, read_json, validate, write_csv, write_json
from ui.strings import STRINGS

ROOT = Path(__file__).resolve().parents[1]
BPE = "classroom-bpe"
BPE_FILE = chat.TOKENIZER_DIR / f"{BPE}.json"
TALK = (Message("system", "Be brief."), Message("user", "Hi!"))


def library():
    """The trained file read by the library that wrote it (a development tool: skip cleanly without it)."""
    tokenizers = pytest.importorskip("tokenizers")
    return tokenizers.Tokenizer.from_file(str(BPE_FILE))


# -- Templates ---------------------------------------------------------------------------------------------------
def test_chatml_wraps_each_turn_and_opens_the_answer():
    assert apply_template("chatml", TALK) == ("<|im_start|>system\nBe brief.<|im_end|>\n"
                                              "<|im_start|>user\nHi!<|im_end|>\n<|im_start|>assistant\n")


def test_llama3_has_a_header_a_turn_and_trims_the_content():
    said = (Message("system", "Be brief."), Message("user", "  Hi!\n"))
    assert apply_template("llama3", said) == (
        "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nBe brief.<|eot_id|>"
        "<|start_header_id|>user<|end_header_id|>\n\nHi!<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n")


def test_llama2_puts_the_system_message_inside_the_first_instruction():
    assert apply_template("llama2", TALK) == "<s>[INST] <<SYS>>\nBe brief.\n<</SYS>>\n\nHi! [/INST]"
    turns = (*TALK, Message("assistant", "Hello."), Message("user", "Bye"))
    assert apply_template("llama2", turns) == ("<s>[INST] <<SYS>>\nBe brief.\n<</SYS>>\n\nHi! [/INST] Hello. </s>"
                                               "<s>[INST] Bye [/INST]")
    assert apply_template("llama2", (Message("user", "Hi!"),)) == "<s>[INST] Hi! [/INST]"


def test_no_template_is_the_text_as_it_is():
    assert apply_template("none", (Message("user", "def f(x):"),)) == "def f(x):"
    assert apply_template("none", TALK) == "Be brief.\n\nHi!"
    with pytest.raises(ValueError, match="unknown chat template"):
        apply_template("gpt", TALK)


# -- Tokenizers --------------------------------------------------------------------------------------------------
def test_bytes_count_utf8_bytes_three_a_chinese_character():
    assert count("bytes", "hello") == 5 and count("bytes", "你好") == 6
    assert [piece_text(p) for p in tokens("bytes", "a你")] == ["a", "<E4>", "<BD>", "<A0>"]


def test_the_bpe_reads_a_template_marker_as_one_token_and_common_code_as_few():
    assert count(BPE, "<|im_start|>") == 1 and count("bytes", "<|im_start|>") == 12
    assert tokens(BPE, "<|im_start|>user") == [b"<|im_start|>", b"user"]
    code = "    def __init__(self):\n        return None\n"
    assert count(BPE, code) < count("bytes", code) / 2.5


def test_the_bpe_falls_back_to_bytes_on_chinese():
    """Trained on English and Python, it has (almost) no merges for Chinese: about a token a byte."""
    text = "批处理调度器"
    assert count(BPE, text) >= 0.8 * count("bytes", text)
    assert b"".join(tokens(BPE, text)) == text.encode()


def test_each_tokenizers_pieces_put_back_together_are_the_text():
    text = apply_template("llama3", (Message("user", "你好, def f(x): return x  \n\t!"),))
    for name in chat.TOKENIZERS:
        assert b"".join(tokens(name, text)) == text.encode() and len(tokens(name, text)) == count(name, text)


def test_the_shipped_file_is_small_and_its_card_says_how_it_was_made():
    card = json.loads((chat.TOKENIZER_DIR / f"{BPE}.card.json").read_text())
    document = json.loads(BPE_FILE.read_text())
    assert BPE_FILE.stat().st_size < 200_000 and card["file_bytes"] == BPE_FILE.stat().st_size
    assert card["file_sha256"] == hashlib.sha256(BPE_FILE.read_bytes()).hexdigest()
    assert card["vocab_size"] == len(document["model"]["vocab"]) == 256 + len(SPECIAL_TOKENS) + card["merges"] == 2048
    assert card["merges"] == len(document["model"]["merges"]) <= 4000
    assert [t["content"] for t in document["added_tokens"]] == list(SPECIAL_TOKENS) == card["special_tokens"]
    assert card["library"].startswith("tokenizers ") and "standard library" in card["corpus"]


def test_the_pure_python_encoder_equals_the_library_on_the_corpus():
    from gpu_demo.train import corpus

    lib = library()
    sample = corpus(train=False)[1].decode("utf-8")[:200_000]
    assert chat.bpe(BPE).ids(sample) == lib.encode(sample).ids
    talk = apply_template("chatml", (Message("system", "你是助手。"), Message("user", "I'll sort ½ of 2² items…")))
    long_runs = "=" * 10_001 + " " * 10_003 + "x" + "    " * 777 + "def" + "#" * 999 + "\n" * 77  # long words
    for text in (talk, long_runs):
        assert chat.bpe(BPE).ids(text) == lib.encode(text).ids


# Characters the running Python's Unicode database knows: the library's tables are of a later Unicode version,
# which names letters in code points Python still calls unassigned (Cn); surrogates (Cs) are no text.
KNOWN = st.characters(exclude_categories=("Cs", "Cn"))
# Where the classes are easy to get wrong: contractions, whitespace Python and the library disagree on (U+001C),
# non-ASCII spaces, numbers that are no digits (Ⅷ, ², ½), marks, CJK.
EDGES = " \t\n\r'sdlmvt0123456789abcABC_!.,\u3000\x1c\x1f\x85\xa0Ⅷ²½é\u0301你"
# Lists of characters: a text strategy over an alphabet draws mostly low code points and rarely the edges.
PIECES = ("'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "  ", " \n ", "\n\n")
WORDS = st.lists(st.one_of(KNOWN, st.sampled_from(EDGES), st.sampled_from(PIECES)), max_size=30).map("".join)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(WORDS, st.sampled_from(SPECIAL_TOKENS)), max_size=6))
def test_the_pure_python_encoder_equals_the_library_on_random_text(parts):
    text = "".join(parts)
    assert chat.bpe(BPE).ids(text) == library().encode(text).ids


@settings(max_examples=500, deadline=None)
@given(WORDS)
def test_the_word_split_equals_the_library_pre_tokenizer(text):
    """The words GPT-2's pattern cuts (before any merge): where the classes differ, the ids often would not show."""
    words = ["".join(chat._BYTE_CHARS[b] for b in word.encode()) for word in chat._word_pattern().findall(text)]
    assert words == [word for word, _ in library().pre_tokenizer.pre_tokenize_str(text)]


# -- The trace's columns -----------------------------------------------------------------------------------------
def test_a_text_alone_still_counts_its_bytes_and_a_system_message_joins_it():
    trace = read_csv('name,arrival,output,text,system\nA,0,3,"def f(x):",\nB,1,2,你好,Be brief.\n')
    assert [r.prompt for r in trace] == [9, len("Be brief.\n\n你好".encode())]
    assert trace.requests[1].system == "Be brief."
    assert read_csv(write_csv(trace)) == trace and read_json(write_json(trace)) == trace


CODE = "    return self._data[with open(path) as f:\n        "  # (a code prompt: its indentation is part of it)


def test_a_text_prompt_is_kept_byte_for_byte_in_the_cli_the_upload_and_the_real_model(tmp_path):
    """Leading spaces and a trailing newline are part of a prompt: counted, kept, written and prefilled."""
    from gpu_demo.prompts import prompts_for
    from sim.trace.importers import import_trace

    rows = [{"name": "A", "arrival": 0, "output": 2, "text": CODE}, {"name": "B", "arrival": 1, "output": 2,
                                                                     "text": "\n  hi  \n", "system": " Be brief. "}]
    trace = validate(rows)
    assert len(CODE.encode()) == 52 and [r.prompt for r in trace] == [52, len(" Be brief. \n\n\n  hi  \n")]
    assert [r.text for r in trace] == [CODE, "\n  hi  \n"] and trace.requests[1].system == " Be brief. "
    assert read_csv(write_csv(trace)) == trace == read_json(write_json(trace))
    assert import_trace(write_csv(trace)).trace == trace == import_trace(write_json(trace)).trace  # (the upload)
    assert prompts_for(trace)[0] == CODE.encode()  # what the real model prefills
    path = tmp_path / "code.csv"
    path.write_text(write_csv(trace))
    out = subprocess.run([sys.executable, "-m", "sim", "run", "--trace", str(path), "--token-budget", "64", "--json"],
                         capture_output=True, text=True, check=True, cwd=Path(__file__).resolve().parents[1]).stdout
    assert [r["prompt"] for r in json.loads(out)["requests"]] == [52, trace.requests[1].prompt]


def test_messages_are_a_json_list_in_csv_and_a_list_in_json():
    csv = ('name,arrival,output,messages\n'
           'A,0,3,"[{""role"": ""system"", ""content"": ""Be brief.""}, {""role"": ""user"", ""content"": ""Hi!""}]"\n')
    trace = read_csv(csv)
    assert trace.requests[0].prompt == len("Be brief.\n\nHi!")
    assert chat.request_messages(trace.requests[0]) == TALK
    assert json.loads(write_json(trace))["requests"][0]["messages"][1] == {"role": "user", "content": "Hi!"}
    assert read_json(write_json(trace)) == trace == read_csv(write_csv(trace))


@pytest.mark.parametrize(("cell", "code", "needle"), [
    ("{", "msg_not_json", "is not JSON"),
    ('{"role": "user"}', "msg_not_list", "JSON list of messages"),
    ("[]", "msg_not_list", "JSON list of messages"),
    ('["hi"]', "msg_bad_item", "message 1 is not an object"),
    ('[{"role": "user", "content": "a"}, {"role": "bot", "content": "b"}]', "msg_bad_role", "message 2 has the role"),
    ('[{"role": "user", "content": "  "}]', "msg_empty", "message 1 has no text as its content"),
])
def test_a_bad_messages_cell_is_named_by_row_and_column(cell, code, needle):
    with pytest.raises(TraceError) as error:
        validate([{"name": "A", "arrival": 0, "prompt": 4, "output": 1},
                  {"name": "B", "arrival": 0, "output": 1, "messages": cell}], ["name", "arrival", "prompt", "output",
                                                                                 "messages"])
    (problem,) = error.value.problems
    assert (problem.code, problem.row, problem.name, problem.column) == (code, 2, "B", "messages")
    assert str(problem).startswith("row 2, request 'B', column 'messages': ") and needle in str(problem)


def test_messages_and_a_text_in_one_row_is_a_problem_and_the_limits_hold():
    with pytest.raises(TraceError) as error:
        validate([{"name": "A", "arrival": 0, "output": 1, "text": "hi",
                   "messages": [{"role": "user", "content": "hi"}]}])
    assert [p.code for p in error.value.problems] == ["msg_and_text"]
    with pytest.raises(TraceError) as error:
        validate([{"name": "A", "arrival": 0, "output": 1, "text": "hi", "system": "x" * 100_001}])
    assert [(p.code, p.column) for p in error.value.problems] == [("too_long", "system")]


def test_with_template_counts_the_templated_text_and_leaves_numbers_alone():
    trace = validate([{"name": "A", "arrival": 0, "output": 1, "system": "Be brief.", "text": "Hi!"},
                      {"name": "B", "arrival": 0, "output": 1, "prompt": 7}])
    templated = with_template(trace, "chatml", BPE)
    a, b = templated.requests
    assert a.text == apply_template("chatml", TALK) and a.system is None and a.prompt == count(BPE, a.text)
    assert b == trace.requests[1]
    assert with_template(trace).requests[0].prompt == len("Be brief.\n\nHi!")


# -- The command line --------------------------------------------------------------------------------------------
def cli(*args, module="sim"):
    return subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


@pytest.fixture
def chat_csv(tmp_path):
    path = tmp_path / "chat.csv"
    path.write_text('name,arrival,output,text,system\nA,0,3,"def f(x):",\nB,1,2,你好世界,Be brief.\n')
    return str(path)


def test_the_cli_counts_prompts_under_a_template_and_a_tokenizer(chat_csv):
    def prompts(*options):
        out = cli("run", "--trace", chat_csv, "--token-budget", "200", "--json", *options)
        assert out.returncode == 0, out.stderr
        return [r["prompt"] for r in json.loads(out.stdout)["requests"]]

    said = [(Message("user", "def f(x):"),), (Message("system", "Be brief."), Message("user", "你好世界"))]
    assert prompts() == [count("bytes", apply_template("none", s)) for s in said] == [9, 23]
    assert prompts("--chat-template", "chatml") == [count("bytes", apply_template("chatml", s)) for s in said]
    assert prompts("--chat-template", "llama3", "--tokenizer", BPE) == [
        count(BPE, apply_template("llama3", s)) for s in said]


def test_a_prompt_the_template_makes_larger_than_the_budget_is_the_over_budget_error(chat_csv):
    assert cli("run", "--trace", chat_csv, "--token-budget", "40").returncode == 0
    out = cli("run", "--trace", chat_csv, "--token-budget", "40", "--chat-template", "chatml")
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    assert "request 'A', column 'prompt': prompt of 59 tokens is larger than the token budget 40" in out.stderr
    bad = cli("run", "--trace", chat_csv, "--token-budget", "40", "--chat-template", "gpt4")
    assert bad.returncode == 2 and "--chat-template" in bad.stderr and "chatml" in bad.stderr


# -- The real model ----------------------------------------------------------------------------------------------
def test_the_real_engine_prefills_exactly_the_templated_bytes(monkeypatch):
    from gpu_demo import engine as engine_module
    from gpu_demo.loading import load_model
    from gpu_demo.prompts import prompts_for, with_text_lengths
    from sim.core.config import Config, Policy

    trace = validate([{"name": "A", "arrival": 0, "output": 3, "system": "Be brief.", "text": "Hi!"},
                      {"name": "B", "arrival": 1, "output": 2, "messages": [{"role": "user", "content": "你好"}]}])
    served = with_text_lengths(trace, "llama3")
    prompts = prompts_for(served)
    wanted = [apply_template("llama3", chat.request_messages(r)).encode() for r in trace]
    assert prompts == wanted and [r.prompt for r in served] == [len(p) for p in wanted]
    fed = [bytearray(len(p)) for p in prompts]
    real = engine_module.pack

    def pack(it, cache, sequences, done, device):  # record every prefill chunk's bytes where they go
        for i, first, n in it.prefill:
            fed[i][first:first + n] = bytes(sequences.tokens[i][first:first + n])
        return real(it, cache, sequences, done, device)

    monkeypatch.setattr(engine_module, "pack", pack)
    result = engine_module.run(load_model("cpu"), served, prompts, Config(64), Policy(chunk_size=16))
    assert [bytes(f) for f in fed] == wanted
    assert [sum(s.tokens for s in r.segments if s.phase == "prefill") for r in result.schedule.requests] == [
        len(p) for p in wanted]


def test_the_real_model_cli_prefills_the_template_and_refuses_the_bpe(chat_csv):
    out = cli("run", "--trace", chat_csv, "--token-budget", "200", "--chat-template", "chatml", "--json",
              module="gpu_demo")
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)["requests"]
    assert rows[0]["prompt_text"] == apply_template("chatml", (Message("user", "def f(x):"),))
    assert [r["prompt"] for r in rows] == [len(r["prompt_text"].encode()) for r in rows]
    bad = cli("run", "--trace", chat_csv, "--token-budget", "200", "--tokenizer", BPE, module="gpu_demo")
    assert bad.returncode == 2 and "reads bytes" in bad.stderr


def test_the_real_model_page_shows_what_it_prefilled_under_the_template():
    from tests.test_app import open_page

    at = open_page("pages/real_model.py")
    at.radio(key="w_rm_source").set_value("chats").run()
    at.selectbox(key="w_rm_template").set_value("chatml").run()
    assert not at.exception, at.exception
    table = next(d.value for d in at.dataframe if "prompt text" in d.value.columns)
    assert table["prompt text"][0] == "<|im_start|>system\nYou write Python.<|im_end|>\n<|im_start|>user\n" \
                                      "Reverse a list.<|im_end|>\n<|im_start|>assistant\n"
    assert table["prompt"].tolist() == [len(text.encode()) for text in table["prompt text"]]
    assert table["BPE tokens"].tolist() == [count(BPE, text) for text in table["prompt text"]]
    assert any(table["prompt text"][0].rstrip("\n") == c.value.rstrip("\n") for c in at.code)  # st.code drops a \n


# -- The trace lab's chat panel ----------------------------------------------------------------------------------
def open_panel(lang="en"):
    from tests.test_app import open_page

    at = open_page("pages/trace_lab.py", lang)
    at.session_state["lab_chat"] = True  # the expander's state: open
    return at.run()


def counts_shown(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric if m.label.startswith(("bytes", "classroom", "字节", "课堂"))}


def test_the_panel_shows_the_templated_text_and_both_counts_and_adds_a_request():
    at = open_panel()
    at.text_area(key="w_chat_system").set_value("Be brief.")
    at.text_area(key="w_chat_user").set_value("Hi!")
    at.selectbox(key="w_chat_template").set_value("chatml").run()
    assert not at.exception, at.exception
    text = apply_template("chatml", TALK)
    assert any(c.value.rstrip("\n") == text.rstrip("\n") for c in at.code)  # st.code drops a last \n
    assert counts_shown(at) == {"bytes (the tiny model's)": f"{count('bytes', text)} tokens",
                                "classroom BPE (subword)": f"{count(BPE, text)} tokens"}
    at.radio(key="w_chat_tokenizer").set_value(BPE).run()
    at.number_input(key="w_lab_token_budget").set_value(64)  # else the prompt could never be admitted
    at.button(key="chat_use").click().run()
    assert not at.exception, at.exception
    table = at.session_state["lab"].current
    added = table.iloc[-1]
    assert (added["name"], added["prompt"], added["text"], added["system"]) == ("chat1", count(BPE, text), "Hi!",
                                                                               "Be brief.")
    trace = at.session_state["lab"].ran.trace  # the run the page shows: the count entered admission
    assert [r.prompt for r in trace if r.name == "chat1"] == [count(BPE, text)]


def test_what_was_typed_in_the_panel_survives_folding_it_and_a_page_switch():
    at = open_panel()
    at.text_area(key="w_chat_user").set_value("Sort this: 3 1 2").run()
    at.session_state["lab_chat"] = False  # folded: its widgets are not drawn
    at.run()
    at.switch_page("pages/home.py").run()
    at.switch_page("pages/trace_lab.py")
    at.session_state["lab_chat"] = True
    at.run()
    assert at.text_area(key="w_chat_user").value == "Sort this: 3 1 2"
    assert any(c.value.endswith("Sort this: 3 1 2") for c in at.code)


def test_the_panel_uses_a_rows_messages_and_sets_its_prompt_keeping_the_other_edits():
    from ui.lab_state import frame

    at = open_panel()
    trace = validate([{"name": "A", "arrival": 0, "prompt": 4, "output": 5},
                      {"name": "q", "arrival": 1, "output": 2, "text": "你好", "system": "Be brief."}])
    at.session_state["lab"].base = at.session_state["lab"].current = frame(trace)
    at.run()
    at.session_state["trace"] = {"edited_rows": {0: {"output": 7}}, "added_rows": [], "deleted_rows": []}
    at.run()
    at.selectbox(key="w_chat_source").set_value(1).run()
    at.selectbox(key="w_chat_template").set_value("llama3").run()
    assert not at.exception, at.exception
    text = apply_template("llama3", (Message("system", "Be brief."), Message("user", "你好")))
    assert any(c.value.rstrip("\n") == text.rstrip("\n") for c in at.code)  # st.code drops a last \n
    assert any("2 characters outside ASCII are 6 bytes and 6 BPE tokens" in i.value for i in at.info)
    at.button(key="chat_use").click().run()
    table = at.session_state["lab"].current
    assert table["prompt"].tolist() == [4, count("bytes", text)] and table["output"].tolist() == [7, 2]


def test_the_panel_says_which_message_of_a_row_is_wrong_in_chinese():
    from streamlit.testing.v1 import AppTest

    from tests.test_app import APP
    from ui.lab_state import ChatPanel, LabState, frame

    table = frame(validate([{"name": "A", "arrival": 0, "prompt": 4, "output": 5}]))
    table["messages"] = ['[{"role": "robot", "content": "hi"}]']
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["lang"] = "zh"
    at.run()
    # Everything set before the lab's one run: a second run would have the test's own process format the
    # selectboxes' options, in English.
    at.session_state["lab"] = LabState(base=table, current=table, chat=ChatPanel(source=0))
    at.session_state["lab_chat"] = True
    at.switch_page("pages/trace_lab.py").run()
    assert not at.exception, at.exception
    assert any("请求 A 的消息无法读取" in w.value and "robot" in w.value for w in at.warning)
    problems = next(d.value for d in at.dataframe if "问题" in d.value.columns)
    assert problems["列"].tolist() == ["消息列表"] and "第 1 条消息的角色是" in problems["问题"][0]


# -- In Chromium: what the panel and the real model's prompts draw fits the screen ----------------------------------
@pytest.fixture
def chromium_app(server, browser):
    """The session's app server and Chromium (tests/conftest.py: a clean skip without Playwright or Chromium, which
    the other tests of this file do not need)."""
    return server, browser


@pytest.mark.parametrize("viewport", ["1400x900", "1024x768"])
@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_panel_and_the_prefilled_prompts_fit_the_screen(chromium_app, language, viewport):
    from tests.test_layout import CHECKS, LOCALES, VIEWPORTS, settle

    server, browser = chromium_app
    where = f"chat · {language} · {viewport}"
    context = browser.new_context(locale=LOCALES[language], viewport=VIEWPORTS[viewport])
    context.set_default_timeout(30_000)
    texts = {key: STRINGS[key][language] for key in ("chat_title", "rm_source_chats", "rm_prefilled")}
    try:
        page = context.new_page()
        page.goto(server + "/trace_lab")
        settle(page, where)
        page.get_by_text(texts["chat_title"]).first.click()
        settle(page, where)
        panel = page.get_by_test_id("stExpander").filter(has_text=texts["chat_title"]).first
        panel.get_by_test_id("stSelectbox").nth(1).click()  # the template: the longest markers
        page.keyboard.type("Llama 3")
        page.keyboard.press("Enter")
        settle(page, where)
        assert "<|eot_id|>" in panel.get_by_test_id("stCode").inner_text()
        problems = page.evaluate(CHECKS, where + " · lab")
        page.goto(server + "/real_model")
        settle(page, where)
        page.get_by_text(texts["rm_source_chats"], exact=True).click()
        settle(page, where)
        page.get_by_text(texts["rm_prefilled"]).first.click()
        settle(page, where)
        problems += page.evaluate(CHECKS, where + " · real model")
        assert page.get_by_test_id("stException").count() == 0
    finally:
        context.close()
    assert not problems, problems
