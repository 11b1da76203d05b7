"""Animated figures: plotly frames played by plotly's own ▶ Play button and frame slider.

Every frame is in the figure sent once; playing it runs in the browser (plotly.animate) and sends
nothing to the server. A frame carries only the data that moves (the x and y of the traces it
names, and the title), so presenter mode's restyling of the traces holds while it plays. Each
animation starts paused on its first frame; :func:`player` adds the Play / Pause buttons, a speed
control (0.5×, 1×, 2×) and the slider. Arrays in, figures out, as every builder of posenc.figures.

- :func:`clock_animation`: each pair i of a sinusoidal (or rotary) encoding as a clock hand at the
  angle p·θᵢ as the position p advances (Vaswani et al., arXiv:1706.03762; RoFormer, arXiv:2104.09864);
- :func:`rotation_animation`: M_k·PE[pos] against PE[pos+k] as k sweeps;
- :func:`shift_animation`: a query and a key moving along the positions, and the score of each frame.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from posenc.figures.charts import evenly_spread
from posenc.figures.layout import PALETTE, axis, base_layout, scientific

SPEEDS = (0.5, 1.0, 2.0)
"""The speed buttons, as multiples of the animation's own frame duration."""
PLAY, PAUSE = "▶ Play", "❚❚ Pause"
MAX_CLOCK_FRAMES = 200
"""Positions 0…199 at most: a clock shows the turning of consecutive positions (a stride would alias the
fast pairs, which turn by about one radian a position)."""
MAX_CLOCKS = 8
"""Eight pairs, evenly spread over i, so the fastest and the slowest are side by side."""
CLOCK_SPACING, CLOCK_ROW_SPACING = 2.7, 3.0
"""Centre to centre of two clocks (of radius 1) side by side, and of two rows."""
MAX_SWEEP_FRAMES = 100
"""The rotation check's and the score's sweeps: 100 frames at most."""
MAX_SWEEP_DIMENSIONS = 64
"""The rotation check draws at most 64 dimensions (32 pairs, thinned evenly, both members of a pair kept)."""


def _animate_args(name: str | None, duration: float, redraw: bool) -> list:
    """plotly.animate's arguments: one frame by name, or (None) every frame from the current one."""
    options = {"frame": {"duration": duration, "redraw": redraw}, "transition": {"duration": 0},
               "mode": "immediate", "fromcurrent": True}
    return [None if name is None else [name], options]


def player(names: list[str], labels: list[str], *, frame_ms: int, prefix: str, redraw: bool = False,
           below: float = 0.08, slider_below: float = 0.2) -> dict:
    """The layout entries that play ``names`` (the frames, in order): updatemenus[0] holds ▶ Play and
    ❚❚ Pause, updatemenus[1] the speeds (each rewrites Play's frame duration, frame_ms / speed), and one
    slider whose steps show single frames (``labels`` under them, ``prefix`` before the current one).
    ``redraw``: heatmaps need it; scatter frames move without it. ``below`` and ``slider_below``: how far
    under the plot area Play and Pause (left) and the slider (full width; the speeds at its right, beside the
    current frame's label, above its rail) sit, as fractions of its height: two rows, so no button lies on
    another even 390 px wide."""
    play = dict(label=PLAY, method="animate", args=_animate_args(None, frame_ms, redraw))
    pause = dict(label=PAUSE, method="animate",
                 args=[[None], {"frame": {"duration": 0, "redraw": False}, "mode": "immediate",
                                "transition": {"duration": 0}}])
    speeds = [dict(label=f"{speed:g}×", method="relayout",
                   args=[{"updatemenus[0].buttons[0].args[1].frame.duration": frame_ms / speed}])
              for speed in SPEEDS]
    menus = [dict(type="buttons", direction="left", showactive=False, buttons=[play, pause], x=0, xanchor="left",
                  y=-below, yanchor="top", pad=dict(t=0, r=6), name="play"),
             dict(type="buttons", direction="left", showactive=True, active=SPEEDS.index(1.0), buttons=speeds,
                  x=1, xanchor="right", y=-slider_below, yanchor="top", pad=dict(t=0, r=0), name="speed")]
    steps = [dict(method="animate", label=label, args=_animate_args(name, 0, redraw))
             for name, label in zip(names, labels)]
    slider = dict(active=0, steps=steps, x=0, len=1, xanchor="left", y=-slider_below, yanchor="top",
                  pad=dict(t=10, b=0), currentvalue=dict(prefix=prefix, visible=True, xanchor="left", offset=26),
                  transition=dict(duration=0))
    return dict(updatemenus=menus, sliders=[slider])


def animated(data: list[dict], layout: dict, frames: list[dict], *, labels: list[str], frame_ms: int, prefix: str,
             redraw: bool = False, axis_room: int = 0) -> go.Figure:
    """The figure of ``data`` (its first frame), ``frames`` (each a dict of name, data, traces, layout) and
    the player, placed ``axis_room`` pixels under the plot area (room for the x axis's ticks and title):
    one validation of the whole."""
    margin = dict(layout.get("margin", {}))
    margin["b"] = axis_room + 170
    plot_height = layout["height"] - margin.get("t", 70) - margin["b"]
    layout = dict(layout, margin=margin, **player([f["name"] for f in frames], labels, frame_ms=frame_ms,
                                                  prefix=prefix, redraw=redraw, below=(axis_room + 10) / plot_height,
                                                  slider_below=(axis_room + 52) / plot_height))
    spec = go.Figure(dict(data=data, layout=layout)).to_dict()  # the data and layout validated once
    # Hundreds of frames of the same few traces: plotly's validation of each would cost ~0.3 s per figure.
    # The tests validate every frame of every animation (go.Figure(figure.to_dict())).
    return go.Figure(dict(spec, frames=frames), _validate=False)


def frame_bytes(fig: go.Figure) -> int:
    """The bytes of a figure's frames as plotly serializes them for the browser (JSON, arrays in base64)."""
    return len(fig.to_json().encode()) - len(go.Figure(dict(data=fig.data, layout=fig.layout)).to_json().encode())


def clock_pairs(pairs: int, shown: int = MAX_CLOCKS) -> np.ndarray:
    """At most ``shown`` pair indices, evenly spread over 0 … pairs−1, the first and the last included:
    θᵢ is geometric in i, so they run from the fastest pair to the slowest."""
    return evenly_spread(pairs, shown)


def clock_animation(positions: np.ndarray, pairs: np.ndarray, cosines: np.ndarray, sines: np.ndarray,
                    thetas: np.ndarray, *, title: str, per_row: int = 2, frame_ms: int = 120) -> go.Figure:
    """One clock per pair i: the hand (cos pθᵢ, sin pθᵢ) at the angle p·θᵢ from the x axis, one frame per
    position p of ``positions``.

    ``cosines`` and ``sines`` are (positions, pairs) arrays (the encoding's own values, so the hand is
    the pair as the model sees it); ``thetas`` the angle per position of each pair, shown above its clock
    with its period 2π/θᵢ. The clocks share one pair of axes (centres CLOCK_SPACING apart), so a frame is
    one trace (the hands, a marker at each tip), whatever the number of pairs. Two clocks a row: a phone's
    358 px hold two labels side by side, not four."""
    count = len(pairs)
    rows = -(-count // per_row)
    centres = np.array([[CLOCK_SPACING * (n % per_row), -CLOCK_ROW_SPACING * (n // per_row)] for n in range(count)])

    def hands(f: int) -> dict:  # centre to tip of each hand, NaN between hands (a gap); float32 is ample
        x = np.stack([centres[:, 0], centres[:, 0] + cosines[f], np.full(count, np.nan)], axis=1).ravel()
        y = np.stack([centres[:, 1], centres[:, 1] + sines[f], np.full(count, np.nan)], axis=1).ravel()
        return dict(x=x.astype(np.float32), y=y.astype(np.float32))

    colours = [PALETTE[n % len(PALETTE)] for n in range(count)]
    data = [dict(type="scatter", mode="lines+markers", name="hands", line=dict(color="#80858f", width=3),  # light and dark themes
                 marker=dict(color=[c for c in colours for _ in range(3)], size=[0, 13, 0] * count),
                 customdata=np.repeat(pairs, 3), hovertemplate="pair %{customdata}<extra></extra>", **hands(0))]
    layout = base_layout(title, 200 * rows + 230)
    layout["showlegend"] = False
    hidden = dict(showticklabels=False, showgrid=False, zeroline=False, showline=False, ticks="")
    layout["xaxis"] = axis(None, range=[-1.3, CLOCK_SPACING * (min(per_row, count) - 1) + 1.3], **hidden)
    layout["yaxis"] = axis(None, range=[-CLOCK_ROW_SPACING * (rows - 1) - 1.2, 1.75], scaleanchor="x", **hidden)
    shapes, notes = [], []
    for (cx, cy), i, theta in zip(centres, pairs, thetas):
        shapes.append(dict(type="circle", xref="x", yref="y", x0=cx - 1, y0=cy - 1, x1=cx + 1, y1=cy + 1,
                           line=dict(color="#bbbbbb"), layer="below"))
        shapes.append(dict(type="line", xref="x", yref="y", x0=cx, y0=cy, x1=cx + 1.12, y1=cy,
                           line=dict(color="#dddddd", width=1), layer="below"))  # angle 0
        turn = (f"turn: {2 * np.pi / theta:,.{0 if theta < 2 * np.pi / 100 else 1}f} pos." if theta > 0
                else "never turns")
        notes.append(dict(text=f"<b>i = {i}</b> · θ = {scientific(theta, 3)}<br>{turn}", x=float(cx), y=float(cy) + 1.1,
                          xref="x", yref="y", yanchor="bottom", showarrow=False, font=dict(size=13)))
    layout["shapes"], layout["annotations"] = shapes, notes
    layout["margin"] = dict(l=20, r=20, t=60)
    frames = [dict(name=str(int(p)), traces=[0], data=[hands(f)]) for f, p in enumerate(positions)]
    return animated(data, layout, frames, labels=[str(int(p)) for p in positions], frame_ms=frame_ms,
                    prefix="position p = ")


def rotation_animation(dimensions: np.ndarray, start: np.ndarray, offsets: np.ndarray, rotated: np.ndarray,
                       targets: np.ndarray, *, pos: int, dimension_note: str = "", frame_ms: int = 250) -> go.Figure:
    """PE[pos] (grey, still), M_k·PE[pos] (crosses) and PE[pos+k] (circles) over ``dimensions``, one frame
    per k of ``offsets``; ``rotated`` and ``targets`` are (offsets, dimensions). Each frame's title gives
    max |M_k·PE[pos] − PE[pos+k]| of the dimensions drawn."""

    def title(k: int, residual: float) -> str:
        return f"PE[{pos}] rotated by M_k, k = {k}: lands on PE[{pos + k}] (max gap {scientific(residual)})"

    residuals = np.abs(rotated - targets).max(axis=1)
    x = np.arange(len(dimensions))  # evenly spaced even when thinned; the ticks name the true dimensions
    data = [dict(type="scatter", x=x, y=np.asarray(start, float), name=f"PE[{pos}] (start)", mode="markers",
                 marker=dict(color="#9aa0aa", size=6, symbol="square-open")),
            dict(type="scatter", x=x, y=np.asarray(targets[0], float), name="PE[pos+k]", mode="markers",
                 marker=dict(color=PALETTE[0], size=13, symbol="circle-open", line=dict(width=2.5, color=PALETTE[0]))),
            dict(type="scatter", x=x, y=np.asarray(rotated[0], float), name="M_k·PE[pos]", mode="markers",
                 marker=dict(color=PALETTE[1], size=9, symbol="x-thin-open", line=dict(width=2.5, color=PALETTE[1])))]
    layout = base_layout(title(int(offsets[0]), float(residuals[0])), 520)
    step = max(len(x) // 16, 1)
    layout["xaxis"] = axis("dimension" + (f" ({dimension_note})" if dimension_note else ""),
                           tickvals=x[::step].tolist(), ticktext=[str(int(d)) for d in dimensions[::step]])
    layout["yaxis"] = axis("value", range=[-1.12, 1.12])
    frames = [dict(name=str(int(k)), traces=[1, 2],
                   data=[dict(y=np.asarray(targets[f], float)), dict(y=np.asarray(rotated[f], float))],
                   layout=dict(title=dict(text=title(int(k), float(residuals[f])))))
              for f, k in enumerate(offsets)]
    return animated(data, layout, frames, labels=[str(int(k)) for k in offsets], frame_ms=frame_ms, prefix="k = ",
                    axis_room=60)


def shift_animation(query_positions: np.ndarray, key_positions: np.ndarray, scores: np.ndarray, *, length: int,
                    title: str, score_range: tuple[float, float] | None = None, frame_ms: int = 200) -> go.Figure:
    """Top: the positions 0 … length−1 with the query (at query_positions[f]) and the key (at
    key_positions[f]); bottom: the score of every frame, the current one marked. One frame per entry.
    ``score_range``: the score axis's range (shared by two animations, so a constant score looks flat)."""
    steps = np.arange(len(scores))
    layout = base_layout(title, 640)  # room between the two panels for presenter mode's larger axis text
    layout["legend"] = dict(orientation="h", yanchor="bottom", y=1.0, xanchor="right", x=1)
    layout["xaxis"] = axis("position", range=[-0.5, length - 0.5], domain=[0, 1], anchor="y")
    layout["yaxis"] = axis(None, range=[-1, 1], domain=[0.74, 1], anchor="x", showticklabels=False, showgrid=False,
                           zeroline=False)
    layout["margin"] = dict(l=70, r=30, t=110)
    layout["xaxis2"] = axis("frame (shift s)", domain=[0, 1], anchor="y2", range=[-0.5, len(scores) - 0.5])
    layout["yaxis2"] = axis("score q·k after rotation", domain=[0, 0.5], anchor="x2",
                            **({"range": list(score_range)} if score_range is not None else {}))

    def markers(f: int) -> list[dict]:
        return [dict(x=[float(query_positions[f])], y=[0.4]), dict(x=[float(key_positions[f])], y=[-0.4]),
                dict(x=[int(f)], y=[float(scores[f])])]

    def heading(f: int) -> str:
        return (f"{title}<br><sub>query at m = {int(query_positions[f])}, key at n = {int(key_positions[f])}: "
                f"score {scores[f]:.12g}</sub>")

    layout["title"]["text"] = heading(0)
    first = markers(0)
    data = [dict(type="scatter", mode="markers+text", name="query", text=["q"], textposition="middle right",
                 marker=dict(color=PALETTE[0], size=16, symbol="triangle-down"), **first[0]),
            dict(type="scatter", mode="markers+text", name="key", text=["k"], textposition="middle right",
                 marker=dict(color=PALETTE[1], size=16, symbol="triangle-up"), **first[1]),
            dict(type="scatter", mode="markers", name="this frame's score", xaxis="x2", yaxis="y2",
                 marker=dict(color=PALETTE[2], size=14, symbol="circle"), **first[2]),
            dict(type="scatter", mode="lines", name="score of every frame", x=steps, y=np.asarray(scores, float),
                 xaxis="x2", yaxis="y2", line=dict(color="#9aa0aa", width=2))]
    frames = [dict(name=str(f), traces=[0, 1, 2], data=markers(f), layout=dict(title=dict(text=heading(f))))
              for f in steps]
    return animated(data, layout, frames, labels=[str(int(s)) for s in steps], frame_ms=frame_ms, prefix="s = ",
                    axis_room=55)
