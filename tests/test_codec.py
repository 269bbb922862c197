"""sim.codec: Config and Policy to flat dicts and back (exact), to what forms show and back, to a link's nested
dicts and back; and share links made before the codec still open."""
from dataclasses import fields, is_dataclass

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from sim import codec
from sim.core.config import (
    COST_MODELS,
    FIRST_TOKEN_MODES,
    POLICY_CHOICES,
    SLO,
    Config,
    ConfigError,
    CostModel,
    Policy,
)
from sim.core.moe import MoE
from sim.trace.trace import SEED_CSV, read_csv
from ui.scenario import Scenario, ScenarioError, decode

small = st.integers(1, 64)
rate = st.floats(0.125, 100.0, allow_nan=False, width=32)
coefficient = st.floats(0.0, 10.0, allow_nan=False, width=32)
limit = st.none() | rate


def _made(cls, **strategies):
    """Instances of cls from these field strategies, only those its checks accept."""
    def make(values):
        try:
            return cls(**values)
        except ConfigError:
            assume(False)
    return st.fixed_dictionaries(strategies).map(make)


configs = _made(
    Config, token_budget=small, max_seqs=st.none() | small, first_token=st.sampled_from(FIRST_TOKEN_MODES),
    slo=_made(SLO, ttft=limit, tpot=limit, e2e=limit), kv_blocks=st.none() | small, block_size=small,
    swap_cost=st.integers(0, 9), read_rate=limit, prefix_block=small,
    cost=_made(CostModel, kind=st.sampled_from(COST_MODELS), c0=coefficient, c_prefill=coefficient,
               c_decode=coefficient, c_attn=coefficient, c_token=coefficient, c_seq=coefficient, c_key=coefficient,
               c_cell=coefficient, source=st.sampled_from(("", "cpu-float32"))),
    moe=_made(MoE, experts=st.sampled_from((0, 4, 8)), top_k=st.integers(1, 4), skew=coefficient,
              devices=st.sampled_from((1, 2, 4)), c_expert=coefficient, c_a2a=coefficient, seed=st.integers(0, 99)))
policies = _made(
    Policy, **{name: st.sampled_from(options) for name, options in POLICY_CHOICES.items()},
    aging_rate=coefficient, preemptive_priority=st.booleans(),
    tenant_quotas=st.sampled_from(((), (("vip", 0.5),), (("a", 0.25), ("b", 0.75)))),
    chunk_size=st.none() | small, timeout=st.none() | small, graph_buckets=st.sampled_from(((), (1, 2, 4), (8,))),
    spec_tokens=st.integers(0, 3), spec_accept=st.floats(0.0, 1.0, width=32), seed=st.integers(0, 99),
    stream_credits=st.none() | st.integers(4, 16), release_paused=st.booleans(), prefix_cache=st.booleans())


def leaf_paths(cls, path=()):
    defaults = cls()
    for f in fields(cls):
        value = getattr(defaults, f.name)
        yield from leaf_paths(type(value), (*path, f.name)) if is_dataclass(value) else [(*path, f.name)]


def test_every_field_is_one_flat_setting_with_the_dataclass_default():
    for cls in (Config, Policy):
        assert [codec.LEAVES[name].path for name in codec.names(cls)] == list(leaf_paths(cls))
    assert codec.flat(Config())["slo_ttft"] is None and codec.flat(Config())["cost_kind"] == "ticks"
    assert codec.build(Config, {}) == Config() and codec.build(Policy, {}) == Policy()
    assert {name: leaf.default for name, leaf in codec.LEAVES.items()} == codec.flat(Config()) | codec.flat(Policy())


@settings(max_examples=150, deadline=None)
@given(configs, policies)
def test_flat_shown_and_tree_forms_round_trip(config, policy):
    for settings_ in (config, policy):
        cls = type(settings_)
        flat = codec.flat(settings_)
        assert codec.build(cls, flat) == settings_
        assert codec.build(cls, {name: codec.typed(name, codec.shown(name, value)) for name, value in flat.items()}) \
            == settings_
        assert codec.build(cls, codec.from_tree(cls, codec.tree(settings_))) == settings_
    assert codec.config_and_policy(codec.flat(config) | codec.flat(policy)) == (config, policy)


def test_what_a_form_hands_back_is_read_or_kept_as_typed_for_its_check():
    assert codec.typed("max_seqs", 0) is None and codec.typed("max_seqs", float("nan")) is None
    assert codec.typed("token_budget", 4.0) == 4 and type(codec.typed("token_budget", 4.0)) is int
    assert codec.typed("token_budget", 2.5) == 2.5  # not rounded: Config names it
    with pytest.raises(ConfigError) as error:
        codec.build(Config, {"token_budget": codec.typed("token_budget", 2.5)})
    assert error.value.field == "token_budget"
    assert codec.typed("graph_buckets", "1; 2, 4") == (1, 2, 4)
    assert codec.typed("tenant_quotas", "vip=0.5, free = 0.25") == (("vip", 0.5), ("free", 0.25))
    with pytest.raises(ConfigError) as error:
        codec.typed("graph_buckets", "1, two")
    assert (error.value.field, error.value.code) == ("graph_buckets", "bucket_list")
    assert codec.shown("slo_ttft", None) == 0.0 and codec.shown("chunk_size", None) == 0
    with pytest.raises(ValueError, match="not a setting of Config"):
        codec.build(Config, {"order": "sjf"})


def test_a_nested_dict_names_an_unknown_setting_where_it_is():
    with pytest.raises(ValueError, match="unknown setting 'slo.goodput'"):
        codec.from_tree(Config, {"slo": {"goodput": 1}})
    with pytest.raises(ValueError, match="slo. must be an object"):
        codec.from_tree(Config, {"slo": None})
    with pytest.raises(ValueError, match="unknown setting 'policy.chunk'"):
        codec.from_tree(Policy, {"chunk": 4}, "policy.")


# A link the app wrote before the codec (commit f9149be): the seed's trace under budgets, cache, streaming, a
# linear cost and MoE routing, static with SJF against continuous with chunks, graphs, quotas and credits.
OLD_LINK = (
    "eNpVUsGumzAQ_Jc9W4gQkCpubT8jQpZjlsTF2H72muQ1yr93DUmkissYz8zOevcBK_QHAdrbvLgE_QmcWhAEqBjNqiyjEP0SiIHPFDLBICD6"
    "W-Ge4CeIWrSiG8QJfhXciKbg3yCO_LXDULzdZC7QP4D8jE6e83hB4rK1gEXdZcIvNmsETCYmkhsJei6Lk7ElQLJ-U9PEqq5iGQXP0GVrBWCD0L"
    "d1VT8FzKs8W69n9juy4YZlMn-Z8YN9bipI7RNt1SKqUUZFfNdUndjr3Xc9lzk0JXnhPmA2buRE1jhUkQPpumg4h5bvlH1dlWeUI2o_Yjl25aiI"
    "XDnU2-WrtXqXct8fPOP3B2vc_fiQfI6a3QC4ucVjCYP3gJG4w5bfwQc5b92kGW8v0Yir0bg_qZY7_ZNPNeqdJyFyV8cnWwdvjTZFc3rAWZG-"
    "GscTg0SKjC6jjyPG8uPPxFH-4_B4ybjsc2IeoVOO5Ff2pPYNWU3gvai6bROu2b3ncRRwiSpceR30jKWf04G3p2VaIp7NInXE0bwajWhRJZRB"
    "5VRSU8z4HJ7_AJu23EQ")


def test_a_link_made_before_the_codec_opens_as_it_was():
    config = Config(10, 2, "prefill", SLO(ttft=5.0, e2e=40.0), kv_blocks=32, block_size=8, read_rate=2.5,
                    cost=CostModel("linear", c0=2.0, c_attn=0.01), moe=MoE(experts=4, top_k=2, devices=2, seed=3))
    b = Policy(chunk_size=3, graph_buckets=(1, 2, 4), tenant_quotas=(("vip", 0.5),), stream_credits=4,
               release_paused=True)
    assert decode(OLD_LINK) == Scenario(read_csv(SEED_CSV), config, Policy("static", order="sjf"), b)


def test_a_link_from_before_a_field_was_added_takes_its_default():
    from tests.test_scenario import link, payload
    old = payload()
    for name in ("moe", "read_rate", "prefix_block"):  # fields added after the first links
        del old["config"][name]
    del old["config"]["cost"]["c_token"]
    assert decode(link(old)).config == Config(8)
    old["config"]["cost"]["c_tokens"] = 1.0  # a misspelt field is not dropped: the link is refused
    with pytest.raises(ScenarioError, match="unknown setting 'cost.c_tokens'"):
        decode(link(old))


def run_options(*flags: str):
    from sim.options import Parser, add_roofline_options, add_run_options
    parser = Parser()
    add_run_options(parser)
    add_roofline_options(parser)  # (sim's run and sweep: the real engine times its own model)
    return parser, parser.parse_args(["--trace", "t.csv", "--token-budget", "16", *flags])


def test_each_command_line_option_is_the_setting_of_its_name_and_defaults_to_the_dataclasses():
    from sim.options import config_and_policy
    parser, args = run_options()
    assert config_and_policy(args) == (Config(16), Policy())
    dests = {action.dest for action in parser._actions}
    profile_only = {"c_token", "c_seq", "c_key", "c_cell", "source"}  # set by --cost-profile, from its file
    assert set(codec.names(Config)) - profile_only <= dests and set(codec.names(Policy)) <= dests
    _, args = run_options(
        "--max-seqs", "4", "--first-token", "prefill", "--slo-ttft", "5", "--kv-blocks", "32", "--block-size", "8",
        "--swap-cost", "3", "--read-rate", "2", "--prefix-block", "64", "--cost-model", "linear", "--c0", "2",
        "--moe-experts", "4", "--moe-seed", "2", "--policy", "continuous", "--order", "sjf", "--sjf-key", "output",
        "--chunk-size", "4", "--tenant-quota", "vip=0.5", "--tenant-quota", "free=0.25", "--graph-buckets", "1,2",
        "--spec-tokens", "1", "--stream-credits", "4", "--release-paused", "--prefix-cache")
    assert config_and_policy(args) == (
        Config(16, 4, "prefill", SLO(ttft=5.0), kv_blocks=32, block_size=8, swap_cost=3, read_rate=2.0,
               prefix_block=64, cost=CostModel("linear", c0=2.0), moe=MoE(experts=4, seed=2)),
        Policy(order="sjf", sjf_key="output", chunk_size=4, tenant_quotas=(("vip", 0.5), ("free", 0.25)),
               graph_buckets=(1, 2), spec_tokens=1, stream_credits=4, release_paused=True, prefix_cache=True))
