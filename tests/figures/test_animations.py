"""The animations' frames hold the numbers they show: clock angles p·θᵢ, M_k·PE[pos] on PE[pos+k], RoPE's
score unchanged when query and key move together; frames and bytes capped; the player's buttons."""

import numpy as np
import plotly.graph_objects as go
import pytest

import posenc
from plotly_data import decode
from posenc.figures import animations
from posenc.ui import cached_figures, motion

ROPE_DEFAULTS = tuple(posenc.get_scheme("rope").defaults().items())


def hand_angles(fig: go.Figure, frame: int) -> np.ndarray:
    """The angle of every clock hand in one frame, in [0, 2π), read from the sent coordinates."""
    data = fig.to_plotly_json()["frames"][frame]["data"][0]
    x, y = decode(data["x"]).astype(float), decode(data["y"]).astype(float)
    dx, dy = x[1::3] - x[0::3], y[1::3] - y[0::3]  # centre, tip, gap for each hand
    return np.mod(np.arctan2(dy, dx), 2 * np.pi)


def circular_gap(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.abs(np.angle(np.exp(1j * (np.asarray(a) - np.asarray(b)))))


def test_clock_pairs_run_from_the_fastest_to_the_slowest():
    assert animations.clock_pairs(64).tolist() == [0, 9, 18, 27, 36, 45, 54, 63]
    assert animations.clock_pairs(3).tolist() == [0, 1, 2]
    assert animations.clock_pairs(1).tolist() == [0]


def test_sinusoidal_clock_hand_i_is_at_p_theta_i_known_values():
    fig = cached_figures.clock_figure(128, 10000.0, "vaswani", 100)
    assert len(fig.frames) == 100 and [f.name for f in fig.frames[:3]] == ["0", "1", "2"]
    theta_9 = 0.27384196342643613  # 10000^(−18/128)
    assert posenc.frequencies(128, 10000.0)[9] == pytest.approx(theta_9, rel=1e-15)
    angles = hand_angles(fig, 3)
    assert angles[0] == pytest.approx(3.0, abs=1e-6)  # pair 0: θ₀ = 1 rad per position
    assert angles[1] == pytest.approx(3 * theta_9, abs=1e-6)
    assert hand_angles(fig, 0) == pytest.approx(np.zeros(8), abs=1e-6)  # every hand starts at angle 0
    thetas = posenc.frequencies(128, 10000.0)[animations.clock_pairs(64)]
    for p in (1, 7, 50, 99):  # p·θᵢ mod 2π for every pair (float32 coordinates: 1e-6)
        assert circular_gap(hand_angles(fig, p), p * thetas).max() < 2e-6
    assert "i = 63" in fig.layout.annotations[-1].text and "54,410 pos." in fig.layout.annotations[-1].text


def test_clocks_stop_at_the_length_and_at_200_positions():
    assert len(cached_figures.clock_figure(16, 100.0, "tensor2tensor", 12).frames) == 12
    fig = cached_figures.clock_figure(1024, 10000.0, "vaswani", 4096)
    assert len(fig.frames) == animations.MAX_CLOCK_FRAMES == 200
    thetas = posenc.frequencies(1024, 10000.0, spacing="vaswani")[animations.clock_pairs(512)]
    assert circular_gap(hand_angles(fig, 199), 199 * thetas).max() < 2e-5


@pytest.mark.parametrize("options", [ROPE_DEFAULTS, tuple(dict(ROPE_DEFAULTS, layout="half").items()),
                                     tuple(dict(ROPE_DEFAULTS, rope_type="yarn", factor=8.0).items())])
def test_rope_clock_hands_turn_by_the_scaled_frequencies(options):
    from posenc.schemes.rope.entry import rope_keywords

    keywords = {k: v for k, v in rope_keywords(dict(options)).items() if k != "layout"}
    inv_freq, _ = posenc.rope_inv_freq(64, 10000.0, seq_len=300, **keywords)
    fig = cached_figures.rope_clock_figure(64, 10000.0, options, 300)
    pairs = animations.clock_pairs(len(inv_freq))
    for p in (0, 5, 199):
        assert circular_gap(hand_angles(fig, p), p * inv_freq[pairs]).max() < 2e-5
    data = fig.to_plotly_json()["frames"][5]["data"][0]
    x, y = decode(data["x"]).astype(float), decode(data["y"]).astype(float)
    np.testing.assert_allclose(np.hypot(x[1::3] - x[0::3], y[1::3] - y[0::3]), 1.0, atol=1e-6)  # YaRN's s divided out


@pytest.mark.parametrize("d_model, base, spacing, pos, length", [(128, 10000.0, "vaswani", 3, 100),
                                                                  (1024, 10000.0, "vaswani", 0, 4096),
                                                                  (34, 7.5, "tensor2tensor", 40, 60)])
def test_every_rotation_frame_lands_on_the_table_row(d_model, base, spacing, pos, length):
    fig = cached_figures.rotation_sweep_figure(d_model, base, spacing, pos, length)
    table = posenc.sinusoidal(length, d_model, base, spacing=spacing)
    dims = posenc.figures.heatmaps.thin_index(d_model, animations.MAX_SWEEP_DIMENSIONS, group=2)
    offsets = [int(f.name) for f in fig.frames]
    assert offsets == list(range(min(length - pos, animations.MAX_SWEEP_FRAMES)))
    np.testing.assert_array_equal(decode(fig.to_plotly_json()["data"][0]["y"]), table[pos, dims])  # the start
    for frame, k in zip(fig.to_plotly_json()["frames"], offsets):
        target, rotated = (decode(d["y"]) for d in frame["data"])
        np.testing.assert_array_equal(target, table[pos + k, dims])  # read from the table
        np.testing.assert_allclose(rotated, table[pos + k, dims], rtol=0, atol=1e-12)  # M_k·PE[pos]
        if d_model <= 128:  # the dense M_k too
            np.testing.assert_allclose(rotated, (posenc.rotation_matrix(k, d_model, base, spacing=spacing)
                                                 @ table[pos])[dims], rtol=0, atol=1e-12)
        assert frame["layout"]["title"]["text"].startswith(f"PE[{pos}] rotated by M_k, k = {k}: lands on PE[{pos + k}]")
    assert len(dims) <= 64 and (d_model <= 64 or "every" in fig.layout.xaxis.title.text)


def test_rope_score_is_constant_moving_together_and_changes_moving_apart():
    figures = cached_figures.rope_relative_figures(64, 10000.0, ROPE_DEFAULTS, 200, 3, 11)
    (together, same), (apart, moved) = figures["together"], figures["apart"]
    assert len(same) == len(moved) == 100 and len(together.frames) == 100
    rng = np.random.default_rng(0)
    q, k = rng.normal(size=64), rng.normal(size=64)
    before = posenc.rope_scores(q, k, [3], [11], 10000.0, seq_len=200)[0, 0]
    assert np.abs(same - before).max() < 1e-9  # score(m + s, n + s) = score(m, n)
    assert moved[0] == pytest.approx(before, abs=1e-12)
    assert np.ptp(moved) > 1.0  # the key alone moved: the offset, and the score, change
    for s in (1, 37, 99):
        assert moved[s] == pytest.approx(posenc.rope_scores(q, k, [3], [11 + s], 10000.0, seq_len=200)[0, 0],
                                         abs=1e-9)
        frame = together.to_plotly_json()["frames"][s]
        assert decode(frame["data"][0]["x"]).tolist() == [3 + s] and decode(frame["data"][1]["x"]).tolist() == [11 + s]
        assert decode(apart.to_plotly_json()["frames"][s]["data"][0]["x"]).tolist() == [3]
    assert together.layout.yaxis2.range == apart.layout.yaxis2.range  # one scale: the flat line looks flat


def test_rope_score_with_a_scaling_is_constant_too():
    options = tuple(dict(ROPE_DEFAULTS, rope_type="dynamic", factor=4.0, original_max_position_embeddings=64).items())
    _, same = cached_figures.rope_relative_figures(32, 500.0, options, 300, 0, 7)["together"]
    assert np.ptp(same) < 1e-9


def test_the_player_plays_pauses_changes_speed_and_starts_paused():
    fig = cached_figures.clock_figure(32, 10000.0, "vaswani", 50)
    play, pause = fig.layout.updatemenus[0].buttons
    assert (play.label, pause.label) == (animations.PLAY, animations.PAUSE) == ("▶ Play", "❚❚ Pause")
    assert play.method == "animate" and play.args[0] is None and play.args[1]["frame"]["duration"] == 120
    speeds = fig.layout.updatemenus[1].buttons
    assert [b.label for b in speeds] == ["0.5×", "1×", "2×"] and fig.layout.updatemenus[1].active == 1
    assert [b.args[0]["updatemenus[0].buttons[0].args[1].frame.duration"] for b in speeds] == [240, 120, 60]
    slider = fig.layout.sliders[0]
    assert slider.active == 0 and len(slider.steps) == 50
    assert list(slider.steps[7].args[0]) == ["7"] and slider.steps[7].args[1]["transition"]["duration"] == 0
    assert "prefers-reduced-motion: reduce" in motion.REDUCED_MOTION_CSS


@pytest.mark.parametrize("build", [
    lambda: cached_figures.clock_figure(1024, 10000.0, "vaswani", 4096),
    lambda: cached_figures.rope_clock_figure(1024, 10000.0, ROPE_DEFAULTS, 4096),
    lambda: cached_figures.rotation_sweep_figure(1024, 10000.0, "vaswani", 0, 4096),
    lambda: cached_figures.rope_relative_figures(1024, 10000.0, ROPE_DEFAULTS, 4096, 0, 10)["apart"][0],
], ids=["clocks", "rope_clocks", "rotation", "rope_relative"])
def test_frames_at_the_caps_are_bounded_valid_and_move_only_data(build):
    fig = build()
    assert len(fig.frames) <= 200
    assert animations.frame_bytes(fig) < 250_000  # measured at d_model 1024, length 4096: 91, 91, 202, 37 KB
    go.Figure(fig.to_dict())  # every frame validates (the builder skips plotly's validation of each)
    for frame in fig.to_plotly_json()["frames"]:
        assert all(set(trace) <= {"x", "y", "type"} for trace in frame["data"])  # styles stay the figure's
