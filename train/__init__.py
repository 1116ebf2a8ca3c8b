"""Command line, tournaments and (later) training scripts."""
