# kmrun: the host tool (cmd/, lib/), the library for programs (include/kmrun.h),
# the X280 thread runtime cross-compiled for RV64 (kmx/), and the tests.
# Everything lands under $(B):
#   $(B)/bin/kmrun                  the command
#   $(B)/lib/libkmrun.a             the library, static (every host object
#                                   of lib/, device/sim/ and support/)
#   $(B)/lib/libkmrun.so.$(VERSION) the library, shared, exporting only
#                                   kmrun_* and km_device.h's functions, and
#   $(B)/lib/$(SONAME), libkmrun.so   its links (SONAME: libkmrun.so.<major>,
#                                   libkmrun.so.0.<minor> while the major is 0)
#   $(B)/lib/pkgconfig/kmrun.pc     for pkg-config (PREFIX's paths)
#   $(B)/share/kmrun/kmx/...        the runtime a thread image links against
#   $(B)/share/kmrun/device/...     the Tensix handlers' headers
#   $(B)/share/kmrun/templates/...  `kmrun new`'s templates (templates/)
#   $(B)/share/bash-completion/completions/kmrun, $(B)/share/zsh/
#     vendor-completions/_kmrun     the completion scripts, written by the
#                                   built kmrun (kmrun completion bash|zsh)
# which is also the installed layout (kmrun finds share/ beside bin/),
# with include/kmrun.h in $(PREFIX)/include and the man pages in
# $(PREFIX)/share/man.
#
#   make                 build (MODE=release; MODE=asan|ubsan|debug|distro too);
#                        all of the above but the library
#   make libkmrun        the library: the archive, the shared one, kmrun.pc.
#                        Not in `make`: the shared one compiles every source
#                        of lib/, device/sim/ and support/ a second time,
#                        -fPIC ($(B)/pic-lib/), which took 27 s of CPU (30 s
#                        on two busy cores) against 60 s for all of `make`;
#                        `make test` and `make install` build it
#   make test            every test but the long ones, two test programs at
#                        a time (KMRUN_JOBS=N for N), a progress line as
#                        each ends; ends with "N passed, N failed"
#   make test-long       the tests too long for `make test` (tests/long/:
#                        every example's stats, kmrun check on a stack
#                        overflow); CI runs it after `make test`
#   make install         into PREFIX (/usr/local); for packagers, as
#                        debian/rules or an rpm spec calls it:
#     DESTDIR=/tmp/stage   staged: every path below is under it (kmrun.pc
#                          does not name it)
#     PREFIX=/usr          bin/, include/, lib/, share/ under it
#     BINDIR=/usr/bin      kmrun (default $(PREFIX)/bin)
#     LIBDIR=/usr/lib/x86_64-linux-gnu   the libraries and pkgconfig/
#                          (default $(PREFIX)/lib); INCLUDEDIR too
#     DATADIR=/usr/share   kmrun/ (the runtime threads link against, the
#                          handlers' headers), the completion scripts
#                          (bash-completion/completions/kmrun,
#                          zsh/vendor-completions/_kmrun) and, by
#                          default, MANDIR (DATADIR/man)
#     PYTHONDIR            the Python package (Debian's dist-packages)
#   kmrun, and libkmrun.so, find their data as share/kmrun one or two
#   folders above their own (lib/build/km_toolchain.c), not where make
#   put it: DATADIR must be the share/ beside BINDIR's folder and LIBDIR's
#   (or one above), else install refuses (KMRUN_DATA at run time is the
#   way round it).
#   make uninstall       the same variables: removes what that install
#                        wrote (its record, DATADIR/kmrun/installed.list)
#                        and the folders it made that are then empty

.SUFFIXES:
.DELETE_ON_ERROR:

# `make V=1` shows the commands; by default one line per step.
V ?= 0
ifeq ($(V),0)
Q := @
say = @printf '  %-7s %s\n' '$(1)' '$(2)';
else
Q :=
say :=
endif

MODE ?= release
ifeq ($(MODE),release)
B ?= build
else
B ?= build-$(MODE)
endif

VERSION := $(shell cat VERSION)
CC ?= cc
OPT_release := -O2 -g
OPT_debug := -O0 -g3
OPT_asan := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
OPT_ubsan := -O1 -g -fsanitize=undefined -fno-sanitize-recover=all
# MODE=distro: the flags Debian's and Ubuntu's packages build with
# (fortified glibc, the stack protector, format checks, relro), as
# dpkg-buildflags gives them, or Debian 12's where it is missing; what a
# package's build does to kmrun, tried before a packager meets it.  CFLAGS,
# CPPFLAGS or LDFLAGS given to make, or in the environment as debian/rules
# exports them, win.
OPT_distro := -O2 -g
ifeq ($(MODE),distro)
DEBIAN12_CFLAGS := -g -O2 -ffile-prefix-map=$(CURDIR)=. -fstack-protector-strong \
  -Wformat -Werror=format-security
DEBIAN12_CPPFLAGS := -Wdate-time -D_FORTIFY_SOURCE=2
DEBIAN12_LDFLAGS := -Wl,-z,relro
dpkg_flags = $(or $(shell dpkg-buildflags --get $(1) 2>/dev/null),$(DEBIAN12_$(1)))
ifeq ($(origin CFLAGS),undefined)
CFLAGS := $(call dpkg_flags,CFLAGS)
endif
ifeq ($(origin CPPFLAGS),undefined)
CPPFLAGS := $(call dpkg_flags,CPPFLAGS)
endif
ifeq ($(origin LDFLAGS),undefined)
LDFLAGS := $(call dpkg_flags,LDFLAGS)
endif
endif
OPT := $(OPT_$(MODE))
ifeq ($(OPT),)
$(error unknown MODE '$(MODE)' (expected release, debug, asan, ubsan or distro))
endif

# The user's CPPFLAGS, CFLAGS and LDFLAGS reach everything built here with
# the host compiler: kmrun, its unit tests and libkmx_host.a, which ships.
# Not the RV64 runtime (RV_CFLAGS): another compiler, freestanding, with no
# libc behind -fstack-protector or _FORTIFY_SOURCE.  Nor what kmrun
# compiles when it runs (lib/build/km_build.c says why).
HOST_CFLAGS := -std=c11 -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter \
  -D_GNU_SOURCE -DKMRUN_VERSION='"$(VERSION)"' -MMD -MP $(OPT) $(CPPFLAGS) $(CFLAGS)

# Who may include whom: every folder of sources is a module that compiles
# with its own folder and the include folders of what it may use, listed
# in USES_<folder>, and no more; so an include that runs the wrong way
# does not build.  A folder with no USES_ line does not build either.
#   support/     below everything: ELF reading, text, the status type
#   device/sim/  the simulated card; above it only its API
#                (device/sim/include/) is visible
#   lib/         the host library: the card's API and exec's, never a part
#   cmd/         the command: include/ alone (kmrun.h, kmrun_tools.h), the public API
# `make -s print-inc FOLDER=lib/run` prints a folder's flags
# (tests/cli/layers.bats).
CONTRACT := kmx/include device/include
USES_support :=

# device/sim/: the simulated card, one folder a part (device/sim/README.md,
# "Layout").  Each part sees the parts below it: a list, bottom up.
SIM_API := device/sim/include $(CONTRACT) support
S := device/sim
USES_$(S)/memory := $(SIM_API)
USES_$(S)/hart := $(S)/memory $(SIM_API)
USES_$(S)/fpu := $(S)/hart $(S)/memory $(SIM_API)
USES_$(S)/vector := $(S)/fpu $(S)/hart $(S)/memory $(SIM_API)
USES_$(S)/cluster := $(S)/hart $(S)/memory $(SIM_API)
USES_$(S)/exec := $(S)/hart $(S)/memory $(SIM_API)
USES_$(S)/grid := $(S)/memory $(SIM_API)
USES_$(S)/dispatcher := $(S)/memory $(SIM_API)
USES_$(S)/card := $(S)/cluster $(S)/grid $(S)/dispatcher $(S)/hart $(S)/memory $(SIM_API)

# lib/: the host library, one module a folder, each above the folders it
# names (README.md, "The host library's folders", is this table):
#   base/      errors, files, processes, suggestions: what every folder needs
#   manifest/  the program: YAML, the manifest, handlers, ports, the plan
#   remote/    the cache's remote storage: a Redis server (hiredis), its
#              values packed and checked
#   build/     images through the cache, the toolchain, the images' checks
#   rundir/    the run folder
#   observe/   what a run shows of its threads' code: source lines
#   run/       the session, the run driver, the run JSON, the card's findings
#   backends/  the sim backend and the host fallback (km_session_open)
#   gdb/       the GDB remote server and its targets on simulated harts
#   expect/    a run held to its manifest's expect:, and kmrun test's
#              programs, shards, reports and --bless (its in-place rewrite)
#   api/       the public C API (include/kmrun.h, the public API's folder):
#              a program's host side over the folders below it
LIB_API := kmx/host device/sim/include $(CONTRACT) support
USES_lib/base := $(LIB_API)
USES_lib/manifest := lib/base $(LIB_API)
USES_lib/remote := lib/base $(LIB_API)
USES_lib/build := lib/remote lib/manifest lib/base $(LIB_API)
USES_lib/rundir := lib/base $(LIB_API)
USES_lib/observe := lib/base $(LIB_API)
USES_lib/run := lib/observe lib/rundir lib/build lib/remote lib/manifest lib/base $(LIB_API)
USES_lib/backends := lib/run lib/observe lib/rundir lib/build lib/remote lib/manifest lib/base \
  $(LIB_API)
USES_lib/gdb := $(LIB_API)
USES_lib/expect := lib/manifest lib/base $(LIB_API)
USES_lib/api := include lib/expect lib/gdb lib/backends lib/run lib/observe lib/rundir lib/build lib/remote \
  lib/manifest lib/base $(LIB_API)

USES_cmd := include
# cmd/inspect/: the commands that look into a run that has stopped (its
# run folder): read-region, profile, trace; they see cmd/'s own headers
# (cmd.h, the table).
USES_cmd/inspect := cmd include
# cmd/verify/: the commands that hold runs to what they should give: test
# (each program against its expect:, its runs in child processes) and
# check (the simulated card against the host fallback); cmd/'s headers too.
USES_cmd/verify := cmd include

inc_of = $(if $(filter undefined,$(origin USES_$(1))),$(error $(1)/ is no module: \
  give it a USES_$(1) line in the Makefile),$(foreach d,$(1) $(USES_$(1)),-I$(d)))
src_inc = $(call inc_of,$(patsubst %/,%,$(dir $(1))))
# The layers as a whole, for what links against one (the fuzzers, the tests).
SUPPORT_INC := -Isupport
LIB_FOLDERS = $(patsubst %/,%,$(sort $(dir $(LIB_SRC))))
SIM_FOLDERS = $(patsubst %/,%,$(sort $(dir $(SIM_SRC))))
LIB_INC = $(foreach d,$(LIB_FOLDERS),-I$(d)) $(foreach d,$(LIB_API),-I$(d))
SIM_INC = $(foreach d,$(SIM_FOLDERS),-I$(d)) $(foreach d,$(SIM_API),-I$(d))
CMD_INC = $(call inc_of,cmd)
# Unit tests look inside what they test, and share the helpers of tests/unit.
TEST_INC = -Itests/unit $(foreach d,$(sort $(dir $(UNIT_SRC))),-I$(d)) -Iinclude $(LIB_INC) \
  $(SIM_INC)
# -rdynamic, -ldl: the grid dlopens the kernels' object, whose handlers call
# the km_device.h functions of the program that loads it (sim_grid.h): the
# object is linked with those left undefined, and dlopen looks them up in
# the global scope, the program and the libraries it was linked with.
# kmrun and the tests hold the functions themselves (libsim.a) and export
# them with -rdynamic.  A program linked with libkmrun.so finds them in the
# library, which exports them (lib/libkmrun.map) and, as the program's
# dependency, is in the global scope; a program linked with libkmrun.a
# holds them and must export them like kmrun: kmrun.pc's Libs.private has
# -Wl,--export-dynamic (the libkmrun block below).  A program that
# dlopens libkmrun.so without RTLD_GLOBAL is made to work by the grid,
# which makes the object holding the functions global first.
# The remote storage (lib/remote/) talks to Redis through hiredis, and packs
# its values with zstd when libzstd is there when kmrun is built (else it
# stores them as they are, and says so in each value's header).
HIREDIS_CFLAGS := $(shell pkg-config --cflags hiredis 2>/dev/null)
HIREDIS_LIBS := $(or $(shell pkg-config --libs hiredis 2>/dev/null),-lhiredis)
ZSTD_LIBS := $(shell pkg-config --libs libzstd 2>/dev/null)
REMOTE_CFLAGS := $(HIREDIS_CFLAGS) $(if $(ZSTD_LIBS),-DKM_HAVE_ZSTD $(shell pkg-config --cflags libzstd))
HOST_LDLIBS := -lyaml -lcjson -lcrypto $(HIREDIS_LIBS) $(ZSTD_LIBS) -lm -ldl $(LDLIBS)
HOST_LDFLAGS := -rdynamic $(OPT) $(LDFLAGS)

# The X280 side: freestanding, no libc, the image lives in local memory.
RV_PREFIX ?= riscv64-unknown-elf-
RV_CC := $(RV_PREFIX)gcc
RV_AR := $(RV_PREFIX)ar
RV_ARCH := -march=rv64gcv_zba_zbb -mabi=lp64d -mcmodel=medany
# The runtime's debug information names its sources /kmrun/kmx/..., as an
# image's names the installed headers (lib/build/km_build.c): a trap or a stuck core
# inside the runtime gets the same source line whatever the checkout's path,
# and libkmx.a (part of every image's cache key) the same bytes.
RV_CFLAGS := $(RV_ARCH) -std=c11 -O2 -g -ffreestanding -fno-common \
  -Wall -Wextra -Werror -Wno-unused-parameter -MMD -MP -Ikmx/include -Idevice/include \
  -ffile-prefix-map=$(CURDIR)=/kmrun

# Sources are found in their folders, however deep (one module a folder).
find_c = $(sort $(shell find $(1) -name '*.c' -not -path '*/include/*'))
SUPPORT_SRC := $(call find_c,support)
SIM_SRC := $(call find_c,device/sim)
LIB_SRC := $(call find_c,lib)
CMD_SRC := $(call find_c,cmd)
KMX_SRC := $(wildcard kmx/*.c) $(wildcard kmx/*.S)
KMX_HOST_SRC := $(wildcard kmx/host/*.c)
UNIT_SRC := $(sort $(shell find tests/unit -name '*_test.c'))

SUPPORT_OBJ := $(SUPPORT_SRC:%.c=$(B)/obj/%.o)
SIM_OBJ := $(SIM_SRC:%.c=$(B)/obj/%.o)
LIB_OBJ := $(LIB_SRC:%.c=$(B)/obj/%.o)
CMD_OBJ := $(CMD_SRC:%.c=$(B)/obj/%.o)
KMX_OBJ := $(patsubst %,$(B)/rv/%.o,$(basename $(KMX_SRC)))
KMX_HOST_OBJ := $(KMX_HOST_SRC:%.c=$(B)/pic/%.o)
UNIT_BIN := $(patsubst %.c,$(B)/tests/%,$(notdir $(UNIT_SRC)))

SHARE := $(B)/share/kmrun
# The runtime's own sources, shipped beside libkmx.a for the debugger: an
# image's debug information names them under /kmrun, which `kmrun run
# --gdb`'s command line maps to the data folder (set substitute-path).
KMX_SOURCE_DATA := $(patsubst kmx/%,$(SHARE)/kmx/%,$(wildcard kmx/*.c kmx/*.S kmx/*.h))
KMX_DATA := $(SHARE)/kmx/lib/libkmx.a $(SHARE)/kmx/kmx.ld \
  $(patsubst kmx/include/%,$(SHARE)/kmx/include/%,$(wildcard kmx/include/*.h)) \
  $(patsubst device/include/%,$(SHARE)/device/include/%,$(wildcard device/include/*.h)) \
  $(KMX_SOURCE_DATA)
# The host fallback's runtime (kmx/host/): built with the host compiler,
# position-independent, for a thread's shared object (kmx_host.h).  Like
# libkmx.a it is shipped: always -O2, never sanitized (the thread sources
# it links with are not, and -z defs would refuse the sanitizers' symbols);
# its test is built in the build's mode.
KMX_HOST_DATA := $(SHARE)/kmx/host/libkmx_host.a $(SHARE)/kmx/host/kmx_host.h \
  $(SHARE)/kmx/host/fallback/kmx_fallback.c
KMX_HOST_CFLAGS := $(filter-out $(OPT),$(HOST_CFLAGS)) -O2 -g -fPIC -pthread -Ikmx -Ikmx/host \
  -Ikmx/include -Idevice/include

# `kmrun new`'s programs to start from (templates/NAME/; lib/api/kmrun_new.c),
# copied as they are: @NAME@ is replaced when a program is made.
TEMPLATE_DATA := $(patsubst templates/%,$(SHARE)/templates/%,$(sort $(shell find templates -type f)))

# Where `make install` puts things, and kmrun.pc says they are.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
# The Python package (python/kmrun/: pure Python), Debian's layout for one.
PYTHONDIR ?= $(PREFIX)/lib/python3/dist-packages
# Where bash-completion and Debian's zsh look for a command's completion.
BASH_COMPLETION_DIR ?= $(DATADIR)/bash-completion/completions
ZSH_COMPLETION_DIR ?= $(DATADIR)/zsh/vendor-completions
COMPLETIONS := $(B)/share/bash-completion/completions/kmrun $(B)/share/zsh/vendor-completions/_kmrun

.PHONY: all test test-long install uninstall clean print-inc print-% libkmrun FORCE
all: $(B)/bin/kmrun $(KMX_DATA) $(KMX_HOST_DATA) $(TEMPLATE_DATA) $(UNIT_BIN) \
  $(B)/tests/gdb_fake_server $(COMPLETIONS)

# Every host object, in its module's include folders (inc_of).
$(B)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(call say,CC,$<)$(CC) $(HOST_CFLAGS) $(call src_inc,$<) -c $< -o $@

# The remote storage's objects see hiredis and know whether zstd is there.
$(B)/obj/lib/remote/%.o $(B)/pic-lib/lib/remote/%.o: HOST_CFLAGS += $(REMOTE_CFLAGS)

# An archive or a library is built again when its list of objects
# changes, not only when an object does: a deleted source's object leaves
# it (it would stay in an archive that nothing newer touched).  NAME.objs
# holds the list, rewritten only when it differs.
define objects_list
$(B)/$(1).objs: FORCE
	@mkdir -p $$(@D)
	@echo '$(2)' | cmp -s - $$@ || echo '$(2)' >$$@
endef
$(eval $(call objects_list,libks,$(SUPPORT_OBJ)))
$(eval $(call objects_list,libsim,$(SIM_OBJ)))
$(eval $(call objects_list,libkm,$(LIB_OBJ)))
$(eval $(call objects_list,libkmrun-static,$(LIB_OBJ) $(SIM_OBJ) $(SUPPORT_OBJ)))
$(eval $(call objects_list,libkmx_host,$(KMX_HOST_OBJ)))

# One archive a layer, linked top to bottom.
$(B)/libks.a: $(SUPPORT_OBJ) $(B)/libks.objs
$(B)/libsim.a: $(SIM_OBJ) $(B)/libsim.objs
$(B)/libkm.a: $(LIB_OBJ) $(B)/libkm.objs
$(B)/libks.a $(B)/libsim.a $(B)/libkm.a:
	@mkdir -p $(@D)
	$(call say,AR,$@)rm -f $@ && ar rcs $@ $(filter %.o,$^)
LIBS := $(B)/libkm.a $(B)/libsim.a $(B)/libks.a

$(B)/bin/kmrun: $(CMD_OBJ) $(LIBS)
	@mkdir -p $(@D)
	$(call say,LINK,$@)$(CC) $(HOST_LDFLAGS) -o $@ $(CMD_OBJ) $(LIBS) $(HOST_LDLIBS)

# The library for programs (include/kmrun.h): libkmrun.a, the objects of
# the three archives above; libkmrun.so, the same sources compiled again
# position-independent into $(B)/pic-lib/ (each in its module's include
# folders, as $(B)/obj/), exporting only what lib/libkmrun.map names, with
# -z defs (it names every library it needs); kmrun.pc for pkg-config.
# The SONAME is libkmrun.so.<major>; while VERSION's major is 0 any minor
# may change the ABI, so the SONAME is libkmrun.so.0.<minor>.
# A program may also dlopen libkmrun.so itself, RTLD_LOCAL too (Python's
# ctypes): the grid makes the library global before it loads kernels
# (device/sim/grid/sim_grid.c).
# The sanitizers' modes build it too, sanitized (it needs libasan and
# libubsan, and names them): a program that links it is built with the
# same -fsanitize flags, so the runtime comes first (tests/cli/install.bats
# builds its program with the mode's OPT).
VERSION_PARTS := $(subst ., ,$(VERSION))
SO_MAJOR := $(word 1,$(VERSION_PARTS))
SONAME := libkmrun.so.$(if $(filter 0,$(SO_MAJOR)),0.$(word 2,$(VERSION_PARTS)),$(SO_MAJOR))
SO_FILE := libkmrun.so.$(VERSION)
PIC_OBJ := $(patsubst %.c,$(B)/pic-lib/%.o,$(SUPPORT_SRC) $(SIM_SRC) $(LIB_SRC))
$(eval $(call objects_list,libkmrun-shared,$(PIC_OBJ)))
LIBKMRUN := $(B)/lib/libkmrun.a $(B)/lib/$(SO_FILE) $(B)/lib/$(SONAME) $(B)/lib/libkmrun.so \
  $(B)/lib/pkgconfig/kmrun.pc
# What a static link needs beyond -lkmrun: the libraries, and the export of
# the km_device.h functions from the program (above).
PC_LIBS_PRIVATE := -Wl,--export-dynamic -lyaml -lcjson -lcrypto $(HIREDIS_LIBS) $(ZSTD_LIBS) -lm -ldl \
  -lpthread

$(B)/lib/libkmrun.a: $(LIB_OBJ) $(SIM_OBJ) $(SUPPORT_OBJ) $(B)/libkmrun-static.objs
	@mkdir -p $(@D)
	$(call say,AR,$@)rm -f $@ && ar rcs $@ $(filter %.o,$^)
$(B)/pic-lib/%.o: %.c
	@mkdir -p $(@D)
	$(call say,CC,$<)$(CC) $(HOST_CFLAGS) -fPIC $(call src_inc,$<) -c $< -o $@
$(B)/lib/$(SO_FILE): $(PIC_OBJ) lib/libkmrun.map $(B)/libkmrun-shared.objs
	@mkdir -p $(@D)
	$(call say,LINK,$@)$(CC) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=lib/libkmrun.map \
	  -Wl,-z,defs $(OPT) $(LDFLAGS) -o $@ $(PIC_OBJ) $(HOST_LDLIBS) -lpthread
$(B)/lib/$(SONAME): $(B)/lib/$(SO_FILE)
	$(Q)ln -sf $(SO_FILE) $@
$(B)/lib/libkmrun.so: $(B)/lib/$(SONAME)
	$(Q)ln -sf $(SONAME) $@
# kmrun.pc names PREFIX's and LIBDIR's paths, so it is written again when
# they change (its rule always runs, and replaces the file only then).
$(B)/lib/pkgconfig/kmrun.pc: FORCE
	@mkdir -p $(@D)
	$(Q)printf '%s\n' 'prefix=$(PREFIX)' 'exec_prefix=$${prefix}' \
	  'libdir=$(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))' \
	  'includedir=$(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))' '' \
	  'Name: kmrun' \
	  'Description: Build and run X280 thread programs on a simulated Tenstorrent Blackhole' \
	  'Version: $(VERSION)' \
	  'Cflags: -I$${includedir}' \
	  'Libs: -L$${libdir} -lkmrun' \
	  'Libs.private: $(PC_LIBS_PRIVATE)' >$@.new
	$(Q)if cmp -s $@.new $@; then rm -f $@.new; else mv -f $@.new $@; fi
FORCE:
libkmrun: $(LIBKMRUN)

# A unit test's binary is named after its source, wherever in tests/unit
# the source mirrors what it tests.  A test that moved leaves its old path
# in the binary's dependency file until the next build rewrites it: that
# path is nothing to make.
unit_src = $(filter %/$(1).c,$(UNIT_SRC))
tests/unit/%_test.c: ;
.SECONDEXPANSION:
$(B)/tests/%_test: $$(call unit_src,$$*_test) $(LIBS)
	@mkdir -p $(@D)
	$(call say,TEST,$@)$(CC) $(HOST_CFLAGS) $(TEST_INC) -MF $@.d $(HOST_LDFLAGS) $(call unit_src,$*_test) -o $@ $(LIBS) $(HOST_LDLIBS) -lcmocka

# The fake target served on TCP, for the test that drives a real
# gdb-multiarch (tests/cli/gdb.bats); not a unit test (no _test suffix).
$(B)/tests/gdb_fake_server: tests/gdb/fake_server.c tests/unit/gdb_fake.h $(LIBS)
	@mkdir -p $(@D)
	$(call say,TEST,$@)$(CC) $(HOST_CFLAGS) $(TEST_INC) -MF $@.d $(HOST_LDFLAGS) $< -o $@ $(LIBS) $(HOST_LDLIBS)

# The host fallback's runtime and its tests (which bring their own kmx_main).
$(B)/pic/%.o: %.c
	@mkdir -p $(@D)
	$(call say,CC,$<)$(CC) $(KMX_HOST_CFLAGS) -c $< -o $@
$(SHARE)/kmx/host/libkmx_host.a: $(KMX_HOST_OBJ) $(B)/libkmx_host.objs
	@mkdir -p $(@D)
	$(call say,AR,$@)rm -f $@ && ar rcsD $@ $(filter %.o,$^)
$(SHARE)/kmx/host/%.h: kmx/host/%.h
	@mkdir -p $(@D)
	$(Q)cp $< $@
# A fallback given as a function is built from this source (kmx_host.h).
$(SHARE)/kmx/host/fallback/%.c: kmx/host/fallback/%.c
	@mkdir -p $(@D)
	$(Q)cp $< $@
$(B)/tests/kmx_host_test $(B)/tests/kmx_host_twin_test: $(B)/tests/%: $$(call unit_src,$$*) \
  $(SHARE)/kmx/host/libkmx_host.a
	@mkdir -p $(@D)
	$(call say,TEST,$@)$(CC) $(HOST_CFLAGS) $(TEST_INC) -pthread -MF $@.d $(LDFLAGS) $(call unit_src,$*) -o $@ \
	  $(SHARE)/kmx/host/libkmx_host.a -lcmocka -pthread

$(B)/rv/%.o: %.c
	@mkdir -p $(@D)
	$(call say,RVCC,$<)$(RV_CC) $(RV_CFLAGS) -c $< -o $@
# The assembler writes its own debug information (DW_AT_comp_dir, the line
# table's folders), which -ffile-prefix-map does not reach: it takes the map
# itself, or crt0.o names the checkout's path and libkmx.a differs per checkout.
$(B)/rv/%.o: %.S
	@mkdir -p $(@D)
	$(call say,RVAS,$<)$(RV_CC) $(RV_CFLAGS) -Wa,--debug-prefix-map=$(CURDIR)=/kmrun -c $< -o $@

$(SHARE)/kmx/lib/libkmx.a: $(KMX_OBJ)
	@mkdir -p $(@D)
	$(call say,RVAR,$@)rm -f $@ && $(RV_AR) rcsD $@ $^
$(SHARE)/kmx/kmx.ld: kmx/kmx.ld
	@mkdir -p $(@D)
	$(Q)cp $< $@
$(SHARE)/kmx/include/%.h: kmx/include/%.h
	@mkdir -p $(@D)
	$(Q)cp $< $@
$(SHARE)/device/include/%.h: device/include/%.h
	@mkdir -p $(@D)
	$(Q)cp $< $@
$(SHARE)/kmx/%: kmx/%
	@mkdir -p $(@D)
	$(Q)cp -p $< $@
$(SHARE)/templates/%: templates/%
	@mkdir -p $(@D)
	$(Q)cp $< $@

# The fuzzers' bounded run (tests/fuzz/) counts among the tests when
# clang can build them; their own tree, build-fuzz, is made first.
test: all libkmrun
	@if tests/fuzz/have-libfuzzer '$(FUZZ_CC)'; then \
	  $(MAKE) --no-print-directory fuzz-build || exit 1; export KMRUN_FUZZ=$(FB); \
	else echo "fuzz: skipped (no clang with libFuzzer: ./setup installs it)"; fi; \
	tests/run $(B)
# The runs too long for `make test` (tests/long/, tests/run says more).
test-long: all libkmrun
	KMRUN_TESTS=long tests/run $(B)

include tests/fuzz/fuzz.mk

# The completion scripts, from the table of the kmrun just built
# (cmd/cmd.c), into the build folder as they are installed (COMPLETIONS).
$(B)/share/bash-completion/completions/kmrun: $(B)/bin/kmrun
	@mkdir -p $(@D)
	$(call say,GEN,$@)$(B)/bin/kmrun completion bash >$@
$(B)/share/zsh/vendor-completions/_kmrun: $(B)/bin/kmrun
	@mkdir -p $(@D)
	$(call say,GEN,$@)$(B)/bin/kmrun completion zsh >$@

# The installed layout (the header comment): DESTDIR stages it, PREFIX,
# BINDIR, LIBDIR, INCLUDEDIR, DATADIR, MANDIR and PYTHONDIR place it; the
# libraries' links are kept.  Every file goes through one installer
# (install_sh below, run by sh), which writes down each file
# and link it wrote and each folder it made (paths without DESTDIR) in
# INSTALL_RECORD, merged with an earlier install's; uninstall removes
# exactly those files, then those folders that are empty.
INSTALL_RECORD = $(DATADIR)/kmrun/installed.list
# dir_up DIR: the folder DIR is in.
dir_up = $(patsubst %/,%,$(dir $(patsubst %/,%,$(1))))
# sees_data DIR: DATADIR, when a program or library in DIR finds its data
# there (share/ one or two folders up: lib/build/km_toolchain.c).
sees_data = $(filter $(patsubst %/,%,$(DATADIR)),$(call dir_up,$(1))/share \
  $(call dir_up,$(call dir_up,$(1)))/share)
install_layout_ok = $(if $(call sees_data,$(BINDIR)),,$(error BINDIR=$(BINDIR): kmrun would \
  look for its data beside it, in $(call dir_up,$(BINDIR))/share/kmrun, not in DATADIR=$(DATADIR)\
  (set DATADIR, or KMRUN_DATA at run time))) \
  $(if $(call sees_data,$(LIBDIR)),,$(error LIBDIR=$(LIBDIR): libkmrun.so would look for its \
  data in $(call dir_up,$(LIBDIR))/share/kmrun or one folder up, not in DATADIR=$(DATADIR)))

# install_sh install RECORD < "MODE SOURCE DEST" lines (MODE: an octal
# mode, or `link` for a symbolic link to SOURCE); install_sh uninstall
# RECORD.  DEST and RECORD without $DESTDIR, which the environment gives.
define install_sh
set -eu
d=${DESTDIR-}
list=${TMPDIR:-/tmp}/kmrun-install.$$
trap 'rm -f "$list"' EXIT
: >"$list"
# made DIR: DIR and the folders above it that are missing, made under
# DESTDIR and written down.
made() {
  [ -n "$1" ] && [ ! -d "$d$1" ] || return 0
  made "${1%/*}"
  mkdir "$d$1"
  printf 'dir %s\n' "$1" >>"$list"
}
case $1 in
install)
  [ -z "$d" ] || mkdir -p "$d"
  while read -r mode src dest; do
    made "${dest%/*}"
    if [ "$mode" = link ]; then
      ln -sfn "$src" "$d$dest"
    else
      install -m "$mode" "$src" "$d$dest"
    fi
    printf 'file %s\n' "$dest" >>"$list"
  done
  made "${2%/*}"
  printf 'file %s\n' "$2" >>"$list"
  [ ! -f "$d$2" ] || cat "$d$2" >>"$list"
  LC_ALL=C sort -u "$list" >"$d$2.new"
  mv -f "$d$2.new" "$d$2"
  ;;
uninstall)
  if [ ! -f "$d$2" ]; then
    echo "uninstall: no $d$2: nothing installed with these DESTDIR and DATADIR" >&2
    exit 1
  fi
  cp "$d$2" "$list"
  sed -n 's/^file //p' "$list" | while IFS= read -r f; do rm -f "$d$f"; done
  # Deepest first: a folder's path sorts before every path inside it.
  sed -n 's/^dir //p' "$list" | LC_ALL=C sort -r | while IFS= read -r f; do
    rmdir "$d$f" 2>/dev/null || true
  done
  ;;
esac
endef

install uninstall: export KMRUN_INSTALL_SH = $(value install_sh)
# Refused before anything is built.
ifneq ($(filter install,$(MAKECMDGOALS)),)
$(if $(install_layout_ok),)
endif
install: all libkmrun
	$(call say,INSTALL,$(DESTDIR)$(PREFIX)){ \
	  echo '755 $(B)/bin/kmrun $(BINDIR)/kmrun'; \
	  echo '644 include/kmrun.h $(INCLUDEDIR)/kmrun.h'; \
	  echo '644 include/kmrun_tools.h $(INCLUDEDIR)/kmrun_tools.h'; \
	  echo '644 $(B)/lib/libkmrun.a $(LIBDIR)/libkmrun.a'; \
	  echo '644 $(B)/lib/$(SO_FILE) $(LIBDIR)/$(SO_FILE)'; \
	  echo 'link $(SO_FILE) $(LIBDIR)/$(SONAME)'; \
	  echo 'link $(SONAME) $(LIBDIR)/libkmrun.so'; \
	  echo '644 $(B)/lib/pkgconfig/kmrun.pc $(LIBDIR)/pkgconfig/kmrun.pc'; \
	  (cd $(SHARE) && find . -type f) | LC_ALL=C sort | \
	    sed 's|^\./\(.*\)|644 $(SHARE)/\1 $(DATADIR)/kmrun/\1|'; \
	  for m in man/*.[0-9]; do echo "644 $$m $(MANDIR)/man$${m##*.}/$${m##*/}"; done; \
	  for p in python/kmrun/*.py; do echo "644 $$p $(PYTHONDIR)/kmrun/$${p##*/}"; done; \
	  echo '644 $(B)/share/bash-completion/completions/kmrun $(BASH_COMPLETION_DIR)/kmrun'; \
	  echo '644 $(B)/share/zsh/vendor-completions/_kmrun $(ZSH_COMPLETION_DIR)/_kmrun'; \
	} | DESTDIR='$(DESTDIR)' sh -c "$$KMRUN_INSTALL_SH" install_sh install '$(INSTALL_RECORD)'

uninstall:
	$(call say,UNINST,$(DESTDIR)$(PREFIX))DESTDIR='$(DESTDIR)' sh -c "$$KMRUN_INSTALL_SH" \
	  install_sh uninstall '$(INSTALL_RECORD)'

# `make -s print-LIB_INC`: a variable's value (the layering test asks
# which folders a layer sees).
print-inc:
	@echo $(call inc_of,$(FOLDER))
print-%:
	@echo $($*)

clean:
	rm -rf build build-*

-include $(shell find $(B) -name '*.d' 2>/dev/null)
