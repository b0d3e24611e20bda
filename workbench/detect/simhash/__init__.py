"""SimHash, the fingerprint detector, with its index and compiled loops."""
