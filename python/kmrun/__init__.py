"""kmrun: run kmrun programs from Python — the spec's host API ("X280
threads", "From the host") over kmrun's C library, libkmrun.so, through
ctypes.  Pure Python, the standard library only (numpy is never needed).

    import kmrun as km

    program = km.Program.from_manifest("programs/01_hello/program.yaml")
    with km.Session() as session:              # backend="sim" or "host"
        run = session.load(program)            # builds, places, starts
        result = run.thread_result(timeout=10.0)   # waits for the thread
        run.stop()                             # the threads, then the kernel
        table = run.thread.read("out")         # a region's bytes

The promise: the names are the spec's (Program, Session, Run, ThreadRun,
ThreadResult, ThreadFailed); every failure is a KmrunError with kmrun's
exit code as ``.status`` and kmrun's message.  A program is read from a
manifest or built in code, as the spec writes it, and a thread's host
fallback may be a Python function:

    program = km.Program("hello", root="programs/01_hello")
    program.thread(cluster=1, sources=["thread/hello.c"], regions={"out": 4096},
                   words=[7, 6], deadline=1.0, host_fallback=hello)

While a run goes the host steers it: run.submit, run.wait and run.poll on
the host ring, run.thread_result, run.stop.  The library is found as
kmrun._lib says (KMRUN_LIBRARY, the checkout's build/lib, the
installation's lib folder, the linker's).
"""

from .errors import (
    BuildError,
    CommandTimeout,
    FallbackError,
    InternalError,
    KmrunError,
    LibraryNotFound,
    SystemError_,
    ThreadFailed,
    UsageError,
)
from ._core import _C, CommandResult, Regions, Run, Session, ThreadResult, ThreadRun, TraceInfo
from ._program import Program, Thread
from ._fallback import FallbackRun

for _cls in (Program, Thread, Session, Run, ThreadRun, Regions, ThreadResult, CommandResult, TraceInfo,
             KmrunError, UsageError, BuildError, SystemError_, InternalError, LibraryNotFound,
             ThreadFailed, CommandTimeout, FallbackError, FallbackRun):
    _cls.__module__ = __name__  # help() and reprs say kmrun.Session, not kmrun._core
del _cls

SystemError = SystemError_  # kmrun.SystemError: status 4 (not Python's builtin)

__version__ = _C.kmrun_version().decode()
api_version = _C.kmrun_api_version()

__all__ = [
    "Program",
    "Thread",
    "Session",
    "Run",
    "ThreadRun",
    "Regions",
    "ThreadResult",
    "CommandResult",
    "TraceInfo",
    "KmrunError",
    "UsageError",
    "BuildError",
    "SystemError",
    "SystemError_",
    "InternalError",
    "LibraryNotFound",
    "ThreadFailed",
    "CommandTimeout",
    "FallbackError",
    "FallbackRun",
    "__version__",
    "api_version",
]
