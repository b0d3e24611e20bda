"""Where a page came from and when: its original URL and capture time (from an archive
record, a replay's address, or its rewritten links), and the publication date it states."""
