"""Positions in low precision: float32, float16 and bfloat16 against float64.

- :mod:`~posenc.precision.dtypes`: the dtypes' facts, correct rounding, errors (numpy);
- :mod:`~posenc.precision.tables`: a scheme's numbers computed in each dtype: what a scheme states beyond its
  family's in ``PRECISION``, the defaults filled in by ``precision_of`` (imports torch lazily);
- :mod:`~posenc.precision.residuals`: the relative-position property in each dtype (imports torch lazily).
"""
