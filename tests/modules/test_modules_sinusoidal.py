"""torch SinusoidalPositionalEncoding: a buffer, no parameters, equal to numpy to 1e-6."""

import numpy as np
import pytest

import posenc

torch = pytest.importorskip("torch")
from posenc.modules import SinusoidalPositionalEncoding  # noqa: E402


@pytest.mark.parametrize(("d_model", "base"), [(16, 10000.0), (512, 10000.0), (7, 100.0), (64, 500.0)])
def test_buffer_equals_numpy(d_model, base):
    module = SinusoidalPositionalEncoding(d_model, max_len=300, base=base)
    expected = posenc.sinusoidal(300, d_model, base)
    np.testing.assert_allclose(module.pe.numpy(), expected, atol=1e-6)


def test_no_parameters_and_buffer_is_not_trainable():
    module = SinusoidalPositionalEncoding(32, max_len=50)
    assert list(module.parameters()) == []
    assert "pe" in dict(module.named_buffers()) and not module.pe.requires_grad


def test_forward_adds_table_keeps_dtype():
    module = SinusoidalPositionalEncoding(8, max_len=20).eval()
    x = torch.arange(2 * 5 * 8, dtype=torch.float64).reshape(2, 5, 8)
    out = module(x)
    assert out.dtype == torch.float64 and out.shape == x.shape
    np.testing.assert_allclose(out.numpy(), x.numpy() + posenc.sinusoidal(5, 8)[None], atol=1e-6)


def test_dropout_scales_kept_values():
    torch.manual_seed(0)
    module = SinusoidalPositionalEncoding(16, dropout=0.5, max_len=10).train()
    out = module(torch.ones(4, 10, 16))
    kept = out != 0
    expected = (1 + torch.from_numpy(posenc.sinusoidal(10, 16)).float()) * 2
    assert 0 < kept.float().mean() < 1
    torch.testing.assert_close(out[kept], expected.expand(4, 10, 16)[kept])


def test_too_long_input_is_a_clear_error():
    module = SinusoidalPositionalEncoding(8, max_len=10)
    with pytest.raises(ValueError, match="max_len=10"):
        module(torch.zeros(1, 11, 8))


def test_wrong_width_is_a_clear_error():
    with pytest.raises(ValueError, match=r"\(batch, length, 8\)"):
        SinusoidalPositionalEncoding(8)(torch.zeros(1, 3, 9))


def test_bad_constructor_arguments():
    with pytest.raises(ValueError, match="d_model"):
        SinusoidalPositionalEncoding(0)
    with pytest.raises(ValueError, match="dropout"):
        SinusoidalPositionalEncoding(8, dropout=1.5)
