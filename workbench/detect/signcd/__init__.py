"""SigNCD, the compression-distance detector, with its signatures."""
