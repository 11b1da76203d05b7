"""The length-generalization lab (issue 16): small decoder-only transformers trained on synthetic tasks.

Train on strings of 1…L digits, test exact match on 1…3L, under any registered positional scheme plus
DroPE. Nothing here is imported by ``import posenc``. The API, by module:

- ``posenc.lab.results`` (numpy only, no torch): ``load_records(task=None, scheme=None)``,
  ``summarize(records=None)`` → task → scheme → test_length → {mean, min, max, seeds, train_max_length},
  ``in_distribution()``, ``train_max_length()``, ``attention_lengths()`` → (L, 1.5·L),
  ``load_attention(task, scheme, length)`` → (probabilities [layers, heads, T, T], tokens [T]).
- ``posenc.lab.names`` (no torch): TASKS, SCHEMES (the registry's, then LAB_ONLY_SCHEMES), SCHEME_LABELS,
  SEEDS, check_task, check_scheme, and TOKEN_NAMES (how to label tokens 0…12 on a map's axes: digits, "|" separator, "^" start).
- ``posenc.lab.recipe`` (no torch): ``Recipe`` (frozen dataclass) and ``DEFAULT``, the tuned recipe;
  ``LIVE_BOUNDS``, ``live_recipe(train_max_length, steps)``, ``WORST_CASE_SECONDS`` (train your own).
- ``posenc.lab.schemes`` (torch): ``POSITIONS``, what each scheme does in the model (one entry per key of
  SCHEMES: its embedding, and its attention hooks rotate / scores / bias), ``LabScheme``, ``Positions``.
- ``posenc.lab.extension`` (no torch): stretching RoPE past L (issue 30): ``METHODS`` (none, pi, ntk, yarn,
  llama3 → posenc's RoPE scalings), ``FACTORS``, ``FINETUNE_STEPS``, ``load_extension()``, ``curves(...)``,
  ``CLAIMS`` and ``check_claims()``; ``posenc.lab.extension_training`` (torch): ``base_model``, ``stretched``, ``finetune``,
  ``extension_records``.
- ``posenc.lab.train`` (torch): ``train(task, scheme, seed, recipe=DEFAULT, progress=None, should_stop=None)``
  → LabModel; ``TrainingCancelled``.
- ``posenc.lab.jobs`` (no torch in the caller's process): ``TrainingQueue``, the server's one queue of live
  trainings (FIFO, one at a time, each in a child process bounded in CPU time), ``Request``, ``Ticket``.
- ``posenc.lab.evaluate`` (torch): ``evaluate(model, task, seed)`` → records;
  ``attention_maps(model, task, length, seed=0)`` → (probabilities [layers, heads, T, T], tokens [T]).

Command line: ``python -m posenc.lab run --task copy --scheme alibi --seed 0``, ``python -m posenc.lab
regenerate``, ``python -m posenc.lab extend --task copy --method pi --factor 2 --finetune-steps 200 --seed 0``
and ``python -m posenc.lab regenerate-extension`` (see ``posenc/lab/cli.py``).
"""
