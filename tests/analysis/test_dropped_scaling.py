"""posenc.analysis.dropped_scaling: one q·k score with a model's declared RoPE scaling and with it dropped.

Pinned: at distance 0 the declared score is the dropped one with the rotated part times a² (exactly); Llama 3.1's
llama3 scaling leaves pairs 0-28 (wavelength < L₀/4 = 2048) as they are, so the two scores agree as far as the
29 changed pairs allow and part past L₀ = 8192; the declared and dropped scores equal those rotated by
transformers 5.23's own apply_rotary_pos_emb with ROPE_INIT_FUNCTIONS' inv_freq and attention factor (and the
family's default frequencies for the dropped one) for the configs of tests/models/configs/; refusals; and a
property test over presets, test configs and random distances.
"""

from __future__ import annotations

import importlib
import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from posenc.analysis.dropped_scaling import DroppedScalingScores, dropped_scaling_scores
from posenc.analysis.offset_curves import log_offsets
from posenc.models import LAYER_TYPES, from_config, get, names, rope_inv_freq

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

CONFIGS = Path(__file__).parents[1] / "models" / "configs"
SCALED = ["llama-3.1-8b", "llama-4-scout", "phi-3-mini-128k", "gemma-3-4b", "gpt-oss-20b", "deepseek-v3"]


def query_key(head_dim: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    return np.random.default_rng(seed).standard_normal((2, head_dim))


def rotated_part(model, layer_type: str) -> slice:
    positional = model.positional(layer_type)
    start = positional.head_dim - positional.rotary_dims if "qk_nope_head_dim" in positional.extra else 0
    return slice(start, start + positional.rotary_dims)


def pair_norms(vector: np.ndarray, layout: str) -> np.ndarray:
    """|x_j| of each rotated pair, paired as the layout says."""
    if layout == "interleaved":
        return np.hypot(vector[0::2], vector[1::2])
    half = len(vector) // 2
    return np.hypot(vector[:half], vector[half:])


def test_every_preset_with_a_scaling_gives_scores_the_others_a_sentence():
    scaled = []
    for name in names():
        try:
            result = dropped_scaling_scores(get(name))
        except ValueError as error:
            assert "nothing to drop" in str(error)
            continue
        scaled.append(name)
        assert isinstance(result, DroppedScalingScores) and result.seed == 0
        np.testing.assert_array_equal(result.distances, log_offsets(get(name).context_length))
        assert not result.declared.flags.writeable
    assert scaled == SCALED


@pytest.mark.parametrize("name", SCALED)
def test_at_distance_0_the_rotated_part_is_multiplied_by_the_attention_factor_squared(name):
    """score(0) = q_pass·k_pass + a²·q_rot·k_rot declared, q_pass·k_pass + q_rot·k_rot dropped."""
    model = get(name)
    result = dropped_scaling_scores(model, [0, 5])
    layer_type = result.layer_type
    query, key = query_key(model.positional(layer_type).head_dim)
    rotated = rotated_part(model, layer_type)
    passing = query @ key - query[rotated] @ key[rotated]
    _, factor = rope_inv_freq(model, layer_type, seq_len=1)
    assert result.attention_factor == factor
    assert result.dropped[0] == pytest.approx(query @ key, rel=1e-13, abs=1e-12)
    assert result.declared[0] - passing == pytest.approx(factor**2 * (result.dropped[0] - passing), rel=1e-13)
    if factor == 1.0:
        assert result.declared[0] == result.dropped[0] and result.difference[0] == 0.0


def test_the_attention_factors_squared_at_distance_0():
    """Phi-3's a² = 1 + ln 32 / ln 4096 = 17/12; gpt-oss's a = 0.1·ln 32 + 1: the two scores part at once."""
    phi3 = dropped_scaling_scores(get("phi-3-mini-128k"), [0])
    assert phi3.declared[0] / phi3.dropped[0] == pytest.approx(17 / 12, rel=1e-14)
    assert phi3.first_disagreement == 0
    gpt_oss = dropped_scaling_scores(get("gpt-oss-20b"), [0])
    assert gpt_oss.declared[0] / gpt_oss.dropped[0] == pytest.approx((0.1 * math.log(32) + 1) ** 2, rel=1e-14)


def llama3_changed_pairs():
    """Llama 3.1's θ_j = 500000^(−j/64) and θ'_j: j ≤ 28 have λ_j = 2π/θ_j < 8192/4 and keep θ_j."""
    theta = 500_000.0 ** (-np.arange(64) / 64)
    scaled, _ = rope_inv_freq("llama-3.1-8b")
    changed = np.flatnonzero(np.abs(scaled / theta - 1) > 1e-12)
    return theta, scaled, changed


def test_llama31_keeps_its_high_frequency_pairs():
    theta, scaled, changed = llama3_changed_pairs()
    wavelength = 2 * np.pi / theta
    np.testing.assert_array_equal(changed, np.arange(29, 64))
    assert wavelength[28] < 2048 < wavelength[29]
    np.testing.assert_allclose(scaled[wavelength > 8192], theta[wavelength > 8192] / 8, rtol=1e-15)


def test_llama31_agrees_at_short_distances_within_what_its_changed_pairs_allow():
    """|declared − dropped| ≤ Σ_{j changed} |q_j|·|k_j|·min(2, Δ·|θ_j − θ'_j|): pairs 0-28 add nothing, a changed
    pair at most the chord |e^{iΔθ'} − e^{iΔθ}|. So they agree (within 1% of |q|·|k|) at every distance where that
    bound is below the tolerance, and the first disagreement lies past it."""
    model = get("llama-3.1-8b")
    result = dropped_scaling_scores(model)
    theta, scaled, changed = llama3_changed_pairs()
    query, key = query_key(128)
    weights = (pair_norms(query, "half") * pair_norms(key, "half"))[changed]
    bound = (weights * np.minimum(2.0, result.distances[:, None] * np.abs(theta - scaled)[changed])).sum(axis=1)
    assert (result.difference <= bound + 1e-9).all()
    np.testing.assert_allclose(result.tolerance, 0.01 * np.linalg.norm(query) * np.linalg.norm(key), rtol=1e-15)
    below = result.distances[bound <= result.tolerance]
    assert below.max() >= 16
    assert result.first_disagreement > below.max()
    assert result.first_disagreement == 776  # seed 0: the first drawn distance past 1% of |q|·|k| = 130.2


def test_llama31_differs_past_its_original_context():
    """Past L₀ = 8192 the slow pairs (θ/8 declared) have turned far from the dropped ones': the scores disagree at
    most distances drawn there, by up to a sixth of |q|·|k|, against at most a fiftieth up to L₀/16."""
    result = dropped_scaling_scores(get("llama-3.1-8b"))
    past, short = result.distances > 8192, result.distances <= 512
    assert (result.difference[past] > result.tolerance).mean() > 0.75
    assert result.difference[past].max() > 10 * result.tolerance
    assert result.difference[short].max() < 0.5 * result.tolerance


def test_the_query_key_pair_follows_the_seed():
    first, again, other = (dropped_scaling_scores(get("gemma-3-4b"), [0, 100], seed=s) for s in (7, 7, 8))
    np.testing.assert_array_equal(first.declared, again.declared)
    assert first.seed == 7 and not np.array_equal(first.declared, other.declared)
    query, key = query_key(256, seed=7)
    assert first.dropped[0] == pytest.approx(query @ key, rel=1e-13)


def test_refusals():
    with pytest.raises(ValueError, match="nothing to drop"):
        dropped_scaling_scores(get("llama-2-7b"))
    with pytest.raises(ValueError, match="rotates no query or key.*nothing to drop"):
        dropped_scaling_scores(get("gpt2"))
    with pytest.raises(ValueError, match="'sliding_attention' layers rotate with the default.*nothing to drop"):
        dropped_scaling_scores(get("gemma-3-4b"), layer_type="sliding_attention")
    with pytest.raises(ValueError, match="'nope' layers do not rotate"):
        dropped_scaling_scores(get("llama-4-scout"), layer_type="nope")
    with pytest.raises(ValueError, match="must be a posenc.models.Model"):
        dropped_scaling_scores("llama-3.1-8b")
    with pytest.raises(ValueError, match="whole numbers"):
        dropped_scaling_scores(get("llama-3.1-8b"), [-1, 3])
    with pytest.raises(ValueError, match="sequence of at least 101 tokens"):
        dropped_scaling_scores(get("phi-3-mini-128k"), [100], seq_len=50)
    with pytest.raises(ValueError, match="nothing to drop"):
        dropped_scaling_scores(from_config(CONFIGS / "qwen3-8b.json"))


def test_a_fixed_sequence_length_picks_longropes_long_factors_at_every_distance():
    """seq_len = Δ + 1 by default: Phi-3's short factors up to Δ = 4095, its long ones from 4096; with seq_len
    131,072 the long ones everywhere (equal to the default's at Δ ≥ 4096)."""
    model = get("phi-3-mini-128k")
    default = dropped_scaling_scores(model, [10, 4095, 4096, 70_000])
    long = dropped_scaling_scores(model, [10, 4095, 4096, 70_000], seq_len=131_072)
    np.testing.assert_array_equal(default.declared[2:], long.declared[2:])
    assert not np.isclose(default.declared[1], long.declared[1])
    np.testing.assert_array_equal(default.dropped, long.dropped)


# --- transformers 5.23 ------------------------------------------------------------------------------------

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
transformers.logging.set_verbosity_error()

from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS  # noqa: E402  (after importorskip)

# config file -> (layer type, the family's modeling module and rotary class, the function applying cos and sin);
# gpt-oss's own takes cos and sin of half the width, so Llama's (the same rotation of halves) is used for it
ORACLE_CASES = {
    "llama-3.1-8b": (None, "llama.modeling_llama", "LlamaRotaryEmbedding", "llama.modeling_llama.apply_rotary_pos_emb"),
    "gpt-oss-20b": (None, "gpt_oss.modeling_gpt_oss", "GptOssRotaryEmbedding",
                    "llama.modeling_llama.apply_rotary_pos_emb"),
    "phi-3-mini-128k": (None, "phi3.modeling_phi3", "Phi3RotaryEmbedding", "phi3.modeling_phi3.apply_rotary_pos_emb"),
    "gemma-3-4b": ("full_attention", "gemma3.modeling_gemma3", "Gemma3RotaryEmbedding",
                   "gemma3.modeling_gemma3.apply_rotary_pos_emb"),
    "deepseek-v3": (None, "deepseek_v3.modeling_deepseek_v3", "DeepseekV3RotaryEmbedding",
                    "deepseek_v3.modeling_deepseek_v3.apply_rotary_pos_emb_interleave"),
}


def transformers_object(dotted: str):
    module, name = dotted.rsplit(".", 1)
    return getattr(importlib.import_module(f"transformers.models.{module}"), name)


def hf_config(path: Path, tmp_path: Path):
    (tmp_path / "config.json").write_text(path.read_text())
    return transformers.AutoConfig.from_pretrained(tmp_path).get_text_config()


def hf_scores(apply, inv_freq: np.ndarray, factor: np.ndarray, query, key, distances, rotated: slice):
    """q·k with the rotated dimensions turned by transformers' ``apply``: the query at 3 + Δ, the key at 3, cos
    and sin as its rotary classes build them (cat(freqs, freqs)·attention_scaling), in float64."""
    inv_freq, factor = torch.tensor(inv_freq), torch.tensor(factor)[:, None]  # (n, pairs), (n, 1)

    def cos_sin(positions):
        freqs = torch.tensor(positions, dtype=torch.float64)[:, None] * inv_freq
        emb = torch.cat([freqs, freqs], dim=-1)[None]  # (1, n, d_rot)
        return emb.cos() * factor, emb.sin() * factor

    n = len(distances)
    q_rot = torch.tensor(np.broadcast_to(query[rotated], (1, 1, n, rotated.stop - rotated.start)).copy())
    k_rot = torch.tensor(np.broadcast_to(key[rotated], q_rot.shape).copy())
    q_turned, _ = apply(q_rot, q_rot, *cos_sin(3.0 + distances))
    k_turned, _ = apply(k_rot, k_rot, *cos_sin(np.full(n, 3.0)))
    passing = query @ key - query[rotated] @ key[rotated]
    return passing + (q_turned * k_turned).sum(-1)[0, 0].numpy()


@pytest.mark.parametrize("name", ORACLE_CASES)
def test_scores_equal_transformers_rotation_with_its_inv_freq_and_attention_factor(name, tmp_path):
    layer_type, module, rotary_class, apply_path = ORACLE_CASES[name]
    path = CONFIGS / f"{name}.json"
    model, config = from_config(path), hf_config(path, tmp_path)
    apply = transformers_object(apply_path)
    distances = log_offsets(model.context_length, 64)
    result = dropped_scaling_scores(model, distances, layer_type)
    positional = model.positional(result.layer_type)
    rope_type = positional.options["rope_type"]
    hf_type = json.loads(path.read_text()).get("rope_scaling", {}).get("type") or rope_type
    assert hf_type == rope_type and result.rope_type == rope_type
    declared = [ROPE_INIT_FUNCTIONS[rope_type](config, None, seq_len=int(d) + 1, layer_type=layer_type)
                for d in distances]
    inv_freq = np.stack([f.double().numpy() for f, _ in declared])
    factor = np.array([a for _, a in declared])
    default, one = transformers_object(f"{module}.{rotary_class}").compute_default_rope_parameters(config, layer_type=layer_type)
    assert one == 1.0 and factor[0] == pytest.approx(result.attention_factor, rel=1e-12)
    query, key = query_key(positional.head_dim)
    rotated = rotated_part(model, result.layer_type)
    weights = pair_norms(query[rotated], positional.options["layout"]) * pair_norms(key[rotated],
                                                                                   positional.options["layout"])
    ours_declared = np.stack([rope_inv_freq(model, result.layer_type, seq_len=int(d) + 1)[0] for d in distances])
    ours_dropped = positional.base ** (-np.arange(0, positional.rotary_dims, 2) / positional.rotary_dims)
    hf_dropped = np.broadcast_to(default.double().numpy(), inv_freq.shape)
    for got, freq, a, ours in ((result.declared, inv_freq, factor, ours_declared),
                               (result.dropped, hf_dropped, np.ones(len(distances)), ours_dropped)):
        expected = hf_scores(apply, freq, a, query, key, distances, rotated)
        # transformers' θ are float32: the angle Δθ is off by Δ·|θ_hf − θ|, the score by at most a² times that
        # per pair, weighted by |q_j|·|k_j| (and float64 rounding)
        allowed = (a**2 * (distances[:, None] * np.abs(freq - ours) * weights).sum(axis=1)
                   + 1e-9 * np.linalg.norm(query) * np.linalg.norm(key))
        assert (np.abs(got - expected) <= allowed).all(), name
    assert np.abs(result.declared - result.dropped).max() > result.tolerance  # the scaling matters at some distance


# --- property: finite arrays or a ValueError -------------------------------------------------------------

MODELS = [get(name) for name in names()] + [from_config(path) for path in sorted(CONFIGS.glob("*.json"))]
DISTANCES = st.one_of(
    st.none(),
    st.lists(st.integers(0, 2**24), min_size=1, max_size=12),
    st.lists(st.integers(-3, 2**62), max_size=6),
    st.lists(st.floats(-1.0, 1e7), max_size=4),
)


@given(st.sampled_from(MODELS), DISTANCES, st.one_of(st.none(), st.sampled_from([*LAYER_TYPES, "bogus"])),
       st.integers(0, 2**64 - 1), st.one_of(st.none(), st.integers(0, 2**25)))
def test_returns_finite_arrays_or_a_valueerror(model, distances, layer_type, seed, seq_len):
    try:
        result = dropped_scaling_scores(model, distances, layer_type, seed, seq_len=seq_len)
    except ValueError as error:
        assert len(str(error)) > 15 and " " in str(error)
        return
    n = len(result.distances)
    for values in (result.declared, result.dropped, result.difference):
        assert values.shape == (n,) and values.dtype == np.float64 and np.isfinite(values).all()
    assert result.distances.dtype == np.int64 and (result.distances >= 0).all()
    np.testing.assert_array_equal(result.difference, np.abs(result.declared - result.dropped))
    assert math.isfinite(result.attention_factor) and result.tolerance >= 0
    disagree = result.distances[result.difference > result.tolerance]
    assert result.first_disagreement == (int(disagree.min()) if disagree.size else None)


def test_gemma_4_s_p_rope_is_scored_with_its_share_of_pairs():
    """Gemma 4's full-attention layers turn a quarter of their pairs by p-RoPE: the declared scores were computed
    over every pair (p-RoPE's share not passed), so they equalled the dropped ones. Both sides now equal the score of
    q rotated by posenc.apply_rope to the key's distance: p-RoPE's share declared, plain RoPE over the head dropped."""
    import posenc
    from family_configs import ROTARY_CONFIGS

    model = from_config(ROTARY_CONFIGS["gemma-4 (p-RoPE on wider global heads)"])
    distances = [0, 1, 7, 100, 5_000, 131_071]
    scores = dropped_scaling_scores(model, distances, "full_attention")
    query, key = np.random.default_rng(0).standard_normal((2, 512))
    for options, got in (({"rope_type": "proportional", "rotary_fraction": 0.25}, scores.declared),
                         ({"rope_type": "default"}, scores.dropped)):
        rotated = posenc.apply_rope(np.repeat(query[None], len(distances), 0), np.array(distances), base=1e6,
                                    layout="half", **options)
        np.testing.assert_allclose(got, rotated @ key, rtol=1e-9, atol=1e-9)
    assert np.abs(scores.declared[1:] - scores.dropped[1:]).min() > 1e-3  # p-RoPE is not plain RoPE past Δ = 0
