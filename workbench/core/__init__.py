"""Domain records and pure algorithms shared by every layer (no I/O, no Qt)."""
