-- Reason: placeholder for migration 0007, which the issue 41 part "cache" (session snapshots)
-- owns: the runner refuses gaps in the numbers, and 0008 is the directory's. Replaced by that
-- part's own 0007_snapshots.sql when the branches are merged; it changes nothing.
SELECT 1;
