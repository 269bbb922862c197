"""The metrics guide's "Under the hood" and the README name the scheduler's functions: each name is real."""
import re
from pathlib import Path

import pytest

from sim.core import continuous, iteration, memory, policies, recording, request, scheduler, static, stream
from ui.strings import STRINGS

ROOT = Path(__file__).resolve().parents[1]
PLACES = (policies, continuous, continuous.Continuous, static, scheduler.Scheduler, iteration, iteration.Iteration,
          request, memory, recording, stream)


def named(text: str) -> list[str]:
    return re.findall(r"`([^`]+)`", text)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_function_the_guide_names_exists(lang):
    names = named(STRINGS["guide_hood"][lang])
    assert len(names) >= 10
    for name in names:
        if "/" in name:
            assert (ROOT / name).exists(), name
        elif "." in name:
            owner, attribute = name.split(".")
            assert hasattr(getattr(policies, owner, None) or getattr(scheduler, owner), attribute), name
        else:
            assert any(hasattr(place, name) for place in PLACES), name


def test_the_readmes_four_steps_name_real_functions():
    told = (ROOT / "README.md").read_text().split("## Under the hood", 1)[1].split("\n## ", 1)[0]
    for name in named(told):
        if "/" in name or " " in name:
            continue
        owner, _, attribute = name.rpartition(".")
        where = getattr(policies, owner, None) or getattr(scheduler, owner, None) if owner else None
        assert hasattr(where, attribute) if where else any(hasattr(p, name) for p in PLACES), name
