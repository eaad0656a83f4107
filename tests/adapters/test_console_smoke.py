"""The console answers a first club night end to end."""

from pathlib import Path

from tests.chat import open_club


async def test_report_confirm_and_leaderboard(tmp_path: Path) -> None:
    async with open_club(tmp_path / "club.db") as chat:
        for name in ("alice", "bob"):
            await chat.as_(name, "/register")
        reported = await chat.as_("alice", "/report @bob win")
        assert "Game #" in reported and "alice beat bob" in reported
        confirmed = await chat.as_("bob", "/confirm")
        # Two newcomers of deviation 150: 1500 + K 115.7 x w 0.924 x 1/2 = 1553.5, provisional.
        assert "alice: 1500 -> 1553?" in confirmed
        board = await chat.say("/top")
        assert board.splitlines()[1].split()[:3] == ["1.", "alice", "1553?"]
