"""export layer."""
