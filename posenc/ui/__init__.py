"""The Streamlit layer: the only part of posenc that imports streamlit.

- :mod:`~posenc.ui.sidebar`: the shared sidebar (d_model, n, length, scheme and its options), drawn by app.py
  before the page so that a page change keeps it;
- :mod:`~posenc.ui.model_picker`: ``?model=``, a released model's settings in the sidebar;
  :mod:`~posenc.ui.model_layers`: its layers (How it works);
- :mod:`~posenc.ui.lecture`: a lecture's bar, keys, speaker's note and QR code (``?lecture=&slide=``);
- :mod:`~posenc.ui.binding`: every control bound to the URL (parse, clamp, warn, escaped);
- :mod:`~posenc.ui.compute`: cached computations shared between sessions, threads, errors as messages;
- :mod:`~posenc.ui.scheme_views`: what the pages show of each scheme, one entry per registry key: its
  How it works view (:mod:`~posenc.ui.how_it_works`, one module per family), the matrix's sentence, its
  rotation check (:mod:`~posenc.ui.shift_check` for rotary schemes); :mod:`~posenc.ui.precision_views`: the
  Precision page's sections per scheme;
- :mod:`~posenc.ui.cached_figures`: the cached figures of the pages; :mod:`~posenc.ui.real_lengths`: the curves at a
  model's real context and where its RoPE scaling acts;
- :mod:`~posenc.ui.downloads`: .npy and .csv downloads;
- :mod:`~posenc.ui.presenter`: presenter mode, chart export and each chart's text alternative;
- :mod:`~posenc.ui.accessibility`: page-wide CSS and script for keyboards and phones;
- :mod:`~posenc.ui.motion`: the animations' controls (reduced motion);
- :mod:`~posenc.ui.module_viewer`: the torch module of the current scheme, and "Take the code";
- :mod:`~posenc.ui.lab`: the length-generalization lab's views and its training queue;
- :mod:`~posenc.ui.memory`, :mod:`~posenc.ui.collector`: handing freed memory back after each run, and
  freezing what every session shares out of the garbage collector's walks.
"""

# pandas whole before any figure: plotly reads sys.modules and may see it half-imported
import pandas  # noqa: F401
