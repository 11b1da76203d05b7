"""plotly builders of the derivation page (arrays in, ``go.Figure`` out), in the shared look of
:mod:`posenc.figures.layout`: each built as one dict and validated once. The steps reuse the
heatmaps and charts of the other pages (heatmap, line_chart, vectors_chart, phasor_chart) where one fits;
these are the pictures no other page draws.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from posenc.figures import margins
from posenc.figures.charts import line_chart
from posenc.figures.heatmaps import DIVERGING, heatmap
from posenc.figures.layout import PALETTE, axis, base_layout, figure

LOG_FLOOR = 1e-18  # exact zeros are drawn here on a log axis


def theta_errors(errors: dict[str, np.ndarray], *, title: str) -> go.Figure:
    """Relative error of θ_i against the exact value, one line per way and precision (log y)."""
    pairs = np.arange(len(next(iter(errors.values()))))
    series = {name: np.maximum(values, LOG_FLOOR) for name, values in errors.items()}
    return line_chart(pairs, series, title=title, x_label="pair i", y_label="relative error of θᵢ",
                      log_y=True, markers=len(pairs) <= 64)


def residual_per_dimension(residual: np.ndarray, *, title: str) -> go.Figure:
    """|residual_j| against dimension j (log y; exact zeros at LOG_FLOOR)."""
    dims = np.arange(len(residual))
    return line_chart(dims, {"|M_k·PE[pos] − PE[pos+k]|": np.maximum(np.abs(residual), LOG_FLOOR)}, title=title,
                      x_label="dimension j", y_label="absolute residual", log_y=True, markers=True, height=340)


def block_diagonal(matrix: np.ndarray, *, title: str) -> go.Figure:
    """M_k (or its top-left corner) as a heatmap with square cells, so 2×2 blocks look square.

    The square fills the plot area's shorter side: its height on a wide screen, its width on a phone, where it
    sits at the bottom of the plot area. The colour bar lies across the bottom of the figure, under the square
    whichever side that is (upright at the right, it ran from far above to far below a phone's square)."""
    spec = heatmap(matrix, title=title, x_label="column", y_label="row", thin=False).to_dict()
    spec["layout"]["xaxis"].update(constrain="domain")
    spec["layout"]["yaxis"].update(scaleanchor="x", constrain="domain", constraintoward="bottom")
    spec["data"][0]["colorbar"] = margins.bar_below(spec["data"][0]["colorbar"], 0.6)
    spec["layout"].update(height=560, margin=dict(l=60, r=20, t=70, b=margins.BAR_BELOW))
    return go.Figure(spec)


def flat_diagonal(positions: np.ndarray, diagonal: np.ndarray, others: dict[str, np.ndarray], *, k: int,
                  title: str) -> go.Figure:
    """PE[p]·PE[p+k] against p (one flat line per offset): the similarity depends only on k.

    ``others``: label -> values of further offsets, each over the first positions of ``positions``."""
    series = {f"k = {k}": diagonal, **others}
    data = [dict(type="scatter", x=positions[:len(values)], y=np.asarray(values, dtype=np.float64), name=label,
                 mode="lines", line=dict(color=PALETTE[n % len(PALETTE)], width=3 if n == 0 else 2),
                 hovertemplate=f"{label}<br>p %{{x}}<br>PE[p]·PE[p+k] %{{y:.9g}}<extra></extra>")
            for n, (label, values) in enumerate(series.items())]
    layout = base_layout(title, 400)
    layout.update(xaxis=axis("position p"), yaxis=axis("PE[p] · PE[p+k]"))
    return figure(data, layout)


def similarity_with_diagonal(matrix: np.ndarray, k: int, *, title: str) -> go.Figure:
    """PE·PEᵀ of the first positions (rows p, columns q) with the diagonal q = p + k traced."""
    size = matrix.shape[0]
    p = np.arange(max(0, -k), size - max(0, k))
    data = [dict(type="heatmap", z=matrix.astype(np.float32), colorscale=DIVERGING, zmid=0,
                 colorbar=dict(thickness=14), hovertemplate="p %{y}<br>q %{x}<br>PE[p]·PE[q] %{z:.6g}<extra></extra>"),
            dict(type="scatter", x=p + k, y=p, mode="lines", name=f"q = p + {k}" if k >= 0 else f"q = p − {-k}",
                 line=dict(color=PALETTE[2], width=3, dash="dot"), hoverinfo="skip")]
    layout = base_layout(title, 480)
    layout.update(xaxis=axis("position q", range=[-0.5, size - 0.5]), yaxis=axis("position p", autorange="reversed"))
    return figure(data, layout)


def variation_bars(ranges: np.ndarray, threshold: float, *, title: str) -> go.Figure:
    """max − min of every dimension over the positions in use; the dimensions below ``threshold`` highlighted."""
    dims, quiet = np.arange(len(ranges)), ranges < threshold
    data = [dict(type="bar", x=dims[mask], y=ranges[mask], name=label, marker=dict(color=colour),
                 hovertemplate="dimension %{x}<br>range %{y:.6g}<extra></extra>")
            for mask, label, colour in ((~quiet, "moves with position", PALETTE[0]),
                                        (quiet, "barely changes", PALETTE[1]))]
    layout = base_layout(title, 400)
    layout.update(barmode="overlay", xaxis=axis("dimension j"), yaxis=axis("max − min over positions", range=[0, 2.1]),
                  shapes=[dict(type="line", xref="paper", x0=0, x1=1, y0=threshold, y1=threshold,
                               line=dict(color=PALETTE[1], dash="dash", width=2))],
                  annotations=[dict(text=f"barely changes: range < {threshold:g}", xref="paper", x=1, y=threshold,
                                    xanchor="right", yanchor="bottom", showarrow=False)])
    return figure(data, layout)


def dropout_scatter(summed: np.ndarray, output: np.ndarray, scale: float, *, title: str) -> go.Figure:
    """Each entry's output against its x + PE: kept entries on y = scale·x, dropped ones on y = 0."""
    x, y = summed.ravel(), output.ravel()
    kept = y != 0
    ends = np.array([x.min(), x.max()])
    data = [dict(type="scatter", x=ends, y=scale * ends, mode="lines", name=f"y = {scale:g}·(x + PE)",
                 line=dict(color="#888888", width=2, dash="dash"), hoverinfo="skip")]
    for mask, label, colour in ((kept, "kept (scaled)", PALETTE[0]), (~kept, "dropped (0)", PALETTE[1])):
        data.append(dict(type="scatter", x=x[mask], y=y[mask], mode="markers", name=label,
                         marker=dict(color=colour, size=9, line=dict(width=1, color="white")),
                         hovertemplate="x + PE %{x:.6g}<br>output %{y:.6g}<extra>" + label + "</extra>"))
    layout = base_layout(title, 420)
    layout.update(xaxis=axis("x + PE (input plus encoding)"), yaxis=axis("module output (train mode)"))
    return figure(data, layout)
