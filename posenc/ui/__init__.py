"""The Streamlit layer: the only part of posenc that imports streamlit.

- :mod:`~posenc.ui.sidebar`: the shared sidebar (d_model, n, length, scheme and its options);
- :mod:`~posenc.ui.binding`: every control bound to the URL (parse, clamp, warn, escaped);
- :mod:`~posenc.ui.compute`: cached computations shared between sessions, threads, errors as messages;
- :mod:`~posenc.ui.views`: the cached figures of the pages;
- :mod:`~posenc.ui.downloads`: .npy and .csv downloads;
- :mod:`~posenc.ui.presenter`: presenter mode and chart export;
- :mod:`~posenc.ui.module_viewer`: the torch module of the current scheme, and "Take the code";
- :mod:`~posenc.ui.memory`: handing freed memory back after each run.
"""

# pandas whole before any figure: plotly reads sys.modules and may see it half-imported
import pandas  # noqa: F401
