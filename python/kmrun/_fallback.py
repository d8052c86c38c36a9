"""A thread's host fallback given as a Python function (the spec's
``host_fallback(regions, words, run) -> (code, words)``), over the C API's
kmrun_program_host_fallback: on the host backend (``session.load(program,
thread="host")``) the thread runs the function instead of its sources, on
a thread of the library's, with the fallback runtime's rules.

The promise: each region reaches the function as a writable uint32 array
over the thread's own copy (a numpy array when numpy can be imported, else
a memoryview cast to 'I'), valid during the call; what the function
leaves in it is what ``run.thread.read`` gives after the stop (the runtime
writes the copies back to DRAM when the function returns).  ``run``
submits commands through the thread's own ring (FallbackRun).  A function
that raises, or returns anything but ``(code, words)``, ends the thread
with code -1 and makes the host's next call on the run raise
FallbackError, chained to what the function raised.
"""

import ctypes

from . import _lib
from ._core import _C, CommandResult, _call, _command, _handle, _seconds, _text
from .errors import CommandTimeout, FallbackError, UsageError

_numpy = None


def _u32_array(address, nbytes):
    """A writable uint32 array over nbytes at address."""
    global _numpy
    raw = (ctypes.c_uint32 * (nbytes // 4)).from_address(address) if address else \
        (ctypes.c_uint32 * 0)()
    if _numpy is None:
        try:
            import numpy
            _numpy = numpy
        except ImportError:
            _numpy = False
    if _numpy:
        return _numpy.frombuffer(raw, dtype=_numpy.uint32)
    return memoryview(raw).cast("B").cast("I")


class FallbackRun:
    """The run as a host fallback sees it: the thread's own ring.

    ``submit(handler, first=0, count=120, args=(), result=False)`` ->
    handle; ``wait(handle, timeout=1.0)`` -> CommandResult, or raises
    CommandTimeout after `timeout` seconds of the thread's clock;
    ``poll(handle)`` -> CommandResult or None; ``stop_requested``;
    ``region_address(id or name)`` -> ``(bank, bank address)``;
    ``flush(region)`` and ``invalidate(region)``, the hand-overs: the
    regions are the thread's copies, as its cache would hold them, so a
    handler sees what the function wrote only after a flush.  After
    the thread was asked to stop (or its deadline passed) the calls raise
    KmrunError: the function should return."""

    def __init__(self, handle, cluster, names=(), places=()):
        self._h = handle
        self.cluster = cluster
        self._names = list(names)
        self._places = list(places)

    def _id(self, region):
        if isinstance(region, str):
            if region not in self._names:
                raise UsageError("the thread on cluster %d has no region %r" % (self.cluster, region))
            region = self._names.index(region)
        if isinstance(region, bool) or not isinstance(region, int):
            raise TypeError("a region is its id or its name, not %s" % type(region).__name__)
        if not 0 <= region < len(self._places):
            raise UsageError("the thread on cluster %d has no region %d" % (self.cluster, region))
        return region

    def region_address(self, region):
        """``(bank, bank address)`` of region `region` (its id, or its
        name): where a Tensix handler reaches it."""
        return self._places[self._id(region)]

    def flush(self, region):
        """kmx_flush of region `region` (id or name): what the function
        wrote reaches DRAM, where a Tensix handler reads it."""
        _call(_C.kmrun_fallback_flush, self._h, self._id(region))

    def invalidate(self, region):
        """kmx_invalidate of region `region` (id or name): what DRAM holds
        (a Tensix handler wrote it) comes into the thread's copy."""
        _call(_C.kmrun_fallback_invalidate, self._h, self._id(region))

    def submit(self, handler, first=0, count=120, args=(), result=False, exclusive=False):
        """Submits a command through the thread's ring (kmx_submit) and
        returns its handle; the arguments as Run.submit's.  UsageError when
        the ring is full (wait for a command first)."""
        c = _command(handler, first, count, args, result, exclusive)
        handle = ctypes.c_uint64()
        _call(_C.kmrun_fallback_submit, self._h, ctypes.byref(c), ctypes.byref(handle))
        return handle.value

    def wait(self, handle, timeout=1.0):
        """Waits for command `handle`'s event (kmx_wait) and returns it (a
        CommandResult); CommandTimeout after `timeout` seconds of the
        thread's clock."""
        handle = _handle(handle)
        t = _seconds(timeout, "timeout", 1.0)
        c = _lib.CommandResult()
        _call(_C.kmrun_fallback_wait, self._h, handle, t, ctypes.byref(c))
        if not c.ended:
            raise CommandTimeout(handle, t)
        return CommandResult._from_c(handle, c)

    def poll(self, handle):
        """Command `handle`'s event if it came (a CommandResult), else
        None, without waiting (kmx_poll; other commands' events are kept
        for their own wait or poll)."""
        handle = _handle(handle)
        c = _lib.CommandResult()
        _call(_C.kmrun_fallback_poll, self._h, handle, ctypes.byref(c))
        return CommandResult._from_c(handle, c) if c.ended else None

    @property
    def stop_requested(self):
        """Whether the thread was asked to stop (the run's stop, another
        thread's failure, the timeout): the function should return."""
        return bool(_C.kmrun_fallback_stop_requested(self._h))

    def __repr__(self):
        return "<kmrun.FallbackRun of the thread on cluster %d>" % self.cluster


def _shape(value):
    """(code, words) from what a function returned, or a reason it is not."""
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        return None, "returned %r (expected (code, words))" % (value,)
    code, words = value
    if isinstance(code, bool) or not isinstance(code, int) or not -2**31 <= code < 2**31:
        return None, "returned the code %r (expected a 32-bit int)" % (code,)
    if isinstance(words, (str, bytes)) or not hasattr(words, "__iter__"):
        return None, "returned the words %r (expected a sequence of ints)" % (words,)
    words = list(words)
    if len(words) > 48:
        return None, "returned %d words (expected at most 48)" % len(words)
    for w in words:
        if isinstance(w, bool) or not hasattr(w, "__index__") or not 0 <= int(w) <= 0xFFFFFFFF:
            return None, "returned the word %r (expected an int 0 to 2**32 - 1)" % (w,)
    return (code, [int(w) for w in words]), None


class Installed:
    """A function installed as a thread's host fallback: the C trampoline
    kept alive with the program, and the first failure it saw."""

    def __init__(self, program, cluster, fn):
        self.program = program
        self.cluster = cluster
        self.fn = fn
        self.trampoline = _lib.FALLBACK(self._call)

    def _fail(self, cluster, reason, cause):
        if self.program._fallback_error is None:
            e = FallbackError(cluster, reason)
            e.__cause__ = cause
            self.program._fallback_error = e
        return -1

    def _call(self, args_p, words_p, nwords_p, ctx):
        a = args_p.contents
        nwords_p[0] = 0
        try:
            regions = [_u32_array(a.regions[i], a.region_bytes[i]) for i in range(a.nregions)]
            words = tuple(a.words[i] for i in range(a.nwords))
            names = [_text(a.region_names[i]) for i in range(a.nregions)]
            places = [(a.region_banks[i], a.region_addresses[i]) for i in range(a.nregions)]
            value = self.fn(regions, words, FallbackRun(a.run, a.cluster, names, places))
        except BaseException as e:  # raised by the host's next call on the run
            return self._fail(a.cluster, "raised %s: %s" % (type(e).__name__, e), e)
        shaped, why = _shape(value)
        if shaped is None:
            return self._fail(a.cluster, why, None)
        code, out = shaped
        for i, w in enumerate(out):
            words_p[i] = w
        nwords_p[0] = len(out)
        return code


def install(program, cluster, fn):
    """fn as the host fallback of program's thread on cluster (None: its
    sources again)."""
    if fn is None:
        _call(_C.kmrun_program_host_fallback, program._handle, cluster, _lib.FALLBACK(), None)
        program._fallbacks.pop(cluster, None)
        return
    installed = Installed(program, cluster, fn)
    _call(_C.kmrun_program_host_fallback, program._handle, cluster, installed.trampoline, None)
    program._fallbacks[cluster] = installed
