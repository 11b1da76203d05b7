"""Argument checks of the torch modules: the same sentences as posenc.checks, for tensors."""

from __future__ import annotations

import numpy as np
import torch

from posenc.checks import MAX_WHOLE, ArgumentTypeError, check_array


def check_float_tensor(x: object, name: str = "x", *, min_ndim: int = 0) -> torch.Tensor:
    """A floating-point tensor of finite numbers with at least ``min_ndim`` axes.

    Integer and bool tensors are refused rather than computed on: rotating or adding a
    float encoding in an integer dtype would round every value (to zeros, mostly).
    """
    if not isinstance(x, torch.Tensor):
        raise ArgumentTypeError(f"{name} must be a torch.Tensor; got a {type(x).__name__}.")
    if not x.is_floating_point():
        raise ArgumentTypeError(f"{name} must be a floating-point tensor (e.g. torch.float32); got {x.dtype}. "
                                f"Convert it first, e.g. {name}.float().")
    if x.ndim < min_ndim:
        raise ValueError(f"{name} must have at least {min_ndim} axes; got shape {tuple(x.shape)}.")
    if not bool(torch.isfinite(x).all()):
        raise ValueError(f"{name} must hold finite numbers; got NaN or ±inf.")
    return x


def check_positions(positions: object, device: torch.device) -> torch.Tensor:
    """Positions as a float64 tensor on ``device``: real, finite, within ±2^53 (bools refused)."""
    if isinstance(positions, torch.Tensor):
        if positions.dtype == torch.bool or positions.is_complex():
            raise ArgumentTypeError(f"positions must hold real numbers; got {positions.dtype}.")
        positions = positions.to(device=device, dtype=torch.float64)
    else:
        positions = torch.as_tensor(check_array(positions, "positions").astype(np.float64), device=device)
    if not bool(torch.isfinite(positions).all()):
        raise ValueError("positions must hold finite numbers; got NaN or ±inf.")
    if positions.numel() and float(positions.abs().max()) > MAX_WHOLE:
        raise ValueError(f"positions must lie within ±2^53; got {float(positions.abs().max()):g}.")
    return positions


def check_float_dtype(dtype: object) -> torch.dtype:
    """A torch floating dtype such as torch.float32."""
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise ArgumentTypeError(f"dtype must be a torch floating dtype such as torch.float32; got {dtype!r}.")
    return dtype


def check_fits_dtype(value: float, name: str, dtype: torch.dtype) -> float:
    """``value`` if ``dtype`` can hold it (|value| ≤ its largest finite number), else a ValueError naming both."""
    largest = torch.finfo(dtype).max
    if abs(value) > largest:
        raise ValueError(f"{name} = {value!r} does not fit in {dtype} (its largest value is {largest!r}).")
    return value


def check_finite_output(result: torch.Tensor, what: str) -> torch.Tensor:
    """Refuse a result that overflowed its dtype (e.g. float16 near 65504) instead of returning inf."""
    if not bool(torch.isfinite(result).all()):
        raise ValueError(f"{what} overflows the dtype {result.dtype}; use smaller values or a wider dtype.")
    return result
