"""Shared test helpers: where ../shared lives, and small trace builders."""
import os
from pathlib import Path

import pytest

from sim.trace.trace import validate

SHARED = Path(__file__).resolve().parents[1].parent / "shared"


@pytest.fixture(scope="session", autouse=True)
def kept_profiles(tmp_path_factory):
    """This machine's cost profiles are kept in the session's own folder (gpu_demo.profile.kept_dir): the first
    comparison of the session profiles the machine, as on a first visit, and a user's own are never touched."""
    os.environ["CLASSROOM_PROFILES"] = str(tmp_path_factory.mktemp("profiles"))


def shared_path(*parts: str) -> Path:
    """A file under ../shared, or a clean skip when a fresh clone has no ../shared."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is not present (it lives outside the project)")
    return path


def make_trace(*rows):
    """A trace from (name, arrival, prompt, output) tuples."""
    return validate([dict(zip(("name", "arrival", "prompt", "output"), row)) for row in rows])


SEED_ROWS = (("A", 0, 4, 5), ("B", 0, 2, 2), ("C", 3, 3, 4))
