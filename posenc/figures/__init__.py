"""plotly figure builders: arrays in, ``go.Figure`` out; no builder reads widgets or session state.

- :mod:`~posenc.figures.layout`: the shared look (fonts, grid, palette) as plain dicts;
- :mod:`~posenc.figures.heatmaps`: heatmaps of large matrices, thinned to what a chart can show;
- :mod:`~posenc.figures.charts`: line, vector, phasor, bucket and comparison charts;
- :mod:`~posenc.figures.derivation`: the pictures only the derivation draws;
- :mod:`~posenc.figures.legible`: any figure laid out to be read on a phone (wrapped titles, legend below);
- :mod:`~posenc.figures.margins`: margins that hold what plotly's automargin asks for, so a chart is drawn once.
"""
