#!/usr/bin/env bats
# The library for programs and `make install`: the staged layout (DESTDIR,
# PREFIX, BINDIR, LIBDIR, DATADIR, MANDIR), kmrun.pc read by pkg-config, a
# program built against the staged install both shared and static,
# libkmrun.so's exports (kmrun_* and the km_device.h functions the
# kernels call back, nothing else), the completion scripts, every write
# of an install under DESTDIR (traced), and `make uninstall` removing
# what install wrote and nothing else.  `make install` runs in the build's own folder and mode
# ($KMRUN_BUILD: build is MODE=release, build-asan MODE=asan, ...), so
# under `make test` it only copies what is built; the test program is
# compiled with the mode's flags (a sanitized library needs its runtime).

# shellcheck disable=SC2154 # output, status: set by run
load helpers

# The build folder as the Makefile's B (relative when it is in the
# checkout, as `make` names it) and its MODE.
build_b() {
    case $KMRUN_BUILD in
    "$KMRUN_TOP"/*) echo "${KMRUN_BUILD#"$KMRUN_TOP"/}" ;;
    *) echo "$KMRUN_BUILD" ;;
    esac
}
build_mode() {
    local base=${KMRUN_BUILD##*/}
    case $base in
    build-*) echo "${base#build-}" ;;
    *) echo release ;;
    esac
}
# kmake ARGS...: make in the checkout for this build (not the jobserver of
# a `make test` this runs under).
kmake() {
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
        make -s --no-print-directory -C "$KMRUN_TOP" MODE="$(build_mode)" B="$(build_b)" "$@"
}
# The SONAME VERSION gives: libkmrun.so.<major>, libkmrun.so.0.<minor> for 0.x.
soname() {
    local major minor
    IFS=. read -r major minor _ <<<"$KMRUN_VERSION"
    if [ "$major" = 0 ]; then echo "libkmrun.so.0.$minor"; else echo "libkmrun.so.$major"; fi
}
# The functions device/include/km_device.h declares (what kernels call;
# its static inline ones are its own).
device_functions() {
    grep -E '^[a-z].*\<km_[a-z0-9_]+\(' "$KMRUN_TOP/device/include/km_device.h" |
        grep -vE '^(typedef|static)' | grep -oE '\<km_[a-z0-9_]+\(' | tr -d '(' | sort -u
}

setup_file() {
    export STAGE=$BATS_FILE_TMPDIR/stage
    kmake install DESTDIR="$STAGE" PREFIX=/usr/local >"$BATS_FILE_TMPDIR/install.out" 2>&1
    echo $? >"$BATS_FILE_TMPDIR/install.status"
}

setup() {
    P=$STAGE/usr/local
    export PKG_CONFIG_PATH=$P/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$STAGE
    unset PKG_CONFIG_LIBDIR
    # The mode's compiler flags (-fsanitize=... for asan and ubsan).
    OPT=$(kmake print-OPT)
}

staged() {
    [ "$(cat "$BATS_FILE_TMPDIR/install.status")" = 0 ] ||
        { echo "make install failed:"; cat "$BATS_FILE_TMPDIR/install.out"; false; }
}

# A program of the API: its version, and with an argument, that argument
# dlopened as the grid dlopens the kernels' object.
write_program() {
    cat >"$BATS_TEST_TMPDIR/prog.c" <<'EOF'
#include <kmrun.h>

#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    printf("%s %d\n", kmrun_version(), kmrun_api_version());
    if (kmrun_api_version() != KMRUN_API_VERSION)
        return 1;
    if (argc > 1 && !dlopen(argv[1], RTLD_NOW | RTLD_LOCAL)) {
        printf("%s\n", dlerror());
        return 1;
    }
    return 0;
}
EOF
}

@test "install: make install DESTDIR= PREFIX=/usr/local stages the command, the header, the libraries, kmrun.pc, the data and the man pages" {
    staged
    # Nothing lands outside the prefix.
    [ "$(cd "$STAGE" && find . -mindepth 1 -maxdepth 2 | sort | tr '\n' ' ')" = './usr ./usr/local ' ]
    [ -x "$P/bin/kmrun" ]
    run -0 "$P/bin/kmrun" --version
    [ "${lines[0]}" = "kmrun $KMRUN_VERSION" ]
    cmp "$KMRUN_TOP/include/kmrun.h" "$P/include/kmrun.h"
    cmp "$KMRUN_TOP/include/kmrun_tools.h" "$P/include/kmrun_tools.h"
    [ -f "$P/lib/libkmrun.a" ]
    [ ! -L "$P/lib/libkmrun.a" ]
    [ -f "$P/lib/libkmrun.so.$KMRUN_VERSION" ]
    [ ! -L "$P/lib/libkmrun.so.$KMRUN_VERSION" ]
    [ "$(readlink "$P/lib/$(soname)")" = "libkmrun.so.$KMRUN_VERSION" ]
    [ "$(readlink "$P/lib/libkmrun.so")" = "$(soname)" ]
    run -0 readelf -d "$P/lib/libkmrun.so.$KMRUN_VERSION"
    [[ "$output" == *"Library soname: [$(soname)]"* ]] || { echo "$output"; false; }
    [ -f "$P/lib/pkgconfig/kmrun.pc" ]
    # The data kmrun finds beside itself: the runtime and the handlers' API.
    [ -f "$P/share/kmrun/kmx/lib/libkmx.a" ]
    [ -f "$P/share/kmrun/kmx/kmx.ld" ]
    cmp "$KMRUN_TOP/device/include/km_device.h" "$P/share/kmrun/device/include/km_device.h"
    [ -f "$P/share/kmrun/kmx/host/libkmx_host.a" ]
    # kmrun new's templates, which the staged kmrun finds beside itself.
    cmp "$KMRUN_TOP/templates/thread/program.yaml" "$P/share/kmrun/templates/thread/program.yaml"
    run -0 "$P/bin/kmrun" new --template host-fed "$BATS_TEST_TMPDIR/fed"
    [ -f "$BATS_TEST_TMPDIR/fed/kernels/weigh.c" ]
    # Every man page, in its section (man3/kmrun.3 among them once it exists).
    local page n=0
    for page in "$KMRUN_TOP"/man/*.[1-8]; do
        cmp "$page" "$P/share/man/man${page##*.}/${page##*/}"
        n=$((n + 1))
    done
    [ "$n" -ge 4 ]
    [ -f "$P/share/man/man1/kmrun.1" ]
    [ -f "$P/share/man/man3/km_device.3" ]
    # The completion scripts where bash-completion and Debian's zsh look,
    # as the built kmrun writes them.
    cmp <(kmrun completion bash) "$P/share/bash-completion/completions/kmrun"
    cmp <(kmrun completion zsh) "$P/share/zsh/vendor-completions/_kmrun"
}

@test "install: libkmrun.a holds every host object of lib/, device/sim/ and support/" {
    staged
    local b=$KMRUN_BUILD
    local a
    for a in libkm.a libsim.a libks.a; do ar t "$b/$a"; done | sort >"$BATS_TEST_TMPDIR/expect"
    ar t "$P/lib/libkmrun.a" | sort >"$BATS_TEST_TMPDIR/actual"
    diff -u "$BATS_TEST_TMPDIR/expect" "$BATS_TEST_TMPDIR/actual"
    [ "$(wc -l <"$BATS_TEST_TMPDIR/actual")" -ge 100 ]
}

@test "install: libkmrun.so exports kmrun_* and the km_device.h functions, and nothing else" {
    staged
    local so=$P/lib/libkmrun.so.$KMRUN_VERSION
    nm -D --defined-only "$so" | awk '{ print $NF }' | sort -u >"$BATS_TEST_TMPDIR/exported"
    device_functions >"$BATS_TEST_TMPDIR/device"
    [ "$(wc -l <"$BATS_TEST_TMPDIR/device")" -ge 20 ]
    # Every function a kernel may call is there...
    run comm -23 "$BATS_TEST_TMPDIR/device" "$BATS_TEST_TMPDIR/exported"
    [ -z "$output" ] || { echo "km_device.h functions libkmrun.so does not export: $output"; false; }
    # ...and nothing but them and kmrun_*.
    run bash -c "comm -13 '$BATS_TEST_TMPDIR/device' '$BATS_TEST_TMPDIR/exported' | grep -v '^kmrun_'"
    [ -z "$output" ] || { echo "exported beyond kmrun_* and km_device.h:"; echo "$output"; false; }
}

@test "install: every kmrun_ symbol libkmrun.so exports is declared in kmrun.h or kmrun_tools.h" {
    staged
    local s missing=
    for s in $(nm -D --defined-only "$P/lib/libkmrun.so.$KMRUN_VERSION" | awk '{ print $NF }' | grep '^kmrun_'); do
        cat "$KMRUN_TOP"/include/kmrun.h "$KMRUN_TOP"/include/kmrun_tools.h | grep -qE "\<$s\(" || missing="$missing $s"
    done
    [ -z "$missing" ] || { echo "exported, in neither include/kmrun.h nor kmrun_tools.h:$missing"; false; }
}

@test "install: pkg-config reads kmrun.pc: the staged paths, the version, a static link's libraries" {
    staged
    run -0 pkg-config --modversion kmrun
    [ "$output" = "$KMRUN_VERSION" ]
    # The file names the prefix itself; the sysroot only moves the flags.
    run -0 env -u PKG_CONFIG_SYSROOT_DIR pkg-config --variable=prefix kmrun
    [ "$output" = /usr/local ]
    run -0 pkg-config --cflags --libs kmrun
    read -ra words <<<"$output"
    [ "${words[*]}" = "-I$P/include -L$P/lib -lkmrun" ]
    run -0 pkg-config --static --libs kmrun
    read -ra words <<<"$output"
    local w
    for w in "-L$P/lib" -lkmrun -Wl,--export-dynamic -lyaml -lcjson -lcrypto -lm -ldl -lpthread; do
        [[ " ${words[*]} " == *" $w "* ]] || { echo "no $w in: $output"; false; }
    done
}

@test "install: a program built with pkg-config against the staged libkmrun.so runs, and kernels find km_device.h's functions in the library" {
    staged
    write_program
    cd "$BATS_TEST_TMPDIR"
    # shellcheck disable=SC2046,SC2086 # pkg-config's and the mode's words
    cc $OPT prog.c $(pkg-config --cflags --libs kmrun) -o prog
    run -0 readelf -d prog
    [[ "$output" == *"Shared library: [$(soname)]"* ]] || { echo "$output"; false; }
    run -0 env LD_LIBRARY_PATH="$P/lib" ./prog
    [ "$output" = "$KMRUN_VERSION $(grep -oP '#define KMRUN_API_VERSION \K[0-9]+' "$P/include/kmrun.h")" ]
    # A kernels' object as `kmrun build` links it (km_device.h's functions
    # left undefined), loaded as the grid loads it: the program itself has
    # no -rdynamic, the library brings the functions.
    cat >kernels.c <<'EOF'
#include "km_device.h"
KM_HANDLER(which) { km_set_result(core, km_core_id(core) + (unsigned)km_time_ps(core)); }
EOF
    cc -fPIC -shared -I"$P/share/kmrun/device/include" -I"$P/share/kmrun/kmx/include" \
        kernels.c -o kernels.so
    run -0 env LD_LIBRARY_PATH="$P/lib" ./prog "$PWD/kernels.so"
    # Without the library the same object does not load: the check can fail.
    cat >bare.c <<'EOF'
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv) { (void)argc; if (!dlopen(argv[1], RTLD_NOW | RTLD_LOCAL)) { puts(dlerror()); return 1; } return 0; }
EOF
    # shellcheck disable=SC2086
    cc $OPT bare.c -o bare -ldl
    run -1 ./bare "$PWD/kernels.so"
    [[ "$output" == *"undefined symbol: km_"* ]]
}

@test "install: a program built against the staged libkmrun.so runs a program with kernels, its data found beside the library" {
    staged
    cd "$BATS_TEST_TMPDIR"
    cat >run.c <<'EOF'
#include <kmrun.h>

#include <stdio.h>

int main(int argc, char **argv)
{
    kmrun_program *p = NULL;
    kmrun_session *s = NULL;
    kmrun_run *r = NULL;
    kmrun_error *err = NULL;
    kmrun_status st = argc == 2 ? kmrun_program_load(argv[1], &p, &err) : KMRUN_USAGE;
    if (st == KMRUN_OK)
        st = kmrun_session_open(NULL, &s, &err);
    if (st == KMRUN_OK)
        st = kmrun_session_load(s, p, &r, &err);
    if (st == KMRUN_OK)
        st = kmrun_run_wait(r, 0, &err);
    if (st != KMRUN_OK) {
        fprintf(stderr, "%s\n", kmrun_error_message(err));
    } else {
        kmrun_thread_result t;
        for (size_t i = 0; i < kmrun_program_clusters(p); i++)
            if (kmrun_run_result(r, i, &t, NULL) == KMRUN_OK)
                printf("%d %s %d\n", t.cluster, t.state, (int)t.code);
        printf("ok %d\n", kmrun_run_ok(r));
    }
    kmrun_error_free(err);
    kmrun_run_free(r);
    kmrun_session_close(s);
    kmrun_program_free(p);
    return (int)st;
}
EOF
    # shellcheck disable=SC2046,SC2086 # pkg-config's and the mode's words
    cc $OPT run.c $(pkg-config --cflags --libs kmrun) -o run
    # No KMRUN_DATA: the runtime and headers come from the staged
    # share/kmrun, found from where libkmrun.so was loaded.
    run -0 env -u KMRUN_DATA LD_LIBRARY_PATH="$P/lib" KMRUN_RUNS="$BATS_TEST_TMPDIR/runs" \
        ./run "$KMRUN_TOP/programs/03_ring/program.yaml"
    [[ "$output" == *"ok 1"* ]] || { echo "$output"; false; }
    [[ "$output" == *" returned "* ]] || { echo "$output"; false; }
}

@test "install: the staged Python package runs 05_from_host, its Python fallback built from the staged data" {
    staged
    # The staged package finds the staged library beside it, and the
    # library its data (kmx_fallback.c among it); a sanitized library's
    # runtime goes first into the interpreter (tests/python/env.sh).
    local san
    san=$(ldd "$P/lib/libkmrun.so" | awk '/lib(asan|ubsan)\.so/ { print $3 }' | paste -sd:)
    run -0 --separate-stderr env -u KMRUN_DATA -u KMRUN_LIBRARY \
        PYTHONPATH="$P/lib/python3/dist-packages" PYTHONDONTWRITEBYTECODE=1 \
        ${san:+LD_PRELOAD=$san ASAN_OPTIONS=detect_leaks=0} \
        KMRUN_RUNS="$BATS_TEST_TMPDIR/runs" python3 "$KMRUN_TOP/programs/05_from_host/host.py"
    [ "${lines[2]}" = "card and host fallback agree bit for bit" ] || { echo "$output"; false; }
    run -0 env PYTHONPATH="$P/lib/python3/dist-packages" PYTHONDONTWRITEBYTECODE=1 \
        ${san:+LD_PRELOAD=$san ASAN_OPTIONS=detect_leaks=0} \
        python3 -c 'import kmrun, os; print(os.path.dirname(kmrun.__file__))'
    [ "$output" = "$P/lib/python3/dist-packages/kmrun" ]
}

@test "install: a program built with pkg-config --static against the staged libkmrun.a runs without the shared library" {
    staged
    write_program
    cd "$BATS_TEST_TMPDIR"
    local libs
    libs=$(pkg-config --static --libs kmrun)
    # The archive, not the shared library beside it in the same folder.
    libs=${libs/-lkmrun/-Wl,-Bstatic -lkmrun -Wl,-Bdynamic}
    # shellcheck disable=SC2046,SC2086
    cc $OPT prog.c $(pkg-config --static --cflags kmrun) $libs -o prog
    run -0 readelf -d prog
    [[ "$output" != *libkmrun* ]] || { echo "$output"; false; }
    run -0 ./prog
    [ "$output" = "$KMRUN_VERSION $(grep -oP '#define KMRUN_API_VERSION \K[0-9]+' "$P/include/kmrun.h")" ]
    # Libs.private's -Wl,--export-dynamic: what the program holds of the
    # library is in its dynamic symbols, where kernels look.
    run -0 nm -D --defined-only prog
    [[ "$output" == *" kmrun_version"* ]] || { echo "$output"; false; }
}

@test "install: PREFIX and LIBDIR place the files, and kmrun.pc names them" {
    local stage=$BATS_TEST_TMPDIR/stage2
    run kmake install DESTDIR="$stage" PREFIX=/usr LIBDIR=/usr/lib/x86_64-linux-gnu
    # The build's kmrun.pc back to the default prefix, whatever happened.
    kmake libkmrun
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [ -x "$stage/usr/bin/kmrun" ]
    [ -f "$stage/usr/include/kmrun.h" ]
    local lib=$stage/usr/lib/x86_64-linux-gnu
    [ -f "$lib/libkmrun.a" ]
    [ -f "$lib/libkmrun.so.$KMRUN_VERSION" ]
    [ "$(readlink "$lib/libkmrun.so")" = "$(soname)" ]
    [ -f "$stage/usr/share/kmrun/kmx/lib/libkmx.a" ]
    [ -f "$stage/usr/share/man/man1/kmrun.1" ]
    [ ! -e "$stage/usr/local" ]
    [ ! -e "$stage/usr/lib/libkmrun.a" ]
    PKG_CONFIG_PATH=$lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$stage run -0 pkg-config --cflags --libs kmrun
    read -ra words <<<"$output"
    [ "${words[*]}" = "-I$stage/usr/include -L$lib -lkmrun" ]
    grep -qx 'prefix=/usr' "$lib/pkgconfig/kmrun.pc"
    # shellcheck disable=SC2016 # pkg-config's variable, as written
    grep -qx 'libdir=${prefix}/lib/x86_64-linux-gnu' "$lib/pkgconfig/kmrun.pc"
    # The build's own kmrun.pc names the default prefix again.
    grep -qx 'prefix=/usr/local' "$KMRUN_BUILD/lib/pkgconfig/kmrun.pc"
}

# The system calls that create, change or remove a name, and what moves a
# process's working folder (tests/cli/install_writes.py reads them).
TRACED=open,openat,creat,mkdir,mkdirat,rmdir,unlink,unlinkat,rename,renameat,renameat2,link,linkat
TRACED=$TRACED,symlink,symlinkat,truncate,chmod,fchmodat,chown,lchown,fchownat,utime,utimes,utimensat
TRACED=$TRACED,chdir,fchdir,clone,clone3,fork,vfork

# traced_make NAME ARGS...: kmake ARGS under strace (every process), its
# temporary files in $BATS_TEST_TMPDIR/tmp; then every write it made is
# checked to be under DESTDIR ($stage), the build folder or that tmp.
traced_make() {
    local name=$1 tmp=$BATS_TEST_TMPDIR/tmp
    shift
    mkdir -p "$tmp"
    # shellcheck disable=SC2016 # for the inner sh
    run env TMPDIR="$tmp" strace -ff -y -qq -s 4096 -e trace="$TRACED" -o "$tmp/$name" \
        sh -c 'echo $$ >"$0"; exec "$@"' "$tmp/$name.pid" \
        env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory -C "$KMRUN_TOP" \
        MODE="$(build_mode)" B="$(build_b)" "$@"
    [ "$status" -eq 0 ] || { echo "make $*: $output"; false; }
    run python3 "$KMRUN_TOP/tests/cli/install_writes.py" "$tmp/$name" "$(cat "$tmp/$name.pid")" \
        "$PWD" "$stage" "$(cd "$KMRUN_BUILD" && pwd -P)" "$tmp" /dev
    [ "$status" -eq 0 ] || { echo "make $*:"; echo "$output"; false; }
    # The trace saw the install (a trace that saw nothing proves nothing).
    [ "${lines[0]%% *}" -ge 60 ] || { echo "$output"; false; }
}

@test "install: make install DESTDIR=/tmp/x PREFIX=/opt/y writes nothing outside DESTDIR; make uninstall with the same leaves no file" {
    command -v strace >/dev/null || skip "strace is not installed (./setup installs it)"
    stage=$BATS_TEST_TMPDIR/x
    traced_make install install DESTDIR="$stage" PREFIX=/opt/y
    [ -x "$stage/opt/y/bin/kmrun" ]
    [ -f "$stage/opt/y/share/kmrun/kmx/lib/libkmx.a" ]
    [ -f "$stage/opt/y/share/bash-completion/completions/kmrun" ]
    [ -f "$stage/opt/y/share/zsh/vendor-completions/_kmrun" ]
    [ "$(cd "$stage" && find . -mindepth 1 -maxdepth 2)" = "./opt
./opt/y" ]
    [ ! -e /opt/y ]
    traced_make uninstall uninstall DESTDIR="$stage" PREFIX=/opt/y
    kmake libkmrun # the build's kmrun.pc back to the default prefix
    run find "$stage" -mindepth 1
    [ -z "$output" ] || { echo "left after uninstall:"; echo "$output"; false; }
}

@test "install: uninstall removes what install wrote and the folders it made, nothing else, after two installs" {
    stage=$BATS_TEST_TMPDIR/y
    local p=$stage/usr/local
    # Already there: a file beside kmrun, a man page beside kmrun.1, and an
    # empty folder the install writes into.
    mkdir -p "$p/bin" "$p/share/man/man1" "$p/include"
    echo other >"$p/bin/other"
    echo page >"$p/share/man/man1/other.1"
    find "$stage" | sort >"$BATS_TEST_TMPDIR/before"
    run kmake install DESTDIR="$stage"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [ -f "$p/include/kmrun.h" ]
    # Again, as an upgrade would: the record keeps the folders the first made.
    run kmake install DESTDIR="$stage"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    grep -qx "dir /usr/local/share/kmrun" "$p/share/kmrun/installed.list"
    grep -qx "file /usr/local/bin/kmrun" "$p/share/kmrun/installed.list"
    run kmake uninstall DESTDIR="$stage"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    find "$stage" | sort >"$BATS_TEST_TMPDIR/after"
    diff -u "$BATS_TEST_TMPDIR/before" "$BATS_TEST_TMPDIR/after"
    [ "$(cat "$p/bin/other")" = other ]
    # Nothing installed now: uninstall says so, exit non-zero.
    run kmake uninstall DESTDIR="$stage"
    [ "$status" -ne 0 ]
    [[ "$output" == *"no $p/share/kmrun/installed.list"* ]] || { echo "$output"; false; }
}

@test "install: BINDIR, DATADIR and MANDIR place the files, and the installed kmrun finds its data and completes" {
    stage=$BATS_TEST_TMPDIR/z
    run kmake install DESTDIR="$stage" PREFIX=/usr BINDIR=/usr/games DATADIR=/usr/share \
        MANDIR=/usr/man
    kmake libkmrun
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [ -x "$stage/usr/games/kmrun" ]
    [ ! -e "$stage/usr/bin" ]
    [ -f "$stage/usr/man/man1/kmrun.1" ]
    [ ! -e "$stage/usr/share/man" ]
    [ -f "$stage/usr/share/kmrun/kmx/kmx.ld" ]
    [ -f "$stage/usr/share/bash-completion/completions/kmrun" ]
    # The staged kmrun builds with the staged runtime, found from /usr/games.
    run -0 --separate-stderr env -u KMRUN_DATA "$stage/usr/games/kmrun" build --quiet \
        "$KMRUN_TOP/programs/01_hello/program.yaml"
    [ "$(jq -r '.threads[0].image.bytes > 0' <<<"$output")" = true ] || { echo "$stderr"; false; }
    # Its completion script, sourced in bash, completes kmrun's commands.
    run -0 bash -c "source '$stage/usr/share/bash-completion/completions/kmrun';
        COMP_WORDS=(kmrun val); COMP_CWORD=1; _kmrun; echo \"\${COMPREPLY[*]}\""
    [ "$output" = validate ]
}

@test "install: a BINDIR from which kmrun would not find DATADIR is refused before anything is written" {
    stage=$BATS_TEST_TMPDIR/w
    run kmake install DESTDIR="$stage" PREFIX=/usr BINDIR=/opt/tools/bin
    [ "$status" -ne 0 ]
    [[ "$output" == *"BINDIR=/opt/tools/bin: kmrun would look for its data beside it, in /opt/tools/share/kmrun, not in DATADIR=/usr/share"* ]] ||
        { echo "$output"; false; }
    [ ! -e "$stage" ]
    run kmake install DESTDIR="$stage" LIBDIR=/srv/lib
    [ "$status" -ne 0 ]
    [[ "$output" == *"LIBDIR=/srv/lib: libkmrun.so would look for its data in /srv/share/kmrun"* ]] ||
        { echo "$output"; false; }
    [ ! -e "$stage" ]
}
