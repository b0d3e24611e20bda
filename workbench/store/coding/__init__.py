"""The coder's decisions and their undo: tags, memos, the codebook and the action log."""
