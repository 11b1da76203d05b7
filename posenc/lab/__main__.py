"""``python -m posenc.lab run|regenerate``: see posenc/lab/cli.py."""

import sys

from posenc.lab.cli import main

sys.exit(main())
