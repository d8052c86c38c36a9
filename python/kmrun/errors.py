"""kmrun's Python errors: every failure the package raises on purpose is a
``KmrunError`` carrying ``.status``, the exit code ``kmrun`` would exit with
for the same failure (2 usage, 3 build, 4 system, 5 internal; 1 a thread
failed), and kmrun's own message; the subclasses only sort them.  A wrong
argument *type* is Python's ``TypeError`` (a programming error, not
kmrun's), a wrong argument *value* a ``UsageError`` (also a ``ValueError``).
"""

__all__ = [
    "KmrunError",
    "UsageError",
    "BuildError",
    "SystemError_",
    "InternalError",
    "LibraryNotFound",
    "ThreadFailed",
    "CommandTimeout",
    "FallbackError",
]

FAILED, USAGE, BUILD, SYSTEM, INTERNAL = 1, 2, 3, 4, 5


class KmrunError(Exception):
    """A kmrun failure: ``.status`` is kmrun's exit code for it (``kmrun
    run`` would exit with the same), ``.message`` (and ``str()``) its
    message, lowercase, naming what failed first."""

    def __init__(self, message, status=INTERNAL):
        super().__init__(message)
        self.message = message
        self.status = status


class UsageError(KmrunError, ValueError):
    """A bad argument, a bad manifest or a call out of order (status 2)."""

    def __init__(self, message, status=USAGE):
        super().__init__(message, status)


class BuildError(KmrunError):
    """A source did not compile, or an image was rejected (status 3)."""


class SystemError_(KmrunError):
    """I/O, a missing tool, an unusable cache, no memory, the wall timeout
    (status 4).  Exported as ``kmrun.SystemError`` too; named with an
    underscore here so as not to hide Python's own ``SystemError``."""


class InternalError(KmrunError):
    """A bug in kmrun (status 5)."""


class LibraryNotFound(KmrunError, ImportError):
    """``libkmrun.so`` could not be found or loaded at ``import kmrun``;
    the message says where the package looked and how to build it."""

    def __init__(self, message):
        KmrunError.__init__(self, message, SYSTEM)


class ThreadFailed(KmrunError):
    """A thread did not return (late, stopped, stuck, trapped, ...) or
    ended with a kmx library error (status 1, as ``kmrun run`` exits).

    ``.cluster``: the first failing thread's cluster; ``.results``:
    ``{cluster: ThreadResult}`` of every thread; ``.detail``: kmrun's
    message about the failing thread (the run JSON's ``message``, the trap
    or the stuck cores), or None when it has none.  The run has stopped:
    its regions, JSON and folder can still be read."""

    def __init__(self, cluster, results, detail):
        r = results[cluster]
        what = "did not return (state %r)" % r.state if not r.ran else "returned"
        if r.error is not None:
            what += " with the library error %r" % r.error
        message = "the thread on cluster %d %s" % (cluster, what)
        if detail:
            message += ": " + detail
        super().__init__(message, FAILED)
        self.cluster = cluster
        self.results = results
        self.detail = detail


class CommandTimeout(KmrunError, TimeoutError):
    """A command had no event within the wait's timeout (``run.wait``):
    ``handle`` is the command, ``timeout`` the seconds waited.  The run
    goes on; the command may still end (``run.poll``, ``run.wait``)."""

    def __init__(self, handle, timeout):
        super().__init__(
            "command %d had no event within %g s of the wait" % (handle, timeout), FAILED
        )
        self.handle = handle
        self.timeout = timeout


class FallbackError(KmrunError):
    """A thread's host fallback given as a Python function raised, or
    returned anything but ``(code, words)``: ``cluster`` is its thread's,
    and ``__cause__`` what it raised.  The thread ended with code -1."""

    def __init__(self, cluster, reason):
        super().__init__("the host fallback of the thread on cluster %d %s" % (cluster, reason),
                         FAILED)
        self.cluster = cluster


_BY_STATUS = {USAGE: UsageError, BUILD: BuildError, SYSTEM: SystemError_, INTERNAL: InternalError}


def error_for(status, message):
    """The KmrunError subclass instance for a C status and message."""
    return _BY_STATUS.get(status, KmrunError)(message, status)
