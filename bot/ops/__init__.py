"""Operating the bot: backups, database migration between backends, log redaction."""
