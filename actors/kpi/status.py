"""A value's traffic-light status from the KPI's thresholds and direction (the rule in docs/decisions.md,
"KPI status"). Pure, so that the actor, its tests and anyone reading the rule share one definition.

- Each colour's band is closed at both ends; a missing `min` or `max` leaves that end open; a band given
  as `{}` holds every value. No band at all (no thresholds): the status is None, the value is not rated.
- A value inside one or more bands takes the best of them (green, then amber, then red), so a bound two
  bands share belongs to the better one: with green `min 90` and amber `max 90`, 90 is green.
- A value inside no band lies beyond all of them or in a gap between two. Worse than every band (below
  them all when higher is better, above them all when lower is better): red. Better than every band:
  green. In a gap: the worse of the two bands around it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

COLORS = ("green", "amber", "red")  # best first
SEVERITY = {color: rank for rank, color in enumerate(COLORS)}

Band = tuple[str, float | None, float | None]


def bands_of(thresholds: Mapping[str, Any] | None) -> list[Band]:
    """(colour, min, max) of each band given, best colour first."""
    given = thresholds or {}
    return [(color, band.get("min"), band.get("max")) for color in COLORS
            if isinstance(band := given.get(color), Mapping)]


def worse(first: str, second: str) -> str:
    return first if SEVERITY[first] >= SEVERITY[second] else second


def _nearest(candidates: list[tuple[float, str]], *, lowest: bool) -> str:
    """The colour of the band nearest the value on one side; bands equally near give the worse colour."""
    edge = min(c[0] for c in candidates) if lowest else max(c[0] for c in candidates)
    colors = [color for bound, color in candidates if bound == edge]
    return max(colors, key=SEVERITY.__getitem__)


def status_of(value: float, thresholds: Mapping[str, Any] | None, direction: str) -> str | None:
    bands = bands_of(thresholds)
    if not bands:
        return None
    for color, low, high in bands:
        if (low is None or value >= low) and (high is None or value <= high):
            return color
    # Outside every band, each band lies wholly below the value (its max is below) or wholly above it.
    below = [(high, color) for color, _, high in bands if high is not None and high < value]
    above = [(low, color) for color, low, _ in bands if low is not None and low > value]
    worse_side, better_side = (below, above) if direction == "higher_is_better" else (above, below)
    if not worse_side:
        return "red"
    if not better_side:
        return "green"
    return worse(_nearest(below, lowest=False), _nearest(above, lowest=True))
