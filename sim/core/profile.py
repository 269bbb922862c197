"""A measured cost profile (written by `python -m gpu_demo profile`) read as one more cost model of sim.

The document holds the engine's timed shapes, where they were measured (device, dtype, threads, torch) and the
coefficients fitted to them (ms). The cost model adds the engine's own time per iteration outside the forward
pass (planning and committing, `loop_ms`) to c0, so that its iterations follow each other as the engine's do.
"""
from __future__ import annotations

import json
from pathlib import Path

from .config import CostModel
from .errors import number

COEFFICIENTS = ("c0", "c_token", "c_seq", "c_key", "c_cell")


class ProfileError(ValueError):
    """A profile file that cannot be read or is not a profile; the message names the file and the field."""


def read_profile(path: str | Path) -> dict:
    """The profile document at `path`, checked: its coefficients are numbers >= 0."""
    path = Path(path)
    try:
        document = json.loads(path.read_text())
    except OSError as error:
        raise ProfileError(f"cannot read cost profile {path}: {error.strerror or error}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ProfileError(f"cost profile {path} is not JSON: {error}") from None
    if not isinstance(document, dict) or not isinstance(document.get("coefficients"), dict):
        raise ProfileError(f"cost profile {path} has no 'coefficients' object (make one: python -m gpu_demo profile)")
    for name in COEFFICIENTS:
        try:
            number(name, document["coefficients"].get(name))
        except ValueError as error:
            raise ProfileError(f"cost profile {path}: coefficients.{error}") from None
    try:
        number("loop_ms", document.get("loop_ms", 0.0))
    except ValueError as error:
        raise ProfileError(f"cost profile {path}: {error}") from None
    return document


def profile_cost(document: dict, source: str = "", scale: float = 1.0) -> CostModel:
    """The cost model a profile document describes; `source` names it (default: its device and dtype). `scale`
    multiplies every time: how much slower the machine runs now than when it was profiled (a calibration)."""
    c = document["coefficients"]
    label = source or f"{document.get('device', '?')} {document.get('dtype', '?')} profile"
    return CostModel("profile", c0=scale * (c["c0"] + document.get("loop_ms", 0.0)), c_token=scale * c["c_token"],
                     c_seq=scale * c["c_seq"], c_key=scale * c["c_key"], c_cell=scale * c["c_cell"], source=label)


def load_profile(path: str | Path) -> CostModel:
    return profile_cost(read_profile(path))
