"""2-D RoPE and M-RoPE (Qwen2-VL, arXiv:2409.12191): equal to Hugging Face transformers 5.23.0, the ids of a
sequence with an image, text tokens as 1-D RoPE, scores that see only the offset, and the refusals."""

from __future__ import annotations

import types

import numpy as np
import pytest
import torch

import posenc
from posenc.schemes.rope.multimodal import (
    QWEN2_VL_SECTION,
    mrope_patch_scores,
    mrope_position_ids,
    rope_2d_inv_freq,
    rope_2d_patch_scores,
    scaled_mrope_section,
)

RNG = np.random.default_rng(2409_12191)


# --- the reference: transformers/models/qwen2_vl/modeling_qwen2_vl.py (Apache-2.0), version 5.23.0 -----------

def qwen2_vl():
    """(modeling module, configuration module, vision_utils) of transformers; the tests skip without it."""
    transformers = pytest.importorskip("transformers")
    transformers.logging.set_verbosity_error()
    modeling = pytest.importorskip("transformers.models.qwen2_vl.modeling_qwen2_vl")
    configuration = pytest.importorskip("transformers.models.qwen2_vl.configuration_qwen2_vl")
    vision_utils = pytest.importorskip("transformers.vision_utils")
    return modeling, configuration, vision_utils


def vision_reference(x: np.ndarray, grid_thw: tuple[int, int, int], merge: int, base: float) -> tuple:
    """(rotated x, rows, cols) as Qwen2-VL's vision encoder rotates x of shape (tokens, heads, d): its
    position ids (``get_vision_position_ids``, 2 × 2 merge blocks), ``Qwen2VLVisionRotaryEmbedding``
    and ``apply_rotary_pos_emb_vision`` (float32, as transformers computes them)."""
    modeling, configuration, vision_utils = qwen2_vl()
    heads, d = x.shape[1:]
    config = configuration.Qwen2VLVisionConfig(embed_dim=heads * d, num_heads=heads,
                                               rope_parameters={"rope_type": "axial", "rope_theta": base})
    rotary = modeling.Qwen2VLVisionRotaryEmbedding(config)
    position_ids = vision_utils.get_vision_position_ids(torch.tensor([grid_thw]), merge)  # (tokens, 2): row, col
    cos, sin = rotary(torch.zeros(1), position_ids)
    rotated, _ = modeling.apply_rotary_pos_emb_vision(torch.tensor(x), torch.tensor(x), cos, sin)
    return rotated.double().numpy(), position_ids[:, 0].numpy(), position_ids[:, 1].numpy()


def text_rotary(d: int, base: float, section) -> object:
    """``Qwen2VLRotaryEmbedding`` of a language model with heads of d dimensions."""
    modeling, configuration, _ = qwen2_vl()
    config = configuration.Qwen2VLTextConfig(
        hidden_size=2 * d, num_attention_heads=2,
        rope_parameters={"rope_type": "default", "rope_theta": base, "mrope_section": list(section)})
    return modeling.Qwen2VLRotaryEmbedding(config)


def get_rope_index(segments: list[tuple[str, int | tuple[int, int, int]]], merge: int) -> np.ndarray:
    """``Qwen2VLModel.get_rope_index`` for one sequence of ("text", n), ("image", (1, H, W)) or ("video",
    (T, H, W)) segments, H and W in encoder patches; called on a stand-in holding the config it reads (the
    method needs no weights). Returns the (3, length) ids."""
    modeling, _, _ = qwen2_vl()
    types_, images, videos = [], [], []
    for kind, size in segments:
        if kind == "text":
            types_ += [0] * size
        else:
            (images if kind == "image" else videos).append(size)
            types_ += [1 if kind == "image" else 2] * (size[0] * size[1] * size[2] // merge**2)
    model = types.SimpleNamespace(config=types.SimpleNamespace(vision_config=types.SimpleNamespace(
        spatial_merge_size=merge)))
    model.get_vision_position_ids = lambda *args, **kwargs: modeling.Qwen2VLModel.get_vision_position_ids(
        model, *args, **kwargs)
    ids, _ = modeling.Qwen2VLModel.get_rope_index(
        model, torch.zeros(1, len(types_), dtype=torch.long), torch.tensor([types_]),
        image_grid_thw=torch.tensor(images) if images else None,
        video_grid_thw=torch.tensor(videos) if videos else None)
    return ids[:, 0].numpy()


# --- 2-D RoPE ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("d", [4, 16, 32, 80, 128])
@pytest.mark.parametrize("base", [100.0, 10000.0, 1e6])
def test_2d_frequencies_are_qwen2_vl_vision_frequencies(d, base):
    modeling, configuration, _ = qwen2_vl()
    config = configuration.Qwen2VLVisionConfig(embed_dim=d, num_heads=1,
                                               rope_parameters={"rope_type": "axial", "rope_theta": base})
    reference = modeling.Qwen2VLVisionRotaryEmbedding(config).inv_freq.double().numpy()
    np.testing.assert_allclose(rope_2d_inv_freq(d, base), reference, rtol=2e-6)
    np.testing.assert_allclose(rope_2d_inv_freq(d, base), base ** (-4 * np.arange(d // 4) / d), rtol=1e-15)


GRIDS = [((1, 2, 2), 1), ((1, 4, 6), 2), ((2, 6, 4), 2), ((1, 3, 5), 1), ((3, 8, 8), 2), ((1, 16, 2), 2)]


@pytest.mark.parametrize(("grid_thw", "merge"), GRIDS)
@pytest.mark.parametrize(("d", "base"), [(16, 10000.0), (32, 10000.0), (80, 10000.0), (64, 100.0)])
def test_apply_rope_2d_equals_qwen2_vl_vision_encoder(grid_thw, merge, d, base):
    tokens = grid_thw[0] * grid_thw[1] * grid_thw[2]
    x = RNG.normal(size=(tokens, 3, d))  # (tokens, heads, d), as the vision attention holds q and k
    reference, rows, cols = vision_reference(x, grid_thw, merge, base)
    ours = posenc.apply_rope_2d(x.transpose(1, 0, 2), rows, cols, base).transpose(1, 0, 2)  # (heads, tokens, d)
    np.testing.assert_allclose(ours, reference, atol=2e-5)  # transformers rotates in float32


@pytest.mark.parametrize("d", [8, 32, 64])
def test_apply_rope_2d_lays_out_cos_and_sin_as_qwen2_vl_in_float64(d):
    """The same computation with transformers' own recomposition and rotate_half, fed float64 angles: equal to
    rounding, so the float32 tolerance above hides no permutation of the pairs."""
    modeling, configuration, vision_utils = qwen2_vl()
    config = configuration.Qwen2VLVisionConfig(embed_dim=d, num_heads=1)
    rotary = modeling.Qwen2VLVisionRotaryEmbedding(config)
    position_ids = vision_utils.get_vision_position_ids(torch.tensor([[1, 10, 14]]), 2).double()
    freqs = position_ids[..., None] * torch.tensor(rope_2d_inv_freq(d))  # (tokens, 2, d/4), float64
    cos, sin = rotary.recomposition_frequencies(freqs.cos()), rotary.recomposition_frequencies(freqs.sin())
    x = torch.tensor(RNG.normal(size=(len(position_ids), d)))
    reference = (x * cos + modeling.rotate_half(x) * sin).numpy()
    ours = posenc.apply_rope_2d(x.numpy(), position_ids[:, 0].numpy(), position_ids[:, 1].numpy())
    np.testing.assert_allclose(ours, reference, rtol=0, atol=1e-14)


def test_apply_rope_2d_turns_the_first_quarter_of_pairs_by_the_row_and_the_second_by_the_column():
    d, theta = 16, 10000.0 ** (-4 * np.arange(4) / 16)
    x = np.zeros((2, d))
    x[:, 1], x[:, 5] = 1.0, 1.0  # pair 1 (dims 1, 9) reads the row, pair 5 (dims 5, 13) the column
    out = posenc.apply_rope_2d(x, [3, 0], [0, 7])
    np.testing.assert_allclose(out[0, [1, 9, 5, 13]], [np.cos(3 * theta[1]), np.sin(3 * theta[1]), 1.0, 0.0],
                               atol=1e-15)
    np.testing.assert_allclose(out[1, [1, 9, 5, 13]], [1.0, 0.0, np.cos(7 * theta[1]), np.sin(7 * theta[1])],
                               atol=1e-15)


def test_apply_rope_2d_keeps_norms_dtypes_and_leading_axes():
    x = RNG.normal(size=(2, 5, 24))
    rows, cols = np.array([0, 1, 2, 3, 40]), np.array([9, 8, 7, 6, 0])
    out = posenc.apply_rope_2d(x, rows, cols)
    np.testing.assert_allclose(np.linalg.norm(out, axis=-1), np.linalg.norm(x, axis=-1), rtol=1e-14)
    np.testing.assert_allclose(out[1], posenc.apply_rope_2d(x[1], rows, cols), rtol=0, atol=0)
    assert posenc.apply_rope_2d(x.astype(np.float32), rows, cols).dtype == np.float32
    assert posenc.apply_rope_2d(np.ones((5, 8), dtype=int), rows, cols).dtype == np.float64
    np.testing.assert_array_equal(posenc.apply_rope_2d(x, np.zeros(5), np.zeros(5)), x)  # (0, 0): no turn


def test_2d_scores_depend_on_the_2d_offset_only_and_follow_the_closed_form():
    height, width, d, base = 7, 9, 32, 10000.0
    theta = base ** (-4 * np.arange(d // 4) / d)
    first = rope_2d_patch_scores(height, width, 2, 3, d, base)
    moved = rope_2d_patch_scores(height, width, 5, 7, d, base)  # the query moved by (3, 4)
    np.testing.assert_allclose(moved[3:, 4:], first[:-3, :-4], rtol=0, atol=1e-13)
    dr, dc = np.arange(height)[:, None] - 2, np.arange(width)[None, :] - 3
    closed = 2 / d * (np.cos(dr[..., None] * theta).sum(-1) + np.cos(dc[..., None] * theta).sum(-1))
    np.testing.assert_allclose(first, closed, rtol=0, atol=1e-13)
    assert first[2, 3] == pytest.approx(1.0, abs=1e-15)  # the query against itself: ‖1‖²/d


# --- M-RoPE --------------------------------------------------------------------------------------------------

MROPE_CASES = [(128, QWEN2_VL_SECTION, 10000.0), (64, (8, 12, 12), 10000.0), (32, (4, 6, 6), 1e6),
               (16, (2, 3, 3), 100.0), (24, (0, 6, 6), 10000.0)]


@pytest.mark.parametrize(("d", "section", "base"), MROPE_CASES)
@pytest.mark.parametrize(("before", "frames", "height", "width", "after"), [(3, 1, 4, 5, 2), (0, 2, 3, 3, 4),
                                                                            (5, 1, 1, 7, 0)])
def test_apply_mrope_equals_qwen2_vl_rotary_embedding(d, section, base, before, frames, height, width, after):
    ids = mrope_position_ids(before, height, width, after, frames)
    rotary = text_rotary(d, base, section)
    x = RNG.normal(size=(1, 2, ids.shape[1], d))  # (batch, heads, tokens, d)
    cos, sin = rotary(torch.tensor(x), torch.tensor(ids)[:, None, :])  # position ids (3, batch, tokens)
    reference = rotary_apply(x, cos, sin)
    np.testing.assert_allclose(posenc.apply_mrope(x, ids, base, section), reference, atol=3e-5)  # float32 there


def rotary_apply(x: np.ndarray, cos, sin) -> np.ndarray:
    """transformers' ``apply_rotary_pos_emb`` (the Llama one Qwen2-VL's attention calls) on x as q."""
    modeling, _, _ = qwen2_vl()
    rotated, _ = modeling.apply_rotary_pos_emb(torch.tensor(x), torch.tensor(x), cos, sin)
    return rotated.double().numpy()


@pytest.mark.parametrize(("d", "section", "base"), MROPE_CASES)
def test_apply_mrope_lays_out_the_bands_as_qwen2_vl_in_float64(d, section, base):
    """transformers' own band recomposition and rotate_half on float64 angles: equal to rounding."""
    modeling, _, _ = qwen2_vl()
    rotary = text_rotary(d, base, section)
    ids = mrope_position_ids(2, 3, 4, 2, frames=2)
    freqs = torch.tensor(ids, dtype=torch.float64)[..., None] * torch.tensor(base ** (-np.arange(0, d, 2) / d))
    cos, sin = rotary.recomposition_frequencies(freqs.cos()), rotary.recomposition_frequencies(freqs.sin())
    x = torch.tensor(RNG.normal(size=(ids.shape[1], d)))
    reference = (x * cos + modeling.rotate_half(x) * sin).numpy()
    np.testing.assert_allclose(posenc.apply_mrope(x.numpy(), ids, base, section), reference, rtol=0, atol=1e-14)


@pytest.mark.parametrize(("d", "section"), [(128, QWEN2_VL_SECTION), (64, (8, 12, 12)), (64, (32, 0, 0)),
                                            (10, (1, 2, 2)), (2, (1, 0, 0)), (2, (0, 0, 1))])
@pytest.mark.parametrize("base", [10000.0, 500000.0])
def test_on_text_tokens_mrope_is_1d_rope_half_layout(d, section, base):
    positions = np.array([0, 1, 2, 7, 100, 4095, 2**40])
    x = RNG.normal(size=(len(positions), d))
    ours = posenc.apply_mrope(x, np.stack([positions] * 3), base, section)
    np.testing.assert_array_equal(ours, posenc.apply_rope(x, positions, base, layout="half"))


def test_mrope_turns_each_band_by_its_own_id():
    d, section = 16, (2, 3, 3)
    theta = 10000.0 ** (-np.arange(8) / 8)
    x = np.zeros((1, d))
    x[0, :8] = 1.0  # every pair (i, i + 8) starts at angle 0
    out = posenc.apply_mrope(x, [[5], [11], [17]], mrope_section=section)
    angles = np.arctan2(out[0, 8:], out[0, :8])
    ids = np.array([5, 5, 11, 11, 11, 17, 17, 17])
    np.testing.assert_allclose(np.cos(angles), np.cos(ids * theta), atol=1e-14)
    np.testing.assert_allclose(np.sin(angles), np.sin(ids * theta), atol=1e-14)


def test_mrope_scores_in_a_frame_depend_on_the_offset_only_and_follow_the_closed_form():
    height, width, d = 6, 8, 64
    section = scaled_mrope_section(d)
    theta = 10000.0 ** (-np.arange(0, d, 2) / d)
    first = mrope_patch_scores(height, width, 1, 2, d)
    moved = mrope_patch_scores(height, width, 4, 6, d)
    np.testing.assert_allclose(moved[3:, 4:], first[:-3, :-4], rtol=0, atol=1e-13)
    band = np.repeat(np.arange(3), section)
    dr, dc = np.arange(height)[:, None, None] - 1, np.arange(width)[None, :, None] - 2
    closed = 2 / d * (section[0] + np.cos(dr * theta[band == 1]).sum(-1) + np.cos(dc * theta[band == 2]).sum(-1))
    np.testing.assert_allclose(first, closed, rtol=0, atol=1e-13)


def test_scaled_section_is_qwen2_vl_at_head_128():
    assert scaled_mrope_section(128) == (16, 24, 24)
    assert scaled_mrope_section(64) == (8, 12, 12)
    assert scaled_mrope_section(2) == (1, 0, 0)
    assert all(sum(scaled_mrope_section(d)) == d // 2 for d in range(2, 1026, 2))


# --- the ids of a sequence -----------------------------------------------------------------------------------

def test_position_ids_of_text_image_text_by_hand():
    """2 text tokens, an image of 2 × 3 patches, 2 text tokens: the text after starts at 2 + 3 = max id + 1."""
    expected = np.array([[0, 1, 2, 2, 2, 2, 2, 2, 5, 6],
                         [0, 1, 2, 2, 2, 3, 3, 3, 5, 6],
                         [0, 1, 2, 3, 4, 2, 3, 4, 5, 6]])
    np.testing.assert_array_equal(mrope_position_ids(2, 2, 3, 2), expected)


def test_position_ids_of_a_video_longer_than_its_grid_by_hand():
    """4 frames of 1 × 2 patches after 1 text token: t runs 1 … 4, so the text after starts at 5, the largest id + 1
    as Qwen2-VL's paper and its first get_rope_index (transformers 4.45) say; transformers 5.23.0 would start it
    at 1 + max(1, 2) = 3, repeating ids, which differs only when frames > max(height, width)."""
    expected = np.array([[0, 1, 1, 2, 2, 3, 3, 4, 4, 5],
                         [0, 1, 1, 1, 1, 1, 1, 1, 1, 5],
                         [0, 1, 2, 1, 2, 1, 2, 1, 2, 5]])
    np.testing.assert_array_equal(mrope_position_ids(1, 1, 2, 1, frames=4), expected)


@pytest.mark.parametrize("merge", [1, 2])
@pytest.mark.parametrize(("before", "frames", "height", "width", "after"), [
    (3, 1, 4, 6, 2), (1, 1, 1, 1, 1), (5, 1, 7, 3, 0), (0, 1, 2, 2, 4), (2, 2, 3, 5, 3), (4, 3, 3, 3, 1),
    (2, 4, 4, 2, 2)])
def test_position_ids_equal_get_rope_index(merge, before, frames, height, width, after):
    kind = "image" if frames == 1 else "video"
    segments = [("text", before)] if before else []
    segments += [(kind, (frames, height * merge, width * merge))]
    segments += [("text", after)] if after else []
    np.testing.assert_array_equal(mrope_position_ids(before, height, width, after, frames),
                                  get_rope_index(segments, merge))


# --- the public API and the refusals -------------------------------------------------------------------------

def test_exported_from_posenc():
    assert posenc.apply_rope_2d is posenc.schemes.rope.multimodal.apply_rope_2d
    assert posenc.apply_mrope is posenc.schemes.rope.multimodal.apply_mrope
    assert posenc.mrope_position_ids is mrope_position_ids
    assert {"apply_rope_2d", "apply_mrope", "mrope_position_ids"} <= set(posenc.__all__)


@pytest.mark.parametrize(("call", "error", "message"), [
    (lambda: posenc.apply_rope_2d(np.ones((3, 6)), [0, 1, 2], [0, 0, 0]), ValueError, "multiple of 4; got d = 6"),
    (lambda: posenc.apply_rope_2d(np.ones(8), [0], [0]), ValueError, "at least two axes"),
    (lambda: posenc.apply_rope_2d(np.ones((3, 8)), [0, 1], [0, 0, 0]), ValueError, r"rows must have shape \(3,\)"),
    (lambda: posenc.apply_rope_2d(np.ones((3, 8)), [0, 1, 2], [[0, 0, 0]]), ValueError, "cols must have shape"),
    (lambda: posenc.apply_rope_2d(np.ones((2, 8)), [0, 0.5], [0, 0]), ValueError, "whole numbers.*got 0.5"),
    (lambda: posenc.apply_rope_2d(np.ones((2, 8)), [0, np.nan], [0, 0]), ValueError, "finite"),
    (lambda: posenc.apply_rope_2d(np.ones((2, 8)), [0, 1e300], [0, 0]), ValueError, "2\\^53"),
    (lambda: posenc.apply_rope_2d(np.ones((2, 8)), [True, False], [0, 0]), TypeError, "real numbers"),
    (lambda: posenc.apply_rope_2d(np.ones((2, 8)), [0, 1], [0, 0], base=0.5), ValueError, "between 1 and"),
    (lambda: posenc.apply_rope_2d(np.full((1, 8), np.inf), [0], [0]), ValueError, "finite"),
    (lambda: posenc.apply_mrope(np.ones((2, 7)), np.zeros((3, 2))), ValueError, "d must be even; got d = 7"),
    (lambda: posenc.apply_mrope(np.ones((2, 64)), np.zeros((3, 2))), ValueError,
     r"sum to 32; got \(16, 24, 24\), which sums to 64"),
    (lambda: posenc.apply_mrope(np.ones((2, 8)), np.zeros((3, 2)), mrope_section=(2, 2)), ValueError,
     "three whole numbers.*got 2 of them"),
    (lambda: posenc.apply_mrope(np.ones((2, 8)), np.zeros((3, 2)), mrope_section="224"), TypeError,
     "three whole numbers"),
    (lambda: posenc.apply_mrope(np.ones((2, 8)), np.zeros((3, 2)), mrope_section=(3, -1, 2)), ValueError,
     r"mrope_section\[1\] must be at least 0"),
    (lambda: posenc.apply_mrope(np.ones((2, 8)), np.zeros((3, 2)), mrope_section=(2, 1.5, 0.5)), ValueError,
     r"mrope_section\[1\] must be a whole number"),
    (lambda: posenc.apply_mrope(np.ones((2, 8)), np.zeros((2, 2)), mrope_section=(2, 1, 1)), ValueError,
     r"positions must have shape \(3, 2\)"),
    (lambda: posenc.apply_mrope(np.ones((2, 8)), np.zeros(2), mrope_section=(2, 1, 1)), ValueError,
     r"positions must have shape \(3, 2\)"),
    (lambda: posenc.apply_mrope(np.ones((2, 8)), np.full((3, 2), 0.25), mrope_section=(2, 1, 1)), ValueError,
     "whole numbers"),
    (lambda: posenc.apply_mrope(np.ones((2, 8)), [["a", "b"]] * 3, mrope_section=(2, 1, 1)), TypeError,
     "real numbers"),
    (lambda: mrope_position_ids(-1, 2, 2, 0), ValueError, "text_before must be at least 0"),
    (lambda: mrope_position_ids(0, 0, 2, 0), ValueError, "height must be at least 1"),
    (lambda: mrope_position_ids(0, 2, 2, 0, frames=1.5), ValueError, "frames must be a whole number"),
    (lambda: mrope_position_ids(0, 2048, 2048, 0), ValueError, "more than 1,048,576"),
    (lambda: rope_2d_patch_scores(3, 3, 3, 0, 8), ValueError, "row must be at most 2"),
    (lambda: mrope_patch_scores(3, 3, 0, -1, 8), ValueError, "col must be at least 0"),
])
def test_refusals_say_what_is_wrong(call, error, message):
    with pytest.raises(error, match=message):
        call()
