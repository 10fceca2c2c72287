"""Charts drawn by the server as SVG in the page's HTML (no script, no chart library): the
rating history of an engine and the small trend lines of the leaderboards.

Pure geometry: the functions take numbers and return coordinates and path strings for the
templates (``web/_rating_chart.html``), plus a sentence that says what the chart shows for
screen readers. Ratings are Elo; times are ``datetime`` (only their order and spacing matter).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TypeVar

T = TypeVar("T")

#: Line colours of the versions of an engine, in upload order (readable on white, distinct).
PALETTE = ("#1f5d96", "#b0462f", "#2f7d3b", "#7a3fa0", "#a06a00", "#007c80", "#5b5b5b")
#: Most points drawn per line: longer histories are thinned evenly (first and last kept).
MAX_POINTS = 400


@dataclass(frozen=True)
class ChartPoint:
    when: datetime
    rating: float
    low: float
    high: float


@dataclass
class Line:
    """One version's history: ``path`` (the rating), ``band`` (the 95% interval, a closed
    polygon), its colour, the last point (``end_x``, ``end_y``, ``end``), the first, and
    ``count``, the points of the whole history (the path may be thinned)."""

    label: str
    colour: str
    path: str
    band: str
    end_x: float
    end_y: float
    end: ChartPoint
    first: ChartPoint
    count: int


@dataclass
class Frame:
    """A chart of ``width`` x ``height`` user units and its plot area (``left``..``right``,
    ``top``..``bottom``), leaving room for the axes' labels."""

    width: int
    height: int
    left: int
    top: int
    right: int
    bottom: int

    @staticmethod
    def of(width: int, height: int) -> tuple[int, int, int, int, int, int]:
        """The frame fields of a chart of that size, in field order (the margins every chart
        here uses): ``Chart(*Frame.of(760, 280))``."""
        return width, height, 56, 14, width - 16, height - 30

    @property
    def plot_width(self) -> int:
        return self.right - self.left

    @property
    def plot_height(self) -> int:
        return self.bottom - self.top


@dataclass
class Chart(Frame):
    """A rating chart: the axes' ticks (``(y, label)``; ``(x, text-anchor, label)``), the
    lines and a one-paragraph ``summary`` for screen readers."""

    y_ticks: list[tuple[float, str]] = field(default_factory=list)
    x_ticks: list[tuple[float, str, str]] = field(default_factory=list)
    lines: list[Line] = field(default_factory=list)
    summary: str = ""


def thin(points: Sequence[T], limit: int = MAX_POINTS) -> list[T]:
    """At most ``limit`` of ``points``, evenly spaced, first and last kept."""
    if len(points) <= limit:
        return list(points)
    step = (len(points) - 1) / (limit - 1)
    return [points[round(i * step)] for i in range(limit)]


def nice_step(span: float, target: int = 5) -> float:
    """A round tick step (1, 2 or 5 times a power of ten) giving about ``target`` ticks."""
    raw = max(span, 1e-9) / target
    power = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if factor * power >= raw:
            return float(factor * power)
    return float(10 * power)


def rating_chart(
    series: Sequence[tuple[str, Sequence[ChartPoint]]],
    *,
    width: int = 760,
    height: int = 280,
    subject: str = "Rating",
) -> Chart:
    """The chart of several rating histories sharing one time and one Elo axis.

    ``series`` is ``(label, points oldest first)`` per line; empty series are skipped. The Elo
    axis covers every point's interval; the time axis runs from the first point to the last.
    """
    chart = Chart(*Frame.of(width, height))
    drawn = [(label, thin(points), len(points)) for label, points in series if points]
    if not drawn:
        chart.summary = f"{subject}: no rated matches yet."
        return chart
    everything = [p for _, points, _ in drawn for p in points]
    low = min(p.low for p in everything)
    high = max(p.high for p in everything)
    if high - low < 40:  # a flat history still gets a readable axis
        middle = (high + low) / 2
        low, high = middle - 20, middle + 20
    step = nice_step(high - low)
    low, high = math.floor(low / step) * step, math.ceil(high / step) * step
    start = min(p.when for p in everything).timestamp()
    end = max(p.when for p in everything).timestamp()
    span = end - start

    def x(when: datetime) -> float:
        if span <= 0:
            return (chart.left + chart.right) / 2
        return round(chart.left + (when.timestamp() - start) / span * (chart.right - chart.left), 1)

    def y(elo: float) -> float:
        return round(chart.bottom - (elo - low) / (high - low) * (chart.bottom - chart.top), 1)

    tick = low
    while tick <= high + step / 2:
        chart.y_ticks.append((y(tick), f"{tick:.0f}"))
        tick += step
    chart.x_ticks = _time_ticks(start, end, x)
    sentences = []
    for i, (label, points, count) in enumerate(drawn):
        path = " ".join(
            f"{'M' if j == 0 else 'L'}{x(p.when)},{y(p.rating)}" for j, p in enumerate(points)
        )
        upper = [f"{x(p.when)},{y(p.high)}" for p in points]
        lower = [f"{x(p.when)},{y(p.low)}" for p in reversed(points)]
        first, last = points[0], points[-1]
        chart.lines.append(
            Line(
                label=label,
                colour=PALETTE[i % len(PALETTE)],
                path=path,
                band="M" + " L".join(upper + lower) + " Z",
                end_x=x(last.when),
                end_y=y(last.rating),
                end=last,
                first=first,
                count=count,
            )
        )
        sentences.append(
            f"{label}: {first.rating:.0f} after its first rated match "
            f"({first.when:%Y-%m-%d}), {last.rating:.0f} "
            f"({last.low:.0f} to {last.high:.0f}) after its latest ({last.when:%Y-%m-%d})"
        )
    chart.summary = f"{subject}: " + "; ".join(sentences) + "."
    return chart


def _time_ticks(
    start: float, end: float, to_x: Callable[[datetime], float]
) -> list[tuple[float, str, str]]:
    """About five time labels between the first and last point: ``(x, anchor, text)``, the
    first label starting at its point and the last ending at it, so neither leaves the chart.
    Hours when the whole history fits in two days, days and hours within three weeks, else
    dates."""
    if end <= start:
        when = datetime.fromtimestamp(start, tz=UTC)
        return [(to_x(when), "middle", when.strftime("%Y-%m-%d %H:%M"))]
    span = end - start
    fmt = "%H:%M" if span < 2 * 86400 else "%d %b %H:%M" if span < 21 * 86400 else "%Y-%m-%d"
    ticks = []
    for i in range(5):
        when = datetime.fromtimestamp(start + span * i / 4, tz=UTC)
        anchor = "start" if i == 0 else "end" if i == 4 else "middle"
        ticks.append((to_x(when), anchor, when.strftime(fmt)))
    return ticks


def sparkline(values: Sequence[float], *, width: int = 72, height: int = 18) -> str:
    """The ``points`` of an SVG polyline through ``values`` (oldest first) scaled into
    ``width`` x ``height`` with a 2-unit margin; "" for fewer than two values."""
    if len(values) < 2:
        return ""
    low, high = min(values), max(values)
    spread = (high - low) or 1.0
    step = (width - 4) / (len(values) - 1)
    return " ".join(
        f"{2 + i * step:.1f},{height - 2 - (v - low) / spread * (height - 4):.1f}"
        for i, v in enumerate(values)
    )


@dataclass
class LlrChart(Frame):
    """The LLR of a version test after each counted pair, between its two bounds: ``path``
    (the LLR line from 0 at pair 0), the bounds' and zero's ``y``, the ticks and a
    ``summary`` for screen readers. Pairs run along x, the LLR up the y axis."""

    path: str
    upper_y: float
    lower_y: float
    zero_y: float
    end_x: float
    end_y: float
    x_ticks: list[tuple[float, str]]
    y_ticks: list[tuple[float, str]]
    summary: str


def llr_chart(
    history: Sequence[float | None],
    lower: float,
    upper: float,
    *,
    width: int = 760,
    height: int = 260,
) -> LlrChart:
    """The chart of an SPRT's LLR over its pairs (``history[i]``: after pair i + 1), with the
    acceptance bounds ``lower`` (H0) and ``upper`` (H1) drawn across it. An LLR that could
    not be computed (None) is left out: the line joins the known ones."""
    frame = Frame.of(width, height)
    left, top, right, bottom = frame[2:]
    known = [(i, v) for i, v in enumerate([0.0, *history]) if v is not None]
    points = thin(known)
    low = min(lower, *(v for _, v in points)) * 1.1
    high = max(upper, *(v for _, v in points)) * 1.1
    pairs = max(len(history), 1)

    def x(i: float) -> float:
        return round(left + i / pairs * (right - left), 1)

    def y(v: float) -> float:
        return round(bottom - (v - low) / (high - low) * (bottom - top), 1)

    path = " ".join(f"{'M' if j == 0 else 'L'}{x(i)},{y(v)}" for j, (i, v) in enumerate(points))
    step = max(1, math.ceil(pairs / 5))
    x_ticks = [(x(i), str(i)) for i in range(0, pairs + 1, step)]
    y_ticks = [(y(v), f"{v:.2f}") for v in (lower, 0.0, upper)]
    last_pair, last = known[-1]
    summary = (
        f"LLR after {last_pair} pair{'s' if last_pair != 1 else ''}: {last:.2f}, "
        f"between the bounds {lower:.2f} (H0 accepted below) and {upper:.2f} "
        f"(H1 accepted above)."
    )
    return LlrChart(
        *frame,
        path=path,
        upper_y=y(upper),
        lower_y=y(lower),
        zero_y=y(0.0),
        end_x=x(last_pair),
        end_y=y(last),
        x_ticks=x_ticks,
        y_ticks=y_ticks,
        summary=summary,
    )
