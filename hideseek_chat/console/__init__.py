"""Channels without a network: the table used by the demo, the console and tests."""
