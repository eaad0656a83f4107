"""Why the bot cannot start, or stopped: the errors the composition root turns into one line on
stderr and an exit status a service manager understands. Kept apart from the settings, so that
the front-ends below the composition root can say a platform refused a setting."""

from __future__ import annotations


class StartupError(Exception):
    """``clubrating run`` cannot start (or a platform stopped it): the message names what to
    fix, in one line, and holds no secret. Exit status 1: trying again later may work."""


class ConfigError(StartupError):
    """A setting that is wrong, an unreadable secret file, or a token the platform refuses:
    starting again changes nothing until a person fixes it. Exit status 78 (``EX_CONFIG`` of
    sysexits.h), which a service manager is told not to restart (``RestartPreventExitStatus``).
    ``problems`` are every setting found wrong, one sentence each."""

    def __init__(self, *problems: str) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


#: exit statuses a service manager understands (sysexits.h)
EXIT_CONFIG = 78
