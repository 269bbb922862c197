"""Shared test helpers: where ../shared lives, and small trace builders."""
from pathlib import Path

import pytest

from sim.trace.trace import validate

SHARED = Path(__file__).resolve().parents[1].parent / "shared"


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
