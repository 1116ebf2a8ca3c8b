"""``python -m cardzoo.zoo list|export``: see :mod:`cardzoo.zoo`."""

import sys

from cardzoo.zoo import main

sys.exit(main())
