"""The pages' records on a Dask run: the shards the tasks write, and the columns and
places the client keeps of them instead of an object a page."""
