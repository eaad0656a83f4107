"""The public web leaderboard (issue 35): server-rendered pages of the ladders a club made
public, read from the log at each request, never writing it."""
