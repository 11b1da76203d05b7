"""Positions in low precision: float32, float16 and bfloat16 against float64.

- :mod:`~posenc.precision.dtypes`: the dtypes' facts, correct rounding, errors (numpy);
- :mod:`~posenc.precision.tables`: a scheme's numbers computed in each dtype, one entry per scheme in its
  ``PRECISION_TABLES`` (imports torch lazily);
- :mod:`~posenc.precision.residuals`: the relative-position property in each dtype (imports torch lazily).
"""
