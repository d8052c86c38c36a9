# tests/fuzz/fuzz.mk, included by the Makefile: libFuzzer harnesses for
# the readers of untrusted input, the manifest's and the ELF's files and
# the GDB server's packets (tests/fuzz/README.md).  Built with clang under ASan and UBSan into
# build-fuzz/, apart from every MODE's tree: libFuzzer needs clang's
# -fsanitize=fuzzer, and the library's objects its coverage hooks.
#   make fuzz              a longer run (FUZZ_SECONDS, default 300, a harness)
#   make fuzz-smoke        the bounded run `make test` does when clang can
FUZZ_CC ?= clang
FB := build-fuzz
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS := -std=c11 -Wall -Wextra -Wno-unused-parameter -D_GNU_SOURCE \
  -DKMRUN_VERSION='"$(VERSION)"' -MMD -MP -O1 -g -fno-omit-frame-pointer \
  $(FUZZ_SAN) -fsanitize=fuzzer-no-link
FUZZ_NAMES := manifest elf gdb
FUZZ_BIN := $(FUZZ_NAMES:%=$(FB)/fuzz/%_fuzz)
FUZZ_LIBS := $(FB)/libkm.a $(FB)/libsim.a $(FB)/libks.a
FUZZ_SECONDS ?= 300

# The hot loop's two copies (device/sim/hart/hart_run.h), which no harness
# runs (they read files and packets, not code): -O0, as clang spends
# minutes on each of them at -O1 under the sanitizers.
$(FB)/obj/device/sim/hart/sim_hart.o $(FB)/obj/device/sim/hart/hart_profile.o: \
  FUZZ_CFLAGS += -O0
$(FB)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(call say,FUZZCC,$<)$(FUZZ_CC) $(FUZZ_CFLAGS) $(call src_inc,$<) -c $< -o $@
$(FB)/libks.a: $(SUPPORT_SRC:%.c=$(FB)/obj/%.o)
$(FB)/libsim.a: $(SIM_SRC:%.c=$(FB)/obj/%.o)
$(FB)/libkm.a: $(LIB_SRC:%.c=$(FB)/obj/%.o)
$(FUZZ_LIBS):
	@mkdir -p $(@D)
	$(call say,AR,$@)rm -f $@ && ar rcs $@ $^
# TEST_INC: gdb_fuzz serves the unit test's fake target (gdb_fake.h).
$(FB)/fuzz/%_fuzz: tests/fuzz/%_fuzz.c tests/fuzz/fuzz_file.h $(FUZZ_LIBS)
	@mkdir -p $(@D)
	$(call say,FUZZLD,$@)$(FUZZ_CC) $(FUZZ_CFLAGS) $(TEST_INC) -fsanitize=fuzzer -rdynamic \
	  $< -o $@ $(FUZZ_LIBS) $(HOST_LDLIBS)

.PHONY: fuzz fuzz-smoke fuzz-build
fuzz-build: $(FUZZ_BIN)
fuzz: fuzz-build
	tests/fuzz/run $(FB) $(FUZZ_SECONDS)
fuzz-smoke: fuzz-build
	tests/fuzz/run $(FB) smoke

-include $(shell find $(FB) -name '*.d' 2>/dev/null)
