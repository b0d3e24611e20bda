"""The coding pane: tags, the codebook, memos and what the coder is told after each step."""
