# Sourced by tests/python/run and tests/cli/helpers.bash (py_env): the
# environment in which a Python interpreter imports the checkout's kmrun
# package over BUILD's libkmrun.so.  Needs $top (the checkout) and $build
# (the build folder, absolute).
export KMRUN_BUILD=$build
export KMRUN_LIBRARY=${KMRUN_LIBRARY:-$build/lib/libkmrun.so}
export PYTHONPATH=$top/python${PYTHONPATH:+:$PYTHONPATH}
# A sanitized library (make MODE=asan, MODE=ubsan) needs its runtime
# loaded before anything else in the interpreter: preloaded, and with the
# leak check off (an interpreter keeps what it allocates to its end).
san=$(ldd "$KMRUN_LIBRARY" 2>/dev/null | awk '/lib(asan|ubsan)\.so/ { print $3 }' | paste -sd:)
if [ -n "$san" ]; then
    export LD_PRELOAD=$san${LD_PRELOAD:+:$LD_PRELOAD}
    export ASAN_OPTIONS=detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}
fi
export PYTHONDONTWRITEBYTECODE=1
