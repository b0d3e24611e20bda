"""Projects: opening and saving them, where they live, the recent list, backups and export."""
