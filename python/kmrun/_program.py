"""Programs: read from a manifest (``Program.from_manifest``) or built in
code as the spec's host API writes them (``Program(name, kernels=...)``,
``Program.region``, ``Program.thread``), over the C API's
kmrun_program_load and kmrun_program_new.

The promise: a program built in code meets every rule a manifest meets,
checked by kmrun's own checker as each part is added (a refused part is
not added: the program stays usable), its errors naming the part
("thread 2: cluster 1 already runs thread 1 ..."); the rules of a whole
program are checked by ``check()`` and at the first load, after which it
cannot change.  A wrong type is a TypeError, a wrong value a UsageError;
numpy is never imported (any object with the buffer protocol is bytes).
"""

import ctypes
import os

from . import _lib
from ._core import _C, _call, _path, _text
from .errors import UsageError


def _strings(values, what):
    """A list of str / os.PathLike as a C array of char * (and the list
    of bytes it points into, to keep alive)."""
    if values is None:
        return None, []
    if isinstance(values, (str, bytes, os.PathLike)):
        values = [values]
    try:
        values = list(values)
    except TypeError:
        raise TypeError("%s must be a list of paths or names, not %s"
                        % (what, type(values).__name__)) from None
    raw = []
    for v in values:
        if not isinstance(v, (str, bytes, os.PathLike)):
            raise TypeError("%s must hold str or os.PathLike, not %s" % (what, type(v).__name__))
        b = os.fsencode(v)
        if b"\0" in b:
            raise UsageError("%s: %r holds a NUL byte" % (what, v))
        raw.append(b)
    return (ctypes.c_char_p * max(len(raw), 1))(*raw), raw


def _uint(value, what, bits=32):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("%s must be an int, not %s" % (what, type(value).__name__))
    if value < 0 or value >= 1 << bits:
        raise UsageError("bad %s %d (expected an unsigned %d-bit integer)" % (what, value, bits))
    return value


def _int(value, what):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("%s must be an int, not %s" % (what, type(value).__name__))
    if not -(1 << 31) <= value < 1 << 31:
        raise UsageError("bad %s %d (expected %s)" % (what, value,
                                                       "1, 2 or 3" if what == "cluster" else "an int"))
    return value


def _choice(value, names, what):
    if not isinstance(value, str):
        raise TypeError("%s must be a str, not %s" % (what, type(value).__name__))
    if value not in names:
        raise UsageError("bad %s %r (expected %s)" % (what, value, " or ".join(sorted(names))))
    return names[value]


def _region_value(name, value):
    """(size, bytes or None) of a region's value: a size in bytes (int),
    or initial contents (any buffer: bytes, bytearray, array.array,
    memoryview, a numpy array)."""
    if isinstance(value, bool):
        raise TypeError("region %r: a size must be an int, not bool" % name)
    if isinstance(value, int):
        if value < 0 or value >= 1 << 64:
            raise UsageError("bad size %d of region %r (expected more than 0 bytes, at most 4 GiB)"
                             % (value, name))
        return value, None
    try:
        data = memoryview(value).tobytes()
    except TypeError:
        raise TypeError("region %r must be a size (int) or initial contents (bytes, bytearray, "
                        "array.array, a numpy array: a buffer), not %s"
                        % (name, type(value).__name__)) from None
    return 0, data


def _region_name(name):
    if not isinstance(name, str):
        raise TypeError("a region's name must be a str, not %s" % type(name).__name__)
    if "\0" in name:
        raise UsageError("bad region name %r (expected a C identifier)" % name)
    return name.encode("utf-8")


class Thread:
    """A thread declared by ``Program.thread``, on one cluster.

    ``cluster``; ``sources``, ``regions`` (name: size or initial bytes),
    ``shared``, ``words``, ``deadline``; ``host_fallback``: the Python
    function given for the host fallback (kept here; see Session.load).
    A thread declared with ``clusters=`` is one Thread a cluster, the same
    declaration on each."""

    def __init__(self, cluster, sources, regions, shared, words, deadline, host_fallback):
        self.cluster = cluster
        self.sources = sources
        self.regions = regions
        self.shared = shared
        self.words = words
        self.deadline = deadline
        self.host_fallback = host_fallback

    def __repr__(self):
        return "<kmrun.Thread on cluster %d: %s>" % (self.cluster, ", ".join(map(str, self.sources)))


class Program:
    """A program: its threads, regions and kernels.

    ``Program(name, kernels=None, handlers=None)`` builds one in code, as
    the spec writes it: `kernels` the Tensix handlers' sources (a folder,
    standing for its .c files, or a list of files), `handlers` their names
    (each becomes HANDLER_<NAME>).  Keywords: ``kernel_cflags`` (extra
    compiler flags for the kernels), ``root`` (the folder relative paths
    are taken from; default: the current folder at the call),
    ``x280_mhz`` (1000 or 1750), ``check_handover``.  Then
    ``program.region(name, size_or_array)`` and ``program.thread(...)``
    declare its parts, ``program.ports(...)``, ``program.pull(...)`` and
    ``program.command(...)`` the others a manifest may have.

    ``Program.from_manifest(path)`` reads a manifest (kmrun-program(5)).

    ``program.name`` is its name, ``program.clusters`` the clusters its
    threads run on, ascending (a thread on several clusters counts once for
    each), ``program.threads`` the Thread objects declared in code.

    Each part is checked as it is added, by the rules a manifest meets,
    with the parts before it: UsageError with kmrun's message naming the
    part, and the part is not added.  A program's whole-program rules
    (something to run, each bank's room) are checked by ``check()`` and
    at its first load; a loaded program cannot change.
    """

    def __init__(self, name, kernels=None, handlers=None, *, kernel_cflags=None, root=None,
                 x280_mhz=None, check_handover=None):
        if not isinstance(name, str):
            raise TypeError("name must be a str, not %s" % type(name).__name__)
        if "\0" in name:
            raise UsageError("bad name %r (expected letters, digits, '_', '.' and '-')" % name)
        handle = ctypes.POINTER(_lib.Program)()
        _call(_C.kmrun_program_new, name.encode("utf-8"), ctypes.byref(handle))
        self._handle = handle
        self.path = None
        self.name = name
        self.threads = []
        self._fallbacks = {}  # cluster: the installed function (kmrun._fallback)
        self._fallback_error = None
        if root is not None:
            _call(_C.kmrun_program_set_root, handle, _path(root, "root"))
        if kernels is not None or handlers is not None or kernel_cflags is not None:
            self.kernels(kernels, handlers, kernel_cflags)
        if x280_mhz is not None:
            _call(_C.kmrun_program_set_x280_mhz, handle, _uint(x280_mhz, "x280_mhz"))
        if check_handover is not None:
            if not isinstance(check_handover, bool):
                raise TypeError("check_handover must be True or False, not %s"
                                % type(check_handover).__name__)
            _call(_C.kmrun_program_set_check_handover, handle, check_handover)

    @classmethod
    def from_manifest(cls, path):
        """Reads and checks the manifest at `path` (str or os.PathLike;
        relative paths in it are taken from its folder).  Raises UsageError
        with every error the manifest has (``file:line:col: message``, one a
        line), SystemError_ when it cannot be read."""
        raw = _path(path, "the manifest's path")
        handle = ctypes.POINTER(_lib.Program)()
        _call(_C.kmrun_program_load, raw, ctypes.byref(handle))
        self = cls.__new__(cls)
        self._handle = handle
        self.path = os.fsdecode(raw)
        self.name = _text(_C.kmrun_program_name(handle))
        self.threads = []
        self._fallbacks = {}
        self._fallback_error = None
        return self

    def set_host_fallback(self, cluster, fn):
        """The thread on `cluster` (on every cluster it is declared on)
        runs `fn` as its host fallback when loaded with ``thread="host"``:
        ``fn(regions, words, run) -> (code, words)``, the spec's.  Each
        region is a writable uint32 array over the thread's own copy (a
        numpy array when numpy can be imported, else a memoryview cast to
        'I'), valid during the call, ids in order (own regions, then
        shared ones); `words` a tuple of ints; `run` a FallbackRun, the
        thread's own ring (submit, wait, poll, stop_requested).  It returns
        the thread's code and up to 48 result words.  One that raises or
        returns another shape ends the thread with code -1, and the host's
        next call on the run raises FallbackError.  None: the sources
        again.  Works for a program read from a manifest too."""
        from ._fallback import install  # not at the top: _fallback imports _core
        if fn is not None and not callable(fn):
            raise TypeError("host_fallback must be callable or None, not %s" % type(fn).__name__)
        install(self, _int(cluster, "cluster"), fn)

    @property
    def clusters(self):
        """The clusters the program's threads run on, ascending (a tuple)."""
        n = _C.kmrun_program_clusters(self._handle)
        return tuple(_C.kmrun_program_cluster(self._handle, i) for i in range(n))

    def kernels(self, sources, handlers=None, cflags=None):
        """Sets the Tensix handlers (again: replaces them): `sources` a
        folder (its .c files) or a list of files, `handlers` their names,
        `cflags` extra compiler flags."""
        src, keep1 = _strings(sources, "kernels")
        names, keep2 = _strings(handlers, "handlers")
        flags, keep3 = _strings(cflags, "kernel_cflags")
        _call(_C.kmrun_program_kernels, self._handle, src, len(keep1), names, len(keep2),
              flags, len(keep3))

    def region(self, name, size_or_array):
        """Declares a program region, which threads name in ``shared=``
        (declare it before them): a size in bytes (zeros), or an array of
        its initial contents (bytes, bytearray, array.array, memoryview, a
        numpy array: any buffer, copied now)."""
        raw = _region_name(name)
        size, data = _region_value(name, size_or_array)
        _call(_C.kmrun_program_region, self._handle, raw, size, data, len(data or b""))

    def thread(self, cluster=None, *, clusters=None, sources=None, regions=None, words=None,
               shared=None, host_fallback=None, deadline=None, prefetch="default", ring="remote",
               compiler="gcc", cflags=None):
        """Declares a thread on `cluster` (1, 2 or 3) and returns it (a
        Thread); with ``clusters=(1, 2, 3)`` the same thread on each, and
        the list of them (each has its own copy of its regions).

        sources: its C sources (a list of paths); regions: ``{name: size or
        array}``, its own regions (ids 0.. in this order); shared: names of
        program regions (ids after its own); words: its words (unsigned
        32-bit ints, at most 64); deadline: seconds for the whole thread
        (None: none); host_fallback: the same function in Python,
        ``host_fallback(regions, words, run) -> (code, words)``, which the
        host backend runs instead of the sources (set_host_fallback); prefetch ("default" or "keep"), ring ("remote" or
        "cached"), compiler ("gcc" or "clang"), cflags: as a manifest's."""
        if cluster is not None and clusters is not None:
            raise UsageError("both cluster= and clusters= given (expected one of them)")
        if clusters is None:
            many = False
            clusters = [] if cluster is None else [cluster]
        else:
            many = True
            if isinstance(clusters, int):
                raise TypeError("clusters must be a list of clusters, not int (or give cluster=)")
            clusters = list(clusters)
        clusters = [_int(c, "cluster") for c in clusters]
        if sources is None:
            raise UsageError("missing sources= (expected a list of source files)")
        src, keep_src = _strings(sources, "sources")
        regions = {} if regions is None else regions
        if not isinstance(regions, dict):
            raise TypeError("regions must be a dict of names to sizes or arrays, not %s"
                            % type(regions).__name__)
        specs, keep = [], []
        for name, value in regions.items():
            raw = _region_name(name)
            size, data = _region_value(name, value)
            keep.append((raw, data))
            specs.append(_lib.RegionSpec(raw, size, ctypes.cast(ctypes.c_char_p(data), ctypes.c_void_p)
                                         if data is not None else None, len(data or b"")))
        shared_c, keep_shared = _strings(shared, "shared")
        words = [] if words is None else words
        if isinstance(words, (str, bytes)) or not hasattr(words, "__iter__"):
            raise TypeError("words must be a list of ints, not %s" % type(words).__name__)
        words = [_uint(w, "word") for w in words]
        if deadline is not None:
            if isinstance(deadline, bool) or not isinstance(deadline, (int, float)):
                raise TypeError("deadline must be a number of seconds or None, not %s"
                                % type(deadline).__name__)
            if deadline == 0:  # 0 is none to C: said, not taken as none
                raise UsageError("bad deadline 0 seconds (expected more than 0, or None for none)")
        flags_c, keep_flags = _strings(cflags, "cflags")
        if host_fallback is not None and not callable(host_fallback):
            raise TypeError("host_fallback must be callable or None, not %s"
                            % type(host_fallback).__name__)
        t = _lib.ThreadSpec()
        _C.kmrun_thread_spec_init(ctypes.byref(t))
        t.clusters = (ctypes.c_int * max(len(clusters), 1))(*clusters)
        t.nclusters = len(clusters)
        t.sources, t.nsources = src, len(keep_src)
        t.regions = (_lib.RegionSpec * max(len(specs), 1))(*specs)
        t.nregions = len(specs)
        t.shared, t.nshared = shared_c, len(keep_shared)
        t.words = (ctypes.c_uint32 * max(len(words), 1))(*words)
        t.nwords = len(words)
        t.deadline_seconds = float(deadline or 0)
        t.prefetch = _choice(prefetch, _lib.PREFETCH, "prefetch")
        t.ring = _choice(ring, _lib.RING, "ring")
        t.compiler = _choice(compiler, _lib.COMPILERS, "compiler")
        t.cflags, t.ncflags = flags_c, len(keep_flags)
        _call(_C.kmrun_program_thread, self._handle, ctypes.byref(t))
        if host_fallback is not None and clusters:
            self.set_host_fallback(clusters[0], host_fallback)
        made = [Thread(c, list(sources) if not isinstance(sources, (str, os.PathLike)) else [sources],
                       dict(regions), list(shared or []), tuple(words), deadline, host_fallback)
                for c in clusters]
        self.threads.extend(made)
        return made if many else made[0]

    def ports(self, serve=None):
        """X280 ports: the default dealing (serve None), or ``{core:
        (cluster, x280_core)}``, each Tensix core served by an X280 core of
        a thread's cluster.  After the threads it names."""
        items = []
        if serve is not None:
            if not isinstance(serve, dict):
                raise TypeError("serve must be a dict {core: (cluster, x280_core)}, not %s"
                                % type(serve).__name__)
            for core, pair in serve.items():
                if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                    raise TypeError("the server of core %r must be (cluster, x280_core)" % (core,))
                items.append(_lib.Serve(_int(core, "core"), _int(pair[0], "cluster"),
                                        _int(pair[1], "x280_core")))
        _call(_C.kmrun_program_ports, self._handle, (_lib.Serve * max(len(items), 1))(*items),
              len(items))

    def pull(self, units, per, mode="count", log=None):
        """The pull: `units` handed out `per` at a time; mode "count",
        "log" or "replay" (these two name the `log` region).  After the
        threads."""
        raw = None if log is None else _region_name(log)
        _call(_C.kmrun_program_pull, self._handle, _uint(units, "units"), _uint(per, "per"),
              _choice(mode, _lib.PULL_MODES, "mode"), raw)

    def command(self, handler, group=None, args=(), result=False, exclusive=False, wait=True):
        """A host-fed command (fed in the order added): a handler of the
        kernels or a built-in, its group ``(first, count)`` (None: the
        whole grid), its args (at most 10 unsigned 32-bit ints)."""
        if not isinstance(handler, str):
            raise TypeError("handler must be a str, not %s" % type(handler).__name__)
        c = _lib.CommandSpec()
        _C.kmrun_command_spec_init(ctypes.byref(c))
        c.handler = handler.encode("utf-8")
        if group is not None:
            if not isinstance(group, (tuple, list)) or len(group) != 2:
                raise TypeError("group must be (first, count)")
            c.first, c.count = _uint(group[0], "first"), _uint(group[1], "count")
        args = [_uint(a, "arg") for a in args]
        c.args = (ctypes.c_uint32 * max(len(args), 1))(*args)
        c.nargs = len(args)
        for what, v in (("result", result), ("exclusive", exclusive), ("wait", wait)):
            if not isinstance(v, bool):
                raise TypeError("%s must be True or False, not %s" % (what, type(v).__name__))
        c.result, c.exclusive, c.wait = result, exclusive, wait
        _call(_C.kmrun_program_command, self._handle, ctypes.byref(c))

    def check(self):
        """Checks the rules of a whole program (something to run, each
        bank's room), as the first load does: UsageError with every error."""
        _call(_C.kmrun_program_check, self._handle)

    def __repr__(self):
        where = "from %r" % self.path if self.path else "built in code"
        return "<kmrun.Program %r %s on clusters %s>" % (self.name, where, list(self.clusters))

    def __del__(self):
        h = getattr(self, "_handle", None)
        if h and _C is not None:
            self._handle = None
            _C.kmrun_program_free(h)
