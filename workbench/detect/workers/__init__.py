"""The worker processes: the fork server, its preloads and the process pools."""
