"""Reading one page again after a run (no Qt): its bytes from its file, or its WARC record
at the offset detection found it, for the side-by-side view, the export's passage shares
and the publication-date pass."""
