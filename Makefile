# kmrun: the host tool (cmd/, lib/), the X280 thread runtime cross-compiled
# for RV64 (kmx/), and the tests.  Everything lands under $(B):
#   $(B)/bin/kmrun                  the command
#   $(B)/share/kmrun/kmx/...        the runtime a thread image links against
#   $(B)/share/kmrun/device/...     the Tensix handlers' headers
# which is also the installed layout (kmrun finds share/ beside bin/).
#
#   make                 build (MODE=release; MODE=asan|ubsan|debug|distro too)
#   make test            every test; ends with "N passed, N failed"
#   make install PREFIX=/usr/local

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
#   cmd/         the command: lib/ and the same API
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
#   build/     images through the cache, the toolchain, the images' checks
#   rundir/    the run folder
#   run/       the session, the run driver, the run JSON, the card's findings
#   backends/  the sim backend and the host fallback (km_session_open)
#   gdb/       the GDB remote server and its targets on simulated harts
#   api/       the public C API (include/kmrun.h, the public API's folder):
#              a program's host side over the folders below it
LIB_API := kmx/host device/sim/include $(CONTRACT) support
USES_lib/base := $(LIB_API)
USES_lib/manifest := lib/base $(LIB_API)
USES_lib/build := lib/manifest lib/base $(LIB_API)
USES_lib/rundir := lib/base $(LIB_API)
USES_lib/run := lib/rundir lib/build lib/manifest lib/base $(LIB_API)
USES_lib/backends := lib/run lib/rundir lib/build lib/manifest lib/base $(LIB_API)
USES_lib/gdb := $(LIB_API)
USES_lib/api := include lib/backends lib/run lib/rundir lib/build lib/manifest lib/base $(LIB_API)

USES_cmd = $(LIB_FOLDERS) include $(LIB_API)

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
# the km_device.h functions of the program that loads it (sim_grid.h).
HOST_LDLIBS := -lyaml -lcjson -lcrypto -lm -ldl $(LDLIBS)
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
KMX_HOST_DATA := $(SHARE)/kmx/host/libkmx_host.a $(SHARE)/kmx/host/kmx_host.h
KMX_HOST_CFLAGS := $(filter-out $(OPT),$(HOST_CFLAGS)) -O2 -g -fPIC -pthread -Ikmx -Ikmx/host \
  -Ikmx/include -Idevice/include

.PHONY: all test install clean print-inc print-%
all: $(B)/bin/kmrun $(KMX_DATA) $(KMX_HOST_DATA) $(UNIT_BIN) $(B)/tests/gdb_fake_server

# Every host object, in its module's include folders (inc_of).
$(B)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(call say,CC,$<)$(CC) $(HOST_CFLAGS) $(call src_inc,$<) -c $< -o $@

# One archive a layer, linked top to bottom.
$(B)/libks.a: $(SUPPORT_OBJ)
$(B)/libsim.a: $(SIM_OBJ)
$(B)/libkm.a: $(LIB_OBJ)
$(B)/libks.a $(B)/libsim.a $(B)/libkm.a:
	@mkdir -p $(@D)
	$(call say,AR,$@)rm -f $@ && ar rcs $@ $^
LIBS := $(B)/libkm.a $(B)/libsim.a $(B)/libks.a

$(B)/bin/kmrun: $(CMD_OBJ) $(LIBS)
	@mkdir -p $(@D)
	$(call say,LINK,$@)$(CC) $(HOST_LDFLAGS) -o $@ $(CMD_OBJ) $(LIBS) $(HOST_LDLIBS)

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
$(SHARE)/kmx/host/libkmx_host.a: $(KMX_HOST_OBJ)
	@mkdir -p $(@D)
	$(call say,AR,$@)rm -f $@ && ar rcsD $@ $^
$(SHARE)/kmx/host/%.h: kmx/host/%.h
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

# The fuzzers' bounded run (tests/fuzz/) counts among the tests when
# clang can build them; their own tree, build-fuzz, is made first.
test: all
	@if tests/fuzz/have-libfuzzer '$(FUZZ_CC)'; then \
	  $(MAKE) --no-print-directory fuzz-build || exit 1; export KMRUN_FUZZ=$(FB); \
	else echo "fuzz: skipped (no clang with libFuzzer: ./setup installs it)"; fi; \
	tests/run $(B)

include tests/fuzz/fuzz.mk

PREFIX ?= /usr/local
install: all
	install -d $(PREFIX)/bin $(PREFIX)/share/kmrun $(PREFIX)/share/man/man1 \
	  $(PREFIX)/share/man/man3 $(PREFIX)/share/man/man5
	install -m 755 $(B)/bin/kmrun $(PREFIX)/bin/kmrun
	cp -R $(SHARE)/. $(PREFIX)/share/kmrun/
	for m in man/*.[0-9]; do install -m 644 $$m $(PREFIX)/share/man/man$${m##*.}/; done

# `make -s print-LIB_INC`: a variable's value (the layering test asks
# which folders a layer sees).
print-inc:
	@echo $(call inc_of,$(FOLDER))
print-%:
	@echo $($*)

clean:
	rm -rf build build-*

-include $(shell find $(B) -name '*.d' 2>/dev/null)
