"""The derivation of the sinusoidal encoding's relative-position property, step by step.

- :mod:`~posenc.derivation.steps`: the numbers of steps 1–8 (numpy);
- :mod:`~posenc.derivation.torch_module`: step 9, the torch module run live (imports torch lazily);
- :mod:`~posenc.derivation.latex`: each step's formula in LaTeX with its numbers substituted.
"""
