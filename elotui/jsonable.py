"""JSON-ready values: NaN and infinities become null, numpy scalars Python numbers, tuples lists (recursively).
Ground floor: what every JSON writer (the diagnose report, the ranking export) passes its document through."""

from __future__ import annotations

import math
from typing import Any

import numpy as np


def jsonable(value: Any) -> Any:
    """NaN/inf -> None, numpy scalars -> Python, tuples -> lists (recursively)."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
