"""Storage behind a small repository interface: the event log, clubs and request answers."""
