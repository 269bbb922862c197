"""Every scenario of the property tests gives the schedule it gave before the scheduler was restructured
(tests/schedule_cases.py wrote them, with their schedules' digests, from the code before)."""
import pytest

from tests.schedule_cases import decode, digest, load

CASES = load()


def test_the_cases_cover_the_options():
    policies = [decode(case)[2] for case in CASES]
    assert len(CASES) >= 1000
    assert {p.batching for p in policies} == {"static", "continuous"}
    assert {p.preset for p in policies} >= {"", "nano-vllm", "vllm-v1", "sglang"}
    assert any(p.stream_credits for p in policies) and any(p.spec_tokens for p in policies)
    assert sum(not case["digest"].startswith("error:") for case in CASES) > 0.9 * len(CASES)


@pytest.mark.parametrize("chunk", range(10))
def test_every_schedule_is_unchanged(chunk):
    changed = [n for n, case in enumerate(CASES) if n % 10 == chunk and digest(*decode(case)) != case["digest"]]
    assert not changed, f"{len(changed)} schedules changed, the first: case {changed[0]}"
