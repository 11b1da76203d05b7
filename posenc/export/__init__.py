"""Take the code: a standalone torch file per scheme and setting.

:mod:`~posenc.export.source` writes the file from each scheme's entry in its ``EXPORTS`` (keyed by the
registry's key): a template of its family (:mod:`~posenc.export.absolute`, :mod:`~posenc.export.bias`,
:mod:`~posenc.export.rope`, :mod:`~posenc.export.xpos`) and the constants it adds to the settings.
"""

from posenc.export.source import file_name, load, module_source, reference_output

__all__ = ["file_name", "load", "module_source", "reference_output"]
