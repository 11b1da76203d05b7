"""Take the code: a standalone torch file per scheme and setting.

:mod:`~posenc.export.source` writes the file from the templates of each family
(:mod:`~posenc.export.absolute`, :mod:`~posenc.export.bias`, :mod:`~posenc.export.rope`).
"""

from posenc.export.source import file_name, load, module_source, reference_output

__all__ = ["file_name", "load", "module_source", "reference_output"]
