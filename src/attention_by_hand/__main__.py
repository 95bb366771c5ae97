"""`python -m attention_by_hand` is the same as the `attention-by-hand` command."""

import sys

from attention_by_hand.cli import main

sys.exit(main())
