"""The package's objects over libkmrun's C API: Program, Session, Run,
ThreadRun and ThreadResult, named as the spec's host API ("X280 threads",
"From the host") names them.

Program is _program.py's.

The promise: each object is a thin, owned handle over its C counterpart
(freed by close() or when it is collected, in an order the C API allows);
nothing of a run but a thread's result is read before its stop; every
refusal is a KmrunError whose message names what is refused (kmrun's own
message where the C API gives one); a wrong type is a TypeError; no call
crashes or hangs.
"""

import ctypes
import json
import math
import os
import weakref
from dataclasses import dataclass
from typing import Optional, Tuple

from . import _lib
from .errors import CommandTimeout, KmrunError, ThreadFailed, UsageError, error_for

_C = _lib.load()



def _text(b):
    return None if b is None else b.decode("utf-8", "replace")


def _call(fn, *args):
    """fn(*args, &err); a failure raised as its KmrunError."""
    err = ctypes.POINTER(_lib.Error)()
    status = fn(*args, ctypes.byref(err))
    if status != 0:
        message = _text(_C.kmrun_error_message(err)) or "failed (no message)"
        _C.kmrun_error_free(err)
        raise error_for(status, message)


def _path(value, what):
    """A str or os.PathLike as bytes for C; None stays None."""
    if value is None:
        return None
    if not isinstance(value, (str, bytes, os.PathLike)):
        raise TypeError("%s must be a path (str or os.PathLike), not %s" % (what, type(value).__name__))
    value = os.fsencode(value)
    if not value:
        raise UsageError("%s is empty" % what)
    if b"\0" in value:
        raise UsageError("%s holds a NUL byte" % what)
    return value


def _seconds(value, what, default):
    """A positive, finite number of seconds (at most 1e6, as kmrun's
    --timeout), or `default` for None."""
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError("%s must be a number of seconds or None, not %s" % (what, type(value).__name__))
    value = float(value)
    if not math.isfinite(value) or value <= 0 or value > 1e6:
        raise UsageError(
            "invalid %s %r seconds (expected more than 0 and at most 1e6, or None for the default)"
            % (what, value)
        )
    return value


def _flag(value, what):
    if not isinstance(value, bool):
        raise TypeError("%s must be True or False, not %s" % (what, type(value).__name__))
    return value


def _name(value, what="a region's name"):
    if not isinstance(value, str):
        raise TypeError("%s must be a str, not %s" % (what, type(value).__name__))
    if not value or "\0" in value:
        raise UsageError("invalid %s %r" % (what, value))
    return value.encode("utf-8")


def _trace_cores(value):
    """trace_cores: "all", or cores as "C.K" strings (kmrun run
    --trace-cores' words) -> kmrun_trace_opts' bits; None: 0."""
    if value is None:
        return 0
    if isinstance(value, str):
        if value == "all":
            return _lib.TRACE_ALL_CORES
        value = value.split(",")
    try:
        cores = list(value)
    except TypeError:
        raise TypeError("trace_cores must be 'all' or an iterable of 'C.K' strings, not %s"
                        % type(value).__name__) from None
    bits = 0
    for core in cores:
        if not isinstance(core, str):
            raise TypeError("a traced core must be a 'C.K' str, not %s" % type(core).__name__)
        c, dot, k = core.partition(".")
        if not (dot and c.isdigit() and k.isdigit() and 1 <= int(c) <= 3 and int(k) <= 3):
            raise UsageError("invalid traced core %r (expected CLUSTER.CORE, clusters 1 to 3, "
                             "cores 0 to 3, as '1.0')" % core)
        bits |= 1 << ((int(c) - 1) * 4 + int(k))
    return bits


def _trace_opts(cores, pc, functions, limit):
    """A kmrun_trace_opts and what it points to (kept alive with it), or
    None when no trace option is set."""
    if cores is None and pc is None and functions is None and limit is None:
        return None
    o = _lib.TraceOpts()
    _C.kmrun_trace_opts_init(ctypes.byref(o))
    o.size = ctypes.sizeof(o)
    o.cores = _trace_cores(cores)
    keep = []
    if pc is not None:
        flat = []
        for r in pc:
            if not (isinstance(r, (tuple, list)) and len(r) == 2 and
                    all(isinstance(x, int) and not isinstance(x, bool) for x in r)):
                raise TypeError("trace_pc must hold (first, end) pairs of ints, not %r" % (r,))
            if not 0 <= r[0] < 1 << 64 or not 0 <= r[1] < 1 << 64:
                raise UsageError("invalid pc range %r (expected addresses of 64 bits)" % (r,))
            flat += list(r)
        arr = (ctypes.c_uint64 * max(1, len(flat)))(*flat)
        keep.append(arr)
        o.pc_ranges = ctypes.cast(arr, ctypes.POINTER(ctypes.c_uint64))
        o.npc_ranges = len(flat) // 2
    if functions is not None:
        if isinstance(functions, str):
            functions = [functions]
        names = [_name(f, "a traced function's name") for f in functions]
        arr = (ctypes.c_char_p * max(1, len(names)))(*names)
        keep.append(arr)
        o.functions = ctypes.cast(arr, ctypes.POINTER(ctypes.c_char_p))
        o.nfunctions = len(names)
    if limit is not None:
        if isinstance(limit, bool) or not isinstance(limit, int):
            raise TypeError("trace_limit must be a number of bytes, not %s" % type(limit).__name__)
        if not 0 < limit < 1 << 64:
            raise UsageError("invalid trace limit %r bytes (expected at least 4096)" % limit)
        o.limit = limit
    return (o, keep)


# ---- Programs ---------------------------------------------------------------
#
# Program is _program.py's (a program read from a manifest or built in code).


# ---- Results ----------------------------------------------------------------


@dataclass(frozen=True)
class TraceInfo:
    """A traced core's trace as its run stopped: the core ("1.0"), its
    file in the run folder (None: no folder), the instructions recorded
    and those retired while it recorded, whether its size bound (limit,
    bytes) cut it."""

    core: str
    file: Optional[str]
    recorded: int
    seen: int
    cut: bool
    limit: int


@dataclass(frozen=True)
class ThreadResult:
    """A thread's result on one cluster, as the run JSON gives it.

    ``cluster``; ``ran``: it returned in time (state "returned");
    ``state``: "returned", "late", "stopped", "stuck", "trapped", "args",
    "bank", "region" or "failed"; ``error``: the kmx library's first error
    ("parallel", "bank", ...) or None; ``code``: what kmx_main returned, or
    None when it did not return; ``words``: the result words it set (a
    tuple of ints); ``where``: the last progress marker, None for none;
    ``where_microseconds``: its time from the thread's start, None for
    none; ``microseconds``: start to end, None when not known.  Times are
    modeled device time on the simulated card, the host's on the host
    fallback."""

    cluster: int
    ran: bool
    state: str
    error: Optional[str]
    code: Optional[int]
    words: Tuple[int, ...]
    where: Optional[int]
    where_microseconds: Optional[float]
    microseconds: Optional[float]

    @property
    def failed(self):
        """True when the thread did not return or ended with a library
        error: what makes Run.thread_results raise ThreadFailed."""
        return not self.ran or self.error is not None

    @classmethod
    def _from_c(cls, r):
        return cls(
            cluster=r.cluster,
            ran=bool(r.ran),
            state=_text(r.state),
            error=_text(r.error),
            code=r.code if r.has_code else None,
            words=tuple(r.words[: r.nwords]),
            where=r.where or None,
            where_microseconds=r.where_microseconds if r.where_microseconds >= 0 else None,
            microseconds=r.microseconds if r.microseconds >= 0 else None,
        )


@dataclass(frozen=True)
class CommandResult:
    """A command's event (``run.wait``, ``run.poll``).

    ``handle``; ``event``: "done", "timeout" (the kernel's limit) or
    "rejected"; ``reason``: a rejection's KM_REASON_* (else 0);
    ``result``: the group leader's result word for a command submitted
    with ``result=True`` that is done, else None; ``microseconds``: from
    its submission to its event (modeled on the simulated card); ``busy``:
    times it was rejected busy and went in again."""

    handle: int
    event: str
    reason: int
    result: Optional[int]
    microseconds: float
    busy: int

    @property
    def done(self):
        """The event is "done"."""
        return self.event == "done"

    @classmethod
    def _from_c(cls, handle, c):
        return cls(
            handle=handle,
            event=_text(c.event),
            reason=c.reason,
            result=c.result if c.has_result else None,
            microseconds=c.microseconds,
            busy=c.busy,
        )


def _u32(value, what):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("%s must be an int, not %s" % (what, type(value).__name__))
    if not 0 <= value <= 0xFFFFFFFF:
        raise UsageError("%s %d is out of range (expected 0 to 2**32 - 1)" % (what, value))
    return value


def _command(handler, first, count, args, result, exclusive):
    """A kmrun_command from Run.submit's arguments, each checked."""
    c = _lib.Command()
    _C.kmrun_command_init(ctypes.byref(c), None)
    c.handler = _name(handler, "the handler's name")
    c.first = _u32(first, "first")
    c.count = _u32(count, "count")
    if isinstance(args, (str, bytes)) or not hasattr(args, "__iter__"):
        raise TypeError("args must be a sequence of ints, not %s" % type(args).__name__)
    args = list(args)
    if len(args) > 10:
        raise UsageError("%d args (expected at most 10, a0 to a9)" % len(args))
    for i, a in enumerate(args):
        c.args[i] = _u32(a, "args[%d]" % i)
    c.nargs = len(args)
    c.result = _flag(result, "result")
    c.exclusive = _flag(exclusive, "exclusive")
    return c


def _handle(handle):
    if isinstance(handle, bool) or not isinstance(handle, int):
        raise TypeError("a command's handle must be an int, not %s" % type(handle).__name__)
    if handle <= 0:
        raise UsageError("no command %d in this run (handles start at 1)" % handle)
    return handle


# ---- Sessions ---------------------------------------------------------------


class _Hooks:
    """The Python callbacks of a session and the ctypes objects C calls,
    kept alive as long as a session or run of theirs is; an exception a
    callback raised is kept and raised when the C call returns."""

    def __init__(self, on_print, on_progress, on_build_output):
        for f, what in ((on_print, "on_print"), (on_progress, "on_progress"),
                        (on_build_output, "on_build_output")):
            if f is not None and not callable(f):
                raise TypeError("%s must be callable or None, not %s" % (what, type(f).__name__))
        self.pending = None
        self.struct = _lib.Callbacks()
        self._keep = []
        if on_print is not None:
            def print_(core, text, us, ctx):
                self._guard(on_print, _text(core), _text(text), us)
            self.struct.print = self._hold(_lib.PRINT(print_))
        if on_progress is not None:
            def progress(cluster, marker, us, ctx):
                self._guard(on_progress, cluster, marker, us)
            self.struct.progress = self._hold(_lib.PROGRESS(progress))
        if on_build_output is not None:
            def build_output(line, ctx):
                self._guard(on_build_output, _text(line))
            self.struct.build_output = self._hold(_lib.BUILD_OUTPUT(build_output))

    def _hold(self, f):
        self._keep.append(f)
        return f

    def _guard(self, f, *args):
        if self.pending is not None:
            return
        try:
            f(*args)
        except BaseException as e:  # raised when the C call returns
            self.pending = e

    def call(self, fn, *args):
        """_call(fn, *args) with the callbacks armed: an exception a callback
        raised is raised when the call returns (a failure of the call then
        its __context__); nothing is left pending for the next call."""
        self.pending = None
        try:
            _call(fn, *args)
        finally:
            e, self.pending = self.pending, None
            if e is not None:
                raise e


class Session:
    """A session on a backend: where programs are loaded and run.

    ``Session(backend="sim")``: the simulated Blackhole (the default);
    ``"host"``: the host fallback (each thread's sources built for the host
    and run beside the simulated grid); ``"card"``: a real card, which this
    kmrun does not have (raises UsageError with kmrun's message).

    Options (keywords):
      cache=PATH         the build cache's folder (default: $KMRUN_CACHE,
                         else the user's cache folder, as kmrun(1) says)
      runs=PATH          where run folders are written (default:
                         $KMRUN_RUNS, else .kmrun/runs)
      run_folder=True    False: no run folder is written
      check_handover=False  the hand-over checker (kmrun run --check-handover)
      profile=False      every X280 core's cycles by function, line and
                         call stack, exactly, into the run folder
                         (kmrun run --profile; Run.profile_file); the
                         simulated card only
      trace_cores=None   instruction traces of these cores: "all", or
                         "C.K" strings such as ("1.0", "1.2") (kmrun run
                         --trace-cores; Run.traces); the simulated card only
      trace_pc=None      only pcs in these (first, end) ranges recorded
      trace_functions=None  only these functions' instructions recorded
      trace_limit=None   the most bytes a traced core's file takes
      wall_timeout=None  real seconds a run may take before it is cut short
                         (SystemError_, status 4); None: no limit
      on_print(core, text, microseconds)   each print of a core ("c1.2":
                         cluster 1, core 2; "t17": Tensix core 17)
      on_progress(cluster, marker, microseconds)  each new progress marker
      on_build_output(line)  each line a compiler wrote
    The callbacks are called on the calling thread, during load() and the
    waits; an exception one raises is raised by that call when it returns.
    The environment (KMRUN_CACHE, KMRUN_RUNS) is read when the session
    opens.

    A session is a context manager that closes it::

        with km.Session() as session:
            run = session.load(km.Program.from_manifest("program.yaml"))
            result = run.thread_result(timeout=10.0)
            table = run.thread.read("out")

    A session has one run at a time: close it (``run.close()``, or
    ``with session.load(program) as run:``) before loading another (a Run
    no longer referenced anywhere is freed, and does not count).  Runs
    stay readable after their session is closed.
    """

    def __init__(self, backend="sim", *, cache=None, runs=None, run_folder=True,
                 check_handover=False, wall_timeout=None, on_print=None, on_progress=None,
                 on_build_output=None, profile=False, trace_cores=None, trace_pc=None,
                 trace_functions=None, trace_limit=None):
        if not isinstance(backend, str):
            raise TypeError("backend must be a str, not %s" % type(backend).__name__)
        if backend not in _lib.BACKENDS:
            raise UsageError("unknown backend %r (expected 'sim', 'host' or 'card')" % backend)
        self.backend = backend
        self._handles = {}  # backend -> C session
        self._runs = {}     # backend -> a weak reference to its last Run
        self._closed = False
        opts = _lib.SessionOpts()
        _C.kmrun_session_opts_init(ctypes.byref(opts))
        opts.size = ctypes.sizeof(opts)
        opts.cache_dir = _path(cache, "cache")
        opts.runs_dir = _path(runs, "runs")
        opts.no_run_folder = not _flag(run_folder, "run_folder")
        opts.check_handover = _flag(check_handover, "check_handover")
        opts.wall_timeout_seconds = _seconds(wall_timeout, "wall timeout", 0.0)
        self._hooks = _Hooks(on_print, on_progress, on_build_output)
        opts.callbacks = self._hooks.struct
        self._opts = opts
        self._profile = _flag(profile, "profile")
        self._trace = _trace_opts(trace_cores, trace_pc, trace_functions, trace_limit)
        self._open(backend)

    def _open(self, backend):
        h = self._handles.get(backend)
        if h is None:
            self._opts.backend = _lib.BACKENDS[backend]
            h = ctypes.POINTER(_lib.Session)()
            _call(_C.kmrun_session_open, ctypes.byref(self._opts), ctypes.byref(h))
            try:
                if self._profile:
                    _call(_C.kmrun_session_profile, h, True)
                if self._trace is not None:
                    _call(_C.kmrun_session_set_trace, h, ctypes.byref(self._trace[0]))
            except BaseException:
                _C.kmrun_session_close(h)
                raise
            self._handles[backend] = h
        return h

    def load(self, program, thread=None):
        """Loads `program` (a Program) and starts its threads; returns its
        Run.  Builds the thread images through the cache (BuildError with
        the compiler's message), places the regions, writes the card.

        ``thread="host"`` runs the program's threads on the host fallback
        (their sources built for the host with kmx/host) instead of the
        simulated X280 clusters, as ``kmrun run --thread host``: in this
        kmrun that is a load on a host-backend session, opened beside this
        one with the same options the first time it is asked for.  (The
        spec's Python host_fallback callable is not in this kmrun.)
        ``thread=None``: the session's backend."""
        if self._closed:
            raise UsageError("the session is closed")
        from ._program import Program  # not at the top: _program imports this module
        if not isinstance(program, Program):
            raise TypeError("program must be a kmrun.Program, not %s" % type(program).__name__)
        if thread is not None and not isinstance(thread, str):
            raise TypeError("thread must be None or 'host', not %s" % type(thread).__name__)
        if thread not in (None, "host"):
            raise UsageError("unknown thread %r (expected None or 'host')" % thread)
        backend = thread or self.backend
        old = self._runs.get(backend)
        old = old() if old is not None else None
        if old is not None and old.handle:
            raise UsageError(
                "the session has a run already (one at a time): close it with run.close(), "
                "or load with 'with session.load(program) as run:', before loading another"
            )
        h = self._open(backend)
        out = ctypes.POINTER(_lib.Run)()
        try:
            program._fallback_error = None
            self._hooks.call(_C.kmrun_session_load, h, program._handle, ctypes.byref(out))
        except BaseException:
            if out:  # loaded, but a callback raised: not a run of the caller's
                _C.kmrun_run_free(out)
            raise
        run = Run(out, program, backend, self._hooks)
        self._runs[backend] = weakref.ref(run._h)
        return run

    def close(self):
        """Closes the session (again: nothing).  Its runs stay readable."""
        self._closed = True
        handles, self._handles = self._handles, {}
        for h in handles.values():
            if _C is not None:
                _C.kmrun_session_close(h)

    @property
    def closed(self):
        """Whether close() was called."""
        return self._closed

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        if hasattr(self, "_handles"):
            self.close()

    def __repr__(self):
        return "<kmrun.Session %s%s>" % (self.backend, " closed" if self._closed else "")


# ---- Runs -------------------------------------------------------------------


class _RunHandle:
    """A C run, owned: freed by close() or when the last of its Run,
    ThreadRuns and Regions lets it go (nothing of it refers back to them,
    so no cycle keeps it); it keeps its program alive, as the C run needs."""

    def __init__(self, handle, program):
        self.handle = handle
        self.program = program

    def live(self):
        if not self.handle:
            raise UsageError("the run is closed")
        return self.handle

    def close(self):
        h, self.handle = self.handle, None
        if h and _C is not None:
            _C.kmrun_run_free(h)

    def __del__(self):
        self.close()


def _address(run, cluster, name):
    raw = _name(name)
    bank, address = ctypes.c_uint(), ctypes.c_uint64()
    _call(_C.kmrun_run_region_address, run.live(), cluster, raw, ctypes.byref(bank),
          ctypes.byref(address))
    return bank.value, address.value


class Regions:
    """A thread's regions: ``address(name)`` is where one was placed."""

    def __init__(self, run, cluster):
        self._run = run
        self._cluster = cluster

    def address(self, name):
        """``(bank, bank address)`` of region `name`: where a Tensix kernel
        reaches it (``get_noc_addr_from_bank_id<true>(bank, address)``).
        Valid from the load on.  UsageError for a region the thread does not
        have (the message names it and suggests a near one)."""
        return _address(self._run, self._cluster, name)

    def __repr__(self):
        return "<kmrun.Regions of the thread on cluster %d>" % self._cluster


class ThreadRun:
    """The thread of a run on one cluster (``run.threads[cluster]``).

    ``cluster``; ``read(name)``: a region's bytes after the stop;
    ``regions.address(name)``: where a region was placed."""

    def __init__(self, run, cluster):
        self._run = run  # the _RunHandle
        self.cluster = cluster
        self.regions = Regions(run, cluster)

    def read(self, name):
        """The bytes of region `name` as the stop left them (a shared
        region: this thread's copy).  Raises UsageError before the stop
        (run.stop()), naming the region,
        and for a region the thread does not have."""
        _address(self._run, self.cluster, name)  # the region's name checked first
        h = self._run.live()
        if not _C.kmrun_run_stopped(h):
            raise UsageError(
                "region %r of the thread on cluster %d cannot be read before the run has "
                "stopped (run.stop())" % (name, self.cluster)
            )
        data, size = ctypes.c_void_p(), ctypes.c_size_t()
        _call(_C.kmrun_run_read, h, self.cluster, _name(name), ctypes.byref(data), ctypes.byref(size))
        return ctypes.string_at(data, size.value) if size.value else b""

    def __repr__(self):
        return "<kmrun.ThreadRun on cluster %d>" % self.cluster


class Run:
    """A program loaded into a session: its threads run until a wait stops
    them (``thread_result``, ``thread_results`` or ``stop``); then its
    results, run JSON, run folder and regions can be read.

    ``threads``: ``{cluster: ThreadRun}``; ``thread``: the lowest
    cluster's (None for a program with no thread).  ``json``: the run JSON, as ``kmrun run`` prints it;
    ``result``: that JSON parsed; ``id``, ``folder``, ``folder_error``,
    ``ok``, ``stopped``.  A context manager that closes the run (frees it:
    its session can then load another).

    While it goes, the host steers it: ``submit`` commands to the grid and
    ``wait`` for or ``poll`` their events, wait for a thread's result
    (``thread_result``, ``thread_results``), then ``stop``.  On the
    simulated card modeled time moves only inside these calls, so a host
    that does the same calls gets the same results and times."""

    def __init__(self, handle, program, backend, hooks):
        self._h = _RunHandle(handle, program)
        self.program = program
        self.backend = backend
        self._hooks = hooks
        self._results = None
        self._parsed = None
        self.threads = {c: ThreadRun(self._h, c) for c in program.clusters}
        self.thread = self.threads[min(self.threads)] if self.threads else None

    def _live(self):
        return self._h.live()

    def _c(self, fn, *args):
        """The C call with the session's callbacks armed; then what a host
        fallback given as a function raised meanwhile (FallbackError)."""
        try:
            self._hooks.call(fn, *args)
        finally:
            e, self.program._fallback_error = self.program._fallback_error, None
            if e is not None:
                raise e

    def _stopped_or_raise(self, what):
        h = self._live()
        if not _C.kmrun_run_stopped(h):
            raise UsageError("%s cannot be read before the run has stopped "
                             "(run.stop())" % what)
        return h

    def stop(self, timeout=None):
        """Stops the run (spec: "stops every thread still running before it
        stops the kernel"): each thread still running is asked to stop now
        and has `timeout` seconds (None: 1 s, the spec's) before it is
        "stuck"; then the kernel stops, and the run is read back: its
        regions, run JSON and run folder.  Again: nothing.  It does not
        raise ThreadFailed (thread_results does); SystemError_ when the
        session's wall timeout cut the run short."""
        t = _seconds(timeout, "timeout", 0.0)
        self._c(_C.kmrun_run_stop, self._live(), t)

    def wait_all(self, timeout=None):
        """Runs the program as ``kmrun run --timeout`` does: until every
        thread has a final state and every command of the program its
        event, the threads and the kernel stopped `timeout` seconds after
        the run's start (None: the largest deadline and 1 s, or 10 s);
        then the run has stopped."""
        t = _seconds(timeout, "timeout", 0.0)
        self._c(_C.kmrun_run_wait, self._live(), t)

    def _result_of(self, i):
        r = _lib.ThreadResult()
        _call(_C.kmrun_run_result, self._live(), i, ctypes.byref(r))
        return ThreadResult._from_c(r), _text(r.message)

    def thread_results(self, timeout=None):
        """Waits for every thread and returns ``{cluster: ThreadResult}``:
        one still running `timeout` seconds from now (None: the largest
        deadline and 1 s, or 10 s) is asked to stop, and one that does not
        within a second is "stuck".  Raises ThreadFailed when a thread did
        not return in time or ended with a library error (the others were
        asked to stop at once; ``.cluster`` the first failing,
        ``.results`` every thread's, ``.detail`` kmrun's message).  The
        kernel runs on: commands can still be submitted until stop()."""
        t = _seconds(timeout, "timeout", 0.0)
        self._c(_C.kmrun_run_thread_results, self._live(), t)
        out, details = {}, {}
        for i, c in enumerate(self.program.clusters):
            out[c], details[c] = self._result_of(i)
        for c, r in out.items():
            if r.failed:
                raise ThreadFailed(c, dict(out), details[c])
        return out

    def thread_result(self, timeout=None):
        """The result of ``run.thread`` (the lowest cluster's): waits for
        it as thread_results does for all (the others run on), and raises
        ThreadFailed when it did not return in time or ended with a
        library error."""
        if not self.program.clusters:
            raise UsageError("program %r has no thread: it has no thread result" % self.program.name)
        t = _seconds(timeout, "timeout", 0.0)
        r = _lib.ThreadResult()
        self._c(_C.kmrun_run_thread_result, self._live(), 0, t, ctypes.byref(r))
        result = ThreadResult._from_c(r)
        if result.failed:
            others = {}
            for i, c in enumerate(self.program.clusters):
                try:
                    others[c] = self._result_of(i)[0]
                except KmrunError:
                    pass  # still running: no result yet
            raise ThreadFailed(result.cluster, others, _text(r.message))
        return result

    def submit(self, handler, first=0, count=120, args=(), result=False, exclusive=False):
        """Submits a command to the Tensix grid through the host ring while
        the run goes and returns its handle (an int) for wait() and poll().
        `handler`: a built-in (nop, fill, copy, sum, spend) or one of the
        program's handlers; the group: `first` Tensix core and `count`
        cores (the whole grid by default); `args`: up to 10 ints (a0..a9);
        `result`: the event carries the leader's result word.  UsageError
        for an unknown handler (with the nearest name), a group outside the
        grid, too many args, after the stop."""
        c = _command(handler, first, count, args, result, exclusive)
        handle = ctypes.c_uint64()
        self._c(_C.kmrun_run_submit, self._live(), ctypes.byref(c), ctypes.byref(handle))
        return handle.value

    def wait(self, handle, timeout=1.0):
        """Runs until command `handle` has its event and returns it (a
        CommandResult); raises CommandTimeout when it has none within
        `timeout` seconds (modeled on the simulated card) — the run goes
        on.  After the stop: the command's event as the stop left it."""
        handle = _handle(handle)
        t = _seconds(timeout, "timeout", 1.0)
        c = _lib.CommandResult()
        self._c(_C.kmrun_run_wait_command, self._live(), handle, t, ctypes.byref(c))
        if not c.ended:
            raise CommandTimeout(handle, t)
        return CommandResult._from_c(handle, c)

    def poll(self, handle):
        """One look of the host (1 us of modeled time on the simulated
        card), then command `handle`'s event (a CommandResult), or None
        while it has none."""
        handle = _handle(handle)
        c = _lib.CommandResult()
        self._c(_C.kmrun_run_poll, self._live(), handle, ctypes.byref(c))
        return CommandResult._from_c(handle, c) if c.ended else None

    @property
    def stopped(self):
        """Whether the run has stopped (a wait returned)."""
        return bool(_C.kmrun_run_stopped(self._live()))

    @property
    def ok(self):
        """Whether every thread returned, every command was done and the
        card found nothing (what makes ``kmrun run`` exit 0).  UsageError
        before the stop."""
        return bool(_C.kmrun_run_ok(self._stopped_or_raise("whether the run is ok")))

    @property
    def json(self):
        """The run JSON (str), as ``kmrun run`` prints it.  UsageError
        before the stop."""
        return _text(_C.kmrun_run_json(self._stopped_or_raise("the run JSON")))

    @property
    def result(self):
        """The run JSON parsed (a dict).  UsageError before the stop."""
        if self._parsed is None:
            self._parsed = json.loads(self.json)
        return self._parsed

    @property
    def id(self):
        """The run's id ("20261205T181228Z-fad43b").  UsageError before
        the stop."""
        return _text(_C.kmrun_run_id(self._stopped_or_raise("the run's id")))

    @property
    def folder(self):
        """The run folder's path, or None when none was written
        (run_folder=False, or folder_error says why).  UsageError before
        the stop."""
        return _text(_C.kmrun_run_folder(self._stopped_or_raise("the run folder")))

    @property
    def folder_error(self):
        """Why no run folder was written when one was asked for, else
        None.  UsageError before the stop."""
        return _text(_C.kmrun_run_folder_error(self._stopped_or_raise("the run folder")))

    @property
    def profile_file(self):
        """The profile's folded file in the run folder (Session(profile=
        True)), or None when none was written.  UsageError before the
        stop."""
        return _text(_C.kmrun_run_profile_file(self._stopped_or_raise("the profile")))

    @property
    def traces(self):
        """Each traced core's trace as the run stopped (Session(
        trace_cores=...)): a list of TraceInfo, by cluster and core.
        UsageError before the stop."""
        h = self._stopped_or_raise("the traces")
        out = []
        for i in range(_C.kmrun_run_traces(h)):
            t = _lib.TraceInfo()
            _call(_C.kmrun_run_trace_info, h, i, ctypes.byref(t))
            out.append(TraceInfo("%u.%u" % (t.cluster, t.core), _text(t.file), t.recorded,
                                 t.seen, t.cut, t.limit))
        return out

    @property
    def trace_error(self):
        """Why the traces were not written when they were asked for, else
        None.  UsageError before the stop."""
        return _text(_C.kmrun_run_trace_error(self._stopped_or_raise("the traces")))

    @property
    def closed(self):
        """Whether close() was called."""
        return not self._h.handle

    def close(self):
        """Frees the run (again: nothing): its session can load another;
        nothing of it can be read any more."""
        self._h.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self):
        state = "closed" if self.closed else ("stopped" if self.stopped else "running")
        return "<kmrun.Run of %r on %s, %s>" % (self.program.name, self.backend, state)
