"""What keeps the project file and every output whole: locking, backups, recovery and whole-file writes."""
