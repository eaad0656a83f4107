"""Scheduled work: the weekly posts and what time makes due, and where posts go."""
