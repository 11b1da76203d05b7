"""Maps with square cells (Derivation's M_k, RoPE's 2-D patch scores): what they keep at any width. A square fills
its plot area's shorter side, the width on a phone, so the colour bar lies across the bottom of the figure rather
than upright beside a plot area far taller than the map (tests/helpers/view_checks.py measures that in Chromium at
every size: stray_colour_bars), and the patch maps hang under their titles."""

import numpy as np
import pytest

import posenc
from posenc.figures.derivation import block_diagonal
from posenc.figures.patches import patch_scores_figure


def _ticks(axis: dict, count: int) -> list[float]:
    assert axis["tickmode"] == "linear" and axis["tick0"] == 0
    return list(np.arange(0, count, axis["dtick"]))


def test_the_rotation_matrix_keeps_its_colour_bar_under_it():
    layout_and_data = block_diagonal(posenc.rotation_matrix(3, 64)[:32, :32], title="M₃").to_dict()
    bar, layout = layout_and_data["data"][0]["colorbar"], layout_and_data["layout"]
    assert bar["orientation"] == "h" and bar["yref"] == "container" and bar["y"] == 0
    assert bar["tickvals"]  # the heatmap's own ticks kept
    assert layout["yaxis"]["scaleanchor"] == "x" and layout["yaxis"]["constraintoward"] == "bottom"
    assert layout["margin"]["b"] >= 100  # the x axis's ticks and title, then the bar


@pytest.mark.parametrize("height, width", [(1, 1), (4, 6), (7, 13), (32, 32), (3, 32)])
def test_patch_maps_hang_under_their_titles_on_whole_patches(height, width):
    scores = np.linspace(0.0, 1.0, height * width).reshape(height, width)
    spec = patch_scores_figure({"query patch (0, 0)": (scores, (0, 0)), "moved": (scores[::-1], (0, 0))},
                               value_label="q·k / d", title="scores").to_dict()
    layout = spec["layout"]
    shown = [trace for trace in spec["data"] if trace["type"] == "heatmap" and trace.get("showscale")]
    assert len(shown) == 1 and shown[0]["colorbar"]["orientation"] == "h"
    for name in ("yaxis", "yaxis2"):
        assert layout[name]["constraintoward"] == "top" and layout[name]["scaleanchor"]
    for axis, count in ((layout["yaxis"], height), (layout["xaxis"], width), (layout["xaxis2"], width)):
        ticks = _ticks(axis, count)
        assert ticks[0] == 0 and all(float(t).is_integer() for t in ticks) and 1 <= len(ticks) <= 6
