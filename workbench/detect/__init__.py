"""detect layer."""
