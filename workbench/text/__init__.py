"""From page bytes to visible text with character spans, tokens and stopwords."""
