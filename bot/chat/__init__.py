"""The chat layer: commands parsed from chat text, answers rendered as text, rate limits."""
