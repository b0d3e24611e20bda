"""Detection on a Dask cluster (``workbench dedup CRAWL --dask [ADDRESS]``), with exactly
the local pipeline's results: the same reading plan, extraction and join kernels, carried
out as Dask tasks that exchange Parquet shards through a work directory."""
