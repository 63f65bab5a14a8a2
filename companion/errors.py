"""The one base class for errors a user should see as a clear line, never as a traceback."""


class CompanionError(Exception):
    """An error with a message meant for the person at the table or the terminal."""
