"""The SpotSigs engine: extraction, signatures and their filters."""
