"""The exact similarity join (SIGIR'08 section 4): matching, all-pairs, incremental runs, Jaccard."""
