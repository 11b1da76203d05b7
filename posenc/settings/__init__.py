"""The settings a link carries, parsed and made valid once, at the edge (numpy-free, streamlit-free).

- :mod:`~posenc.settings.parsing`: URL text to the nearest valid value, the caps, escaping;
- :mod:`~posenc.settings.constraints`: settings a scheme cannot take in combination, corrected.
"""
