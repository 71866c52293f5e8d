"""`python -m accls`."""

import sys

from accls.cli import main

sys.exit(main())
