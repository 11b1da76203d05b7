"""The length-generalization lab (issue 16): small decoder-only transformers trained on synthetic tasks.

Train on lengths 1…L, test exact match up to 3L, under any registered positional scheme plus DroPE.
``posenc.lab.results`` reads the shipped results with numpy alone; ``tasks``, ``model``, ``train``
and ``evaluate`` import torch. Nothing here is imported by ``import posenc``.

Command line: ``python -m posenc.lab run --task copy --scheme alibi --seed 0`` and
``python -m posenc.lab regenerate`` (see ``posenc/lab/cli.py``).
"""
