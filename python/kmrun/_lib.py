"""Finding and loading libkmrun.so, and its C API (include/kmrun.h) declared
for ctypes — the one place the package touches C.

The promise: ``load()`` returns the library with every kmrun_* function
given its argument and result types, or raises ``LibraryNotFound`` (an
``ImportError``) saying where it looked and how to build it.  Where it
looks, in order: ``$KMRUN_LIBRARY`` (a path: only that); the checkout's
``build/lib/libkmrun.so`` when the package is run from the checkout
(python/kmrun/ -> ../../build/lib/); the installation's
``PREFIX/lib`` (and ``PREFIX/lib/<multiarch>``) when the package is
installed under ``PREFIX/lib/python3/dist-packages``; then the dynamic
linker's (``ctypes.util.find_library``) and the usual lib folders.  The
environment is left alone: libkmrun finds its data (share/kmrun) beside
itself, the build tree's as an installation's (KMRUN_DATA overrides).  The
library is loaded with ``RTLD_GLOBAL``: the simulated grid dlopens a
program's kernels, which call km_device.h's functions back in it.
"""

import ctypes
import ctypes.util
import os

from .errors import LibraryNotFound

API_VERSION = 3  # include/kmrun.h's KMRUN_API_VERSION this package speaks

_HERE = os.path.dirname(os.path.abspath(__file__))
_SO = "libkmrun.so"


class Error(ctypes.Structure):
    """kmrun_error: opaque."""


class Program(ctypes.Structure):
    """kmrun_program: opaque."""


class Session(ctypes.Structure):
    """kmrun_session: opaque."""


class Run(ctypes.Structure):
    """kmrun_run: opaque."""


BUILD_OUTPUT = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.c_void_p)
PRINT = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_double, ctypes.c_void_p)
PROGRESS = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_uint32, ctypes.c_double, ctypes.c_void_p)


class Callbacks(ctypes.Structure):
    """kmrun_callbacks."""

    _fields_ = [
        ("build_output", BUILD_OUTPUT),
        ("print", PRINT),
        ("progress", PROGRESS),
        ("print_line", BUILD_OUTPUT),
        ("warning", BUILD_OUTPUT),
        ("ctx", ctypes.c_void_p),
    ]


class SessionOpts(ctypes.Structure):
    """kmrun_session_opts (its `size` set to this structure's size)."""

    _fields_ = [
        ("size", ctypes.c_size_t),
        ("backend", ctypes.c_int),
        ("cache_dir", ctypes.c_char_p),
        ("runs_dir", ctypes.c_char_p),
        ("no_run_folder", ctypes.c_bool),
        ("check_handover", ctypes.c_bool),
        ("wall_timeout_seconds", ctypes.c_double),
        ("callbacks", Callbacks),
        ("jobs", ctypes.c_int),
        ("trace_instructions", ctypes.c_bool),
        ("trace_cluster", ctypes.c_uint),
        ("trace_core", ctypes.c_uint),
        ("timeline", ctypes.c_char_p),
        ("diagnostic", ctypes.c_void_p),  # a C callback; the package sets none
        ("color", ctypes.c_int),
        ("debug_build", ctypes.c_bool),
    ]


class TraceOpts(ctypes.Structure):
    """kmrun_trace_opts (its `size` set to this structure's size)."""

    _fields_ = [
        ("size", ctypes.c_size_t),
        ("cores", ctypes.c_uint32),
        ("pc_ranges", ctypes.POINTER(ctypes.c_uint64)),
        ("npc_ranges", ctypes.c_size_t),
        ("functions", ctypes.POINTER(ctypes.c_char_p)),
        ("nfunctions", ctypes.c_size_t),
        ("limit", ctypes.c_uint64),
    ]


TRACE_ALL_CORES = 0xFFFFFFFF  # KMRUN_TRACE_ALL_CORES


class TraceInfo(ctypes.Structure):
    """kmrun_trace_info."""

    _fields_ = [
        ("cluster", ctypes.c_uint),
        ("core", ctypes.c_uint),
        ("file", ctypes.c_char_p),
        ("recorded", ctypes.c_uint64),
        ("seen", ctypes.c_uint64),
        ("cut", ctypes.c_bool),
        ("limit", ctypes.c_uint64),
    ]


class ThreadResult(ctypes.Structure):
    """kmrun_thread_result."""

    _fields_ = [
        ("cluster", ctypes.c_int),
        ("ran", ctypes.c_bool),
        ("state", ctypes.c_char_p),
        ("error", ctypes.c_char_p),
        ("has_code", ctypes.c_bool),
        ("code", ctypes.c_int32),
        ("words", ctypes.c_uint32 * 48),
        ("nwords", ctypes.c_uint),
        ("where", ctypes.c_uint32),
        ("where_microseconds", ctypes.c_double),
        ("microseconds", ctypes.c_double),
        ("message", ctypes.c_char_p),
    ]


class Command(ctypes.Structure):
    """kmrun_command."""

    _fields_ = [
        ("size", ctypes.c_size_t),
        ("handler", ctypes.c_char_p),
        ("first", ctypes.c_uint32),
        ("count", ctypes.c_uint32),
        ("args", ctypes.c_uint32 * 10),
        ("nargs", ctypes.c_uint),
        ("result", ctypes.c_bool),
        ("exclusive", ctypes.c_bool),
    ]


class CommandResult(ctypes.Structure):
    """kmrun_command_result."""

    _fields_ = [
        ("ended", ctypes.c_bool),
        ("event", ctypes.c_char_p),
        ("reason", ctypes.c_uint),
        ("has_result", ctypes.c_bool),
        ("result", ctypes.c_uint32),
        ("microseconds", ctypes.c_double),
        ("busy", ctypes.c_uint),
    ]


class RegionSpec(ctypes.Structure):
    """kmrun_region_spec."""

    _fields_ = [
        ("name", ctypes.c_char_p),
        ("size", ctypes.c_uint64),
        ("bytes", ctypes.c_void_p),
        ("nbytes", ctypes.c_size_t),
    ]


class ThreadSpec(ctypes.Structure):
    """kmrun_thread_spec (its `size` set by kmrun_thread_spec_init)."""

    _fields_ = [
        ("size", ctypes.c_size_t),
        ("clusters", ctypes.POINTER(ctypes.c_int)),
        ("nclusters", ctypes.c_size_t),
        ("sources", ctypes.POINTER(ctypes.c_char_p)),
        ("nsources", ctypes.c_size_t),
        ("regions", ctypes.POINTER(RegionSpec)),
        ("nregions", ctypes.c_size_t),
        ("shared", ctypes.POINTER(ctypes.c_char_p)),
        ("nshared", ctypes.c_size_t),
        ("words", ctypes.POINTER(ctypes.c_uint32)),
        ("nwords", ctypes.c_size_t),
        ("deadline_seconds", ctypes.c_double),
        ("prefetch", ctypes.c_int),
        ("ring", ctypes.c_int),
        ("compiler", ctypes.c_int),
        ("cflags", ctypes.POINTER(ctypes.c_char_p)),
        ("ncflags", ctypes.c_size_t),
    ]


class Serve(ctypes.Structure):
    """kmrun_serve."""

    _fields_ = [("core", ctypes.c_int), ("cluster", ctypes.c_int), ("x280_core", ctypes.c_int)]


class CommandSpec(ctypes.Structure):
    """kmrun_command_spec (its `size` set by kmrun_command_spec_init)."""

    _fields_ = [
        ("size", ctypes.c_size_t),
        ("handler", ctypes.c_char_p),
        ("first", ctypes.c_uint32),
        ("count", ctypes.c_uint32),
        ("args", ctypes.POINTER(ctypes.c_uint32)),
        ("nargs", ctypes.c_size_t),
        ("result", ctypes.c_bool),
        ("exclusive", ctypes.c_bool),
        ("wait", ctypes.c_bool),
    ]


class FallbackArgs(ctypes.Structure):
    """kmrun_fallback_args."""

    _fields_ = [
        ("cluster", ctypes.c_int),
        ("nregions", ctypes.c_uint),
        ("regions", ctypes.POINTER(ctypes.c_void_p)),
        ("region_bytes", ctypes.POINTER(ctypes.c_size_t)),
        ("region_names", ctypes.POINTER(ctypes.c_char_p)),
        ("region_banks", ctypes.POINTER(ctypes.c_uint)),
        ("region_addresses", ctypes.POINTER(ctypes.c_uint64)),
        ("words", ctypes.POINTER(ctypes.c_uint32)),
        ("nwords", ctypes.c_uint),
        ("run", ctypes.c_void_p),
    ]


# kmrun_host_fallback
FALLBACK = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.POINTER(FallbackArgs),
                            ctypes.POINTER(ctypes.c_uint32), ctypes.POINTER(ctypes.c_uint),
                            ctypes.c_void_p)

BACKENDS = {"sim": 0, "host": 1, "card": 2}
PREFETCH = {"default": 0, "keep": 1}
RING = {"remote": 0, "cached": 1}
COMPILERS = {"gcc": 0, "clang": 1}
PULL_MODES = {"count": 0, "log": 1, "replay": 2}

_P = ctypes.POINTER
_ERR = _P(_P(Error))
_STATUS = ctypes.c_int

# name: (result type, argument types)
_FUNCTIONS = {
    "kmrun_error_status": (_STATUS, [_P(Error)]),
    "kmrun_error_message": (ctypes.c_char_p, [_P(Error)]),
    "kmrun_error_free": (None, [_P(Error)]),
    "kmrun_version": (ctypes.c_char_p, []),
    "kmrun_api_version": (ctypes.c_int, []),
    "kmrun_program_load": (_STATUS, [ctypes.c_char_p, _P(_P(Program)), _ERR]),
    "kmrun_program_free": (None, [_P(Program)]),
    "kmrun_program_name": (ctypes.c_char_p, [_P(Program)]),
    "kmrun_program_clusters": (ctypes.c_size_t, [_P(Program)]),
    "kmrun_program_cluster": (ctypes.c_int, [_P(Program), ctypes.c_size_t]),
    # Programs built in code.
    "kmrun_program_new": (_STATUS, [ctypes.c_char_p, _P(_P(Program)), _ERR]),
    "kmrun_program_set_root": (_STATUS, [_P(Program), ctypes.c_char_p, _ERR]),
    "kmrun_program_kernels": (
        _STATUS,
        [_P(Program), _P(ctypes.c_char_p), ctypes.c_size_t, _P(ctypes.c_char_p), ctypes.c_size_t,
         _P(ctypes.c_char_p), ctypes.c_size_t, _ERR],
    ),
    "kmrun_program_region": (
        _STATUS,
        [_P(Program), ctypes.c_char_p, ctypes.c_uint64, ctypes.c_void_p, ctypes.c_size_t, _ERR],
    ),
    "kmrun_thread_spec_init": (None, [_P(ThreadSpec)]),
    "kmrun_program_thread": (_STATUS, [_P(Program), _P(ThreadSpec), _ERR]),
    "kmrun_program_host_fallback": (
        _STATUS, [_P(Program), ctypes.c_int, FALLBACK, ctypes.c_void_p, _ERR]),
    "kmrun_fallback_submit": (_STATUS, [ctypes.c_void_p, _P(Command), _P(ctypes.c_uint64), _ERR]),
    "kmrun_fallback_wait": (
        _STATUS, [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_double, _P(CommandResult), _ERR]),
    "kmrun_fallback_poll": (
        _STATUS, [ctypes.c_void_p, ctypes.c_uint64, _P(CommandResult), _ERR]),
    "kmrun_fallback_stop_requested": (ctypes.c_bool, [ctypes.c_void_p]),
    "kmrun_fallback_flush": (_STATUS, [ctypes.c_void_p, ctypes.c_uint, _ERR]),
    "kmrun_fallback_invalidate": (_STATUS, [ctypes.c_void_p, ctypes.c_uint, _ERR]),
    "kmrun_program_ports": (_STATUS, [_P(Program), _P(Serve), ctypes.c_size_t, _ERR]),
    "kmrun_program_pull": (
        _STATUS,
        [_P(Program), ctypes.c_uint32, ctypes.c_uint32, ctypes.c_int, ctypes.c_char_p, _ERR],
    ),
    "kmrun_command_spec_init": (None, [_P(CommandSpec)]),
    "kmrun_program_command": (_STATUS, [_P(Program), _P(CommandSpec), _ERR]),
    "kmrun_program_set_x280_mhz": (_STATUS, [_P(Program), ctypes.c_uint, _ERR]),
    "kmrun_program_set_check_handover": (_STATUS, [_P(Program), ctypes.c_bool, _ERR]),
    "kmrun_program_check": (_STATUS, [_P(Program), _ERR]),
    "kmrun_session_opts_init": (None, [_P(SessionOpts)]),
    "kmrun_session_open": (_STATUS, [_P(SessionOpts), _P(_P(Session)), _ERR]),
    "kmrun_session_close": (None, [_P(Session)]),
    "kmrun_trace_opts_init": (None, [_P(TraceOpts)]),
    "kmrun_session_set_trace": (_STATUS, [_P(Session), _P(TraceOpts), _ERR]),
    "kmrun_session_profile": (_STATUS, [_P(Session), ctypes.c_bool, _ERR]),
    "kmrun_session_load": (_STATUS, [_P(Session), _P(Program), _P(_P(Run)), _ERR]),
    "kmrun_run_wait": (_STATUS, [_P(Run), ctypes.c_double, _ERR]),
    "kmrun_run_stopped": (ctypes.c_bool, [_P(Run)]),
    "kmrun_run_ok": (ctypes.c_bool, [_P(Run)]),
    "kmrun_run_result": (_STATUS, [_P(Run), ctypes.c_size_t, _P(ThreadResult), _ERR]),
    "kmrun_run_json": (ctypes.c_char_p, [_P(Run)]),
    "kmrun_run_id": (ctypes.c_char_p, [_P(Run)]),
    "kmrun_run_folder": (ctypes.c_char_p, [_P(Run)]),
    "kmrun_run_folder_error": (ctypes.c_char_p, [_P(Run)]),
    "kmrun_run_profile_file": (ctypes.c_char_p, [_P(Run)]),
    "kmrun_run_traces": (ctypes.c_size_t, [_P(Run)]),
    "kmrun_run_trace_info": (_STATUS, [_P(Run), ctypes.c_size_t, _P(TraceInfo), _ERR]),
    "kmrun_run_trace_error": (ctypes.c_char_p, [_P(Run)]),
    "kmrun_run_read": (
        _STATUS,
        [_P(Run), ctypes.c_int, ctypes.c_char_p, _P(ctypes.c_void_p), _P(ctypes.c_size_t), _ERR],
    ),
    "kmrun_run_region_address": (
        _STATUS,
        [_P(Run), ctypes.c_int, ctypes.c_char_p, _P(ctypes.c_uint), _P(ctypes.c_uint64), _ERR],
    ),
    "kmrun_run_free": (None, [_P(Run)]),
    "kmrun_command_init": (None, [_P(Command), ctypes.c_char_p]),
    "kmrun_run_submit": (_STATUS, [_P(Run), _P(Command), _P(ctypes.c_uint64), _ERR]),
    "kmrun_run_wait_command": (
        _STATUS,
        [_P(Run), ctypes.c_uint64, ctypes.c_double, _P(CommandResult), _ERR],
    ),
    "kmrun_run_poll": (_STATUS, [_P(Run), ctypes.c_uint64, _P(CommandResult), _ERR]),
    "kmrun_run_thread_result": (
        _STATUS,
        [_P(Run), ctypes.c_size_t, ctypes.c_double, _P(ThreadResult), _ERR],
    ),
    "kmrun_run_thread_results": (_STATUS, [_P(Run), ctypes.c_double, _ERR]),
    "kmrun_run_stop": (_STATUS, [_P(Run), ctypes.c_double, _ERR]),
}


def _candidates():
    """(path or name, why) in the order they are tried, and whether the
    first is the only one ($KMRUN_LIBRARY)."""
    env = os.environ.get("KMRUN_LIBRARY")
    if env:
        # A path made absolute: the library finds its data folder beside
        # the path it was loaded from, which a later chdir must not move.
        if os.sep in env:
            env = os.path.abspath(env)
        return [(env, "$KMRUN_LIBRARY")], True
    out = []
    checkout = os.path.normpath(os.path.join(_HERE, "..", "..", "build", "lib", _SO))
    out.append((checkout, "the checkout's build tree"))
    # PREFIX/lib/python3/dist-packages/kmrun -> PREFIX/lib
    libdir = os.path.normpath(os.path.join(_HERE, "..", "..", ".."))
    if os.path.basename(os.path.dirname(_HERE)) in ("dist-packages", "site-packages"):
        out.append((os.path.join(libdir, _SO), "the installation's lib folder"))
        multiarch = getattr(__import__("sys").implementation, "_multiarch", None)
        if multiarch:
            out.append((os.path.join(libdir, multiarch, _SO), "the installation's lib folder"))
    found = ctypes.util.find_library("kmrun")
    if found:
        out.append((found, "the dynamic linker's (ctypes.util.find_library)"))
    for d in ("/usr/local/lib", "/usr/lib", "/usr/local/lib64", "/usr/lib64"):
        out.append((os.path.join(d, _SO), "a usual lib folder"))
    return out, False


def _declare(lib):
    for name, (restype, argtypes) in _FUNCTIONS.items():
        f = getattr(lib, name)
        f.restype = restype
        f.argtypes = argtypes
    return lib


def load():
    """The loaded, declared library, or LibraryNotFound."""
    candidates, only = _candidates()
    tried = []
    for path, why in candidates:
        is_path = os.sep in path
        if is_path and not os.path.exists(path):
            tried.append("%s (%s): no such file" % (path, why))
            continue
        try:
            lib = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
        except OSError as e:
            tried.append("%s (%s): %s" % (path, why, e))
            if only:
                break
            continue
        try:
            _declare(lib)
        except AttributeError as e:
            tried.append("%s (%s): not kmrun's library (%s)" % (path, why, e))
            continue
        version = lib.kmrun_api_version()
        if version != API_VERSION:
            raise LibraryNotFound(
                "%s has kmrun API version %d; this package speaks version %d: "
                "install the kmrun package and library of one version" % (path, version, API_VERSION)
            )
        return lib
    raise LibraryNotFound(
        "cannot load kmrun's library libkmrun.so; looked at:\n  "
        + "\n  ".join(tried)
        + "\nbuild it in the checkout with 'make libkmrun' (build/lib/libkmrun.so), "
        "install it with 'make install', or set KMRUN_LIBRARY to its path"
    )
