"""The filters' global counts as tree reductions on the workers (sites' blocks, document
frequencies, identical pages) and the signature matrix's rows made and filtered by tasks."""
