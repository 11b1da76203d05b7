"""Measurements on encodings (numpy only): what the charts and the Properties page show.

- :mod:`~posenc.analysis.similarity`: PE·PEᵀ, and whether attention can tell orders apart;
- :mod:`~posenc.analysis.distances`: distances and differences between encodings;
- :mod:`~posenc.analysis.table_cells`: the cells a chart shows, computed without the full table;
- :mod:`~posenc.analysis.offset_curves`: the offset curve every scheme shares, from closed forms, at every
  offset of a length or at chosen offsets only, as far as a model's real context (10M);
- :mod:`~posenc.analysis.scaling_regions`: where a RoPE context extension acts, pair by pair;
- :mod:`~posenc.analysis.dropped_scaling`: one q·k score with a model's RoPE scaling and with it dropped;
- :mod:`~posenc.analysis.properties` and :mod:`~posenc.analysis.verdicts`: seed 001's criteria,
  measured, and the verdicts drawn from the measurements.
"""
