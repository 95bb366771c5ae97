"""`python -m attention_by_hand` is the same as the `attention-by-hand` command."""

from attention_by_hand.cli import entry

entry()
