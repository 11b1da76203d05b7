"""plotly builders of the derivation page (arrays in, ``go.Figure`` out), in the shared look of
:mod:`posenc.figures`. The steps reuse posenc.figures (heatmap, line_chart, vectors_chart,
phasor_chart) where one fits; these are the pictures no other page draws.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from posenc.figures import PALETTE, _layout, heatmap, line_chart

LOG_FLOOR = 1e-18  # exact zeros are drawn here on a log axis


def theta_errors(errors: dict[str, np.ndarray], *, title: str) -> go.Figure:
    """Relative error of θ_i against the exact value, one line per way and precision (log y)."""
    pairs = np.arange(len(next(iter(errors.values()))))
    series = {name: np.maximum(values, LOG_FLOOR) for name, values in errors.items()}
    fig = line_chart(pairs, series, title=title, x_label="pair i", y_label="relative error of θ_i",
                     log_y=True, markers=len(pairs) <= 64)
    return fig


def residual_per_dimension(residual: np.ndarray, *, title: str) -> go.Figure:
    """|residual_j| against dimension j (log y; exact zeros at LOG_FLOOR)."""
    dims = np.arange(len(residual))
    return line_chart(dims, {"|M_k·PE[pos] − PE[pos+k]|": np.maximum(np.abs(residual), LOG_FLOOR)}, title=title,
                      x_label="dimension j", y_label="absolute residual", log_y=True, markers=True, height=340)


def block_diagonal(matrix: np.ndarray, *, title: str) -> go.Figure:
    """M_k (or its top-left corner) as a heatmap with square cells, so 2×2 blocks look square."""
    fig = heatmap(matrix, title=title, x_label="column", y_label="row", thin=False)
    fig.update_yaxes(scaleanchor="x", constrain="domain")
    fig.update_xaxes(constrain="domain")
    fig.update_layout(height=660, margin=dict(l=60, r=20, t=70, b=50))
    return fig


def flat_diagonal(positions: np.ndarray, diagonal: np.ndarray, others: dict[str, np.ndarray], *, k: int,
                  title: str) -> go.Figure:
    """PE[p]·PE[p+k] against p (one flat line per offset): the similarity depends only on k.

    ``others``: label -> values of further offsets, each over the same ``positions`` axis."""
    series = {f"k = {k}": diagonal, **others}
    fig = go.Figure()
    for n, (label, values) in enumerate(series.items()):
        fig.add_trace(go.Scatter(x=positions[:len(values)], y=values, name=label, mode="lines",
                                 line=dict(color=PALETTE[n % len(PALETTE)], width=3 if n == 0 else 2),
                                 hovertemplate=f"{label}<br>p %{{x}}<br>PE[p]·PE[p+k] %{{y:.9g}}<extra></extra>"))
    fig.update_xaxes(title_text="position p")
    fig.update_yaxes(title_text="PE[p] · PE[p+k]")
    return _layout(fig, title, 400)


def similarity_with_diagonal(matrix: np.ndarray, k: int, *, title: str) -> go.Figure:
    """PE·PEᵀ of the first positions (rows p, columns q) with the diagonal q = p + k traced."""
    size = matrix.shape[0]
    fig = go.Figure(go.Heatmap(z=matrix.astype(np.float32), colorscale="RdBu_r", zmid=0, colorbar=dict(thickness=14),
                               hovertemplate="p %{y}<br>q %{x}<br>PE[p]·PE[q] %{z:.6g}<extra></extra>"))
    p = np.arange(max(0, -k), size - max(0, k))
    fig.add_trace(go.Scatter(x=p + k, y=p, mode="lines", name=f"q = p + {k}" if k >= 0 else f"q = p − {-k}",
                             line=dict(color=PALETTE[2], width=3, dash="dot"), hoverinfo="skip"))
    fig.update_xaxes(title_text="position q", range=[-0.5, size - 0.5])
    fig.update_yaxes(title_text="position p", autorange="reversed")
    return _layout(fig, title, 480)


def variation_bars(ranges: np.ndarray, threshold: float, *, title: str) -> go.Figure:
    """max − min of every dimension over the positions in use; the dimensions below ``threshold`` highlighted."""
    dims = np.arange(len(ranges))
    quiet = ranges < threshold
    fig = go.Figure(go.Bar(x=dims, y=ranges, marker_color=np.where(quiet, PALETTE[1], PALETTE[0]).tolist(),
                           hovertemplate="dimension %{x}<br>range %{y:.6g}<extra></extra>", showlegend=False))
    fig.add_hline(y=threshold, line=dict(color=PALETTE[1], dash="dash", width=2),
                  annotation_text=f"barely changes: range < {threshold:g}", annotation_position="top right")
    fig.update_xaxes(title_text="dimension j")
    fig.update_yaxes(title_text="max − min over positions", range=[0, 2.1])
    return _layout(fig, title, 400)


def dropout_scatter(summed: np.ndarray, output: np.ndarray, scale: float, *, title: str) -> go.Figure:
    """Each entry's output against its x + PE: kept entries on y = scale·x, dropped ones on y = 0."""
    x, y = summed.ravel(), output.ravel()
    kept = y != 0
    fig = go.Figure()
    line_x = np.array([x.min(), x.max()])
    fig.add_trace(go.Scatter(x=line_x, y=scale * line_x, mode="lines", name=f"y = {scale:g}·(x + PE)",
                             line=dict(color="#888888", width=2, dash="dash"), hoverinfo="skip"))
    for mask, label, colour in ((kept, "kept (scaled)", PALETTE[0]), (~kept, "dropped (0)", PALETTE[1])):
        fig.add_trace(go.Scatter(x=x[mask], y=y[mask], mode="markers", name=label,
                                 marker=dict(color=colour, size=9, line=dict(width=1, color="white")),
                                 hovertemplate="x + PE %{x:.6g}<br>output %{y:.6g}<extra>" + label + "</extra>"))
    fig.update_xaxes(title_text="x + PE (input plus encoding)")
    fig.update_yaxes(title_text="module output (train mode)")
    return _layout(fig, title, 420)
