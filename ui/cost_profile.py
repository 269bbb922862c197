"""The shipped cost profile of the real engine (`python -m gpu_demo profile`), as the lab, the capacity lab and
the real-model page show it: which profile, its formula with units, and its coefficients as the lab's settings.
Read from its JSON file alone: the lab never loads torch."""
from __future__ import annotations

from functools import cache
from pathlib import Path

import gpu_demo
from sim.core.config import CostModel
from sim.core.profile import ProfileError, profile_cost, read_profile

from .i18n import t

PROFILES = Path(gpu_demo.__file__).with_name("profiles")
SHIPPED = PROFILES / "cpu-float32.json"
COEFFICIENTS = ("c0", "c_token", "c_seq", "c_key", "c_cell")


@cache
def _read(path: Path, mtime: float) -> dict:
    return read_profile(path)


def document(path: Path = SHIPPED) -> dict | None:
    """The profile document, or None when the file is missing or unreadable."""
    try:
        return _read(path, path.stat().st_mtime)
    except (OSError, ProfileError):
        return None


def shipped_cost() -> CostModel | None:
    found = document()
    return None if found is None else profile_cost(found)


def formula(cost: CostModel) -> str:
    """The profile's cost with its coefficients and units, for a caption."""
    return t("cost_profile_formula", c0=f"{cost.c0:.3g}", c_token=f"{cost.c_token:.3g}", c_seq=f"{cost.c_seq:.3g}",
             c_key=f"{cost.c_key:.3g}", c_cell=f"{cost.c_cell:.3g}")


def about(found: dict, own: bool = False) -> str:
    """Where and how the profile was measured (`own`: this machine's, not the shipped one), and how well it fits
    shapes it was not fitted on."""
    return t("cost_profile_about_own" if own else "cost_profile_about", device=found.get("device", "?"),
             dtype=found.get("dtype", "?"), threads=found.get("threads", "?"), shapes=len(found.get("shapes", ())),
             held_out=found.get("held_out_error_percent", "?"), spread=found.get("spread_percent", "?"))
