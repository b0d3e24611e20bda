"""Side by side: two pages of a cluster read from their archives and shown with their shared text marked."""
