"""The exceptions Sieve raises: every error of the library is a SieveError,
of the subclass that says what went wrong, carrying the library's message
and, for an error about one input of a batch, that input's index."""
from __future__ import annotations


class SieveError(Exception):
    """An error of the Sieve library."""

    def __init__(self, message: str, *, index: int | None = None):
        super().__init__(message)
        self.index = index


class InvalidArgument(SieveError, ValueError):
    """An option or parameter is not valid."""


class InvalidInput(SieveError, ValueError):
    """An input (text) is malformed; `index` says which one."""


class ModelNotFound(SieveError, FileNotFoundError):
    """A model folder or file that was named does not exist."""


class ParseError(SieveError, ValueError):
    """A file exists but its content is malformed."""


class Unsupported(SieveError):
    """Well-formed, but uses something Sieve does not implement."""


class RuntimeFailure(SieveError, RuntimeError):
    """ONNX Runtime or the operating system failed."""


class Overloaded(SieveError):
    """Too much work is queued: retry later."""


class Timeout(SieveError, TimeoutError):
    """The work's deadline passed before it was done."""


class Cancelled(SieveError):
    """The work was given up on."""
