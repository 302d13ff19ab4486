# ARCH=arm64 on another host (`make ARCH=arm64`) cross-builds for arm64
# into build-arm64/ with $(CROSS_COMPILE)gcc (aarch64-linux-gnu-,
# Debian's gcc-aarch64-linux-gnu) against SYSROOT: by default
# build/vm/root/, Debian 12's arm64 packages with their -dev, which
# scripts/arm64-root fetches and unpacks (no network once there); the BPF
# objects for __TARGET_ARCH_arm64 against vmlinux/arm64/vmlinux.h. Its
# default goal adds the test helpers and tests/pmc's programs
# (build-arm64/pmc/), what scripts/vm-run's guest runs.
HOST_ARCH := $(shell uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/;s/ppc64le/powerpc/')
ARCH := $(HOST_ARCH)
CROSS :=
ifneq ($(ARCH),$(HOST_ARCH))
ifneq ($(ARCH),arm64)
$(error ARCH=$(ARCH): only arm64 is cross-built (ARCH=arm64))
endif
ifneq ($(FUZZ)$(SANITIZE),)
$(error ARCH=arm64 builds neither FUZZ=1 nor SANITIZE=1)
endif
CROSS := 1
endif
# bpmc: build, run, test, bench. See README.md and docs/architecture.md.
#
# SANITIZE=1 builds everything of user space (objects, unit tests,
# helpers, benches, the binary) with ASan and UBSan into build-san/, the
# binary as build-san/bpmc, so that no object, archive or -MMD file is
# shared with the plain build in build/ and ./bpmc; the BPF object is
# built there too, with its usual flags. `make test SANITIZE=1` runs the
# whole suite against that build.
# FUZZ=1 (which `make fuzz` and `make fuzz-bins` set themselves) builds
# the stages the libFuzzer targets of tests/fuzz/ link with clang and
# -fsanitize=fuzzer-no-link,address,undefined into build-fuzz/, a third
# tree of its own.
ifeq ($(FUZZ),1)
OUTPUT := build-fuzz
BPMC_BIN := $(OUTPUT)/bpmc
CC = $(CLANG)
SAN_FLAGS := -fsanitize=fuzzer-no-link,address,undefined \
	     -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else ifeq ($(SANITIZE),1)
OUTPUT := build-san
BPMC_BIN := $(OUTPUT)/bpmc
# clang, whose UBSan lives in the ASan runtime and so honours its
# log_path (tests/run): gcc's libubsan is a runtime apart that writes to
# stderr whatever log_path says, where a test that expects bpmc to fail
# cannot tell a finding from a refusal.
CC = $(CLANG)
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer \
	     -fno-sanitize-recover=undefined
else ifeq ($(CROSS),1)
OUTPUT := build-$(ARCH)
BPMC_BIN := $(OUTPUT)/bpmc
CROSS_COMPILE ?= aarch64-linux-gnu-
CC = $(CROSS_COMPILE)gcc
AR = $(CROSS_COMPILE)ar
OBJCOPY = $(CROSS_COMPILE)objcopy
SAN_FLAGS :=
else
OUTPUT := build
BPMC_BIN := bpmc
SAN_FLAGS :=
endif
CLANG ?= clang
LLVM_STRIP ?= llvm-strip
OBJCOPY ?= objcopy
BPFTOOL ?= bpftool
CC ?= cc

# CFLAGS, CPPFLAGS and LDFLAGS are the user's (`make CFLAGS=-O0
# CPPFLAGS=-DX LDFLAGS=-Wl,-z,now`): ours are added to theirs (override),
# CPPFLAGS reaches every compile, BPF's included (an -I of libbpf's
# headers is wanted there too), LDFLAGS every link.
CFLAGS ?= -g -O2
# The kernel tools' EXTRA_WARNINGS (tools/scripts/Makefile.include)
# but -Wdeclaration-after-statement: gnu11 declarations where a value is
# first known are this code's style (28 of them), not a bug class.
# -Wstrict-aliasing=3 is gcc's alone. WERROR=1 (CI) makes them errors.
EXTRA_WARNINGS := -Wbad-function-cast -Wformat-security -Wformat-y2k \
	-Winit-self -Wmissing-declarations -Wmissing-prototypes \
	-Wnested-externs -Wno-system-headers -Wold-style-definition -Wpacked \
	-Wredundant-decls -Wstrict-prototypes -Wswitch-default -Wswitch-enum \
	-Wundef -Wwrite-strings -Wformat -Wshadow \
	$(if $(findstring clang,$(shell $(CC) --version 2>/dev/null | head -1)),,-Wstrict-aliasing=3)
WERROR ?= 0
# Build paths stay out of the binaries (debug info, __FILE__).
PREFIX_MAP := -ffile-prefix-map=$(CURDIR)=.
override CFLAGS += -Wall -Wextra -Wno-unused-parameter $(EXTRA_WARNINGS) \
	  $(if $(filter 1,$(WERROR)),-Werror) -std=gnu11 -D_GNU_SOURCE \
	  -Iinclude -Iuser -I$(OUTPUT) -MMD -MP $(PREFIX_MAP) $(SAN_FLAGS)
BPF_CFLAGS = -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Wall \
	      $(if $(filter 1,$(WERROR)),-Werror) $(PREFIX_MAP) \
	      -I$(dir $(VMLINUX_H)) -Iinclude -I$(OUTPUT) -MMD -MP

# user/ is one folder per pipeline stage, each built into its own
# archive. user/layers is the one table of which stage may use which
# (docs/architecture.md quotes it, tests/integration/test_layout.sh and
# test_link_layers.sh hold the sources and archives to it): a line
# "STAGE | USES | TYPES | LIBRARIES" a stage. Read here into STAGES,
# USES_x (the direct uses), EXTLIBS_x (the libraries x's objects need)
# and DEPS_x, what stage x links: itself and the closure of its uses,
# so that a unit test of names/ or rows/ links neither libbpf nor the
# skeleton.
LAYERS := user/layers
comma := ,
# Each line as one word, STAGE|a,b|-|-lx,-ly: "-" an empty field.
layer_lines := $(shell sed -e '/^\#/d' -e '/^[[:space:]]*$$/d' \
	-e 's/[[:space:]]*|[[:space:]]*/|/g' -e 's/[[:space:]][[:space:]]*/,/g' \
	-e 's/||/|-|/g' -e 's/||/|-|/g' -e 's/|$$/|-/' $(LAYERS))
layer_field = $(filter-out -,$(subst $(comma), ,$(word $(2),$(subst |, ,$(1)))))
layer_closure = $(1) $(foreach u,$(USES_$(1)),$(call layer_closure,$(u)))
STAGES := $(foreach l,$(layer_lines),$(call layer_field,$(l),1))
$(foreach l,$(layer_lines),\
	$(eval USES_$(call layer_field,$(l),1) := $(call layer_field,$(l),2))\
	$(eval EXTLIBS_$(call layer_field,$(l),1) := $(call layer_field,$(l),4)))
$(foreach s,$(STAGES),\
	$(eval DEPS_$(s) := $(s) $(filter-out $(s),$(sort $(call layer_closure,$(s))))))

# A stage's archive is $(OUTPUT)/libSTAGE.a, but for pmc's: libpmc.a is
# the library we install (libpmc, below), so the stage is libpmc-stage.a.
stage_ar = $(OUTPUT)/lib$(1)$(if $(filter pmc,$(1)),-stage).a
stage_archives = $(foreach s,$(DEPS_$(1)),$(call stage_ar,$(s)))
stage_ldlibs = $(sort $(foreach s,$(DEPS_$(1)),$(EXTLIBS_$(s))))

# Each unit test and bench links the stage it exercises, nothing more.
STAGE_test_util := common
STAGE_test_strbuf := common
STAGE_test_short_name := common
STAGE_test_hash_index := common
STAGE_test_events := names
STAGE_test_pmu_table := names
STAGE_test_kernel_pmu := names
STAGE_test_sysfs_pmu := names
STAGE_test_perf_grammar_parts := names
STAGE_test_validate_x86 := names
STAGE_test_counters := fds
STAGE_test_cgroups := identity
STAGE_test_containers := identity
STAGE_test_kube := identity
STAGE_test_csv := sinks
STAGE_test_publish := sinks
STAGE_test_prom := sinks
STAGE_test_rows := rows
STAGE_test_rollup := rows
STAGE_test_check := rows
STAGE_test_rare := rows
STAGE_test_missed := rows
STAGE_test_key_sort := rows
STAGE_test_entries := maps
STAGE_test_top_view := top
STAGE_test_scope := common
STAGE_test_symbols := symbols
STAGE_test_opts := cmd
STAGE_test_descendants := pmc
STAGE_test_metric := common
STAGE_test_report_scan := report
STAGE_test_report_html := report
STAGE_test_report_stats := report
STAGE_export_cost := cmd
STAGE_map_take_floor := maps
STAGE_bpf_verifier := maps
STAGE_keys_cost := maps
STAGE_resolve_cost := identity
STAGE_rows_cost := rows
STAGE_pmc_cost := pmc
STAGE_prom_cost := sinks
STAGE_report_gen := sinks
STAGE_agg_table_cost := report
# The empty perf_event program under case 1 (bench/overflow_cost.sh):
# libbpf's syscall wrappers only, no stage.
LDLIBS_overflow_floor := -lbpf
# The inflaters the report could read .gz with: zlib and ISA-L (sinks'
# own), and libdeflate where libdeflate-dev is installed.
STAGE_inflate_cost := sinks
LDLIBS_inflate_cost := $(if $(wildcard /usr/include/libdeflate.h),-ldeflate)
# Each fuzz target too (tests/fuzz/).
STAGE_fuzz_events := names
STAGE_fuzz_sysfs_pmu := names
STAGE_fuzz_containers := identity
STAGE_fuzz_cgroup_paths := identity
STAGE_fuzz_csv := sinks
STAGE_fuzz_report_csv := report
STAGE_fuzz_metric_expr := common

BPF_SRCS := $(wildcard bpf/*.bpf.c)
BPF_OBJS := $(patsubst bpf/%.bpf.c,$(OUTPUT)/%.bpf.o,$(BPF_SRCS))
SKELS := $(patsubst bpf/%.bpf.c,$(OUTPUT)/%.skel.h,$(BPF_SRCS))
USER_SRCS := $(wildcard $(foreach s,$(STAGES),user/$(s)/*.c))
USER_OBJS := $(patsubst user/%.c,$(OUTPUT)/user/%.o,$(USER_SRCS))
ARCHIVES := $(foreach s,$(STAGES),$(call stage_ar,$(s)))
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(OUTPUT)/tests/%,$(UNIT_SRCS))
BENCH_SRCS := $(wildcard bench/*.c)
BENCH_BINS := $(patsubst bench/%.c,$(OUTPUT)/bench/%,$(BENCH_SRCS))
HELPER_SRCS := $(wildcard tests/helpers/*.c)
HELPER_BINS := $(patsubst tests/helpers/%.c,$(OUTPUT)/tests/%,$(HELPER_SRCS))
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS := $(patsubst tests/fuzz/%.c,$(OUTPUT)/fuzz/%,$(FUZZ_SRCS))
FUZZ_SECONDS ?= 60

# libpmc, the pmc library (include/pmc.h, docs/pmc_control.3): every
# object of DEPS_pmc compiled a second time with -fPIC into
# $(OUTPUT)/pic/ (the stage archives stay as they are) makes both
# $(OUTPUT)/libpmc.a, one self-contained archive (its users add
# -lpfm -lm -pthread: libpmc.pc's Libs.private), and
# libpmc.so.$(PMC_SO_VERSION), soname $(PMC_SONAME), which exports only
# what PMC_MAP lists: pmc_control, pmc_get_info, pmc_linux_*.
PMC_SO_VERSION := 1.0.0
PMC_SONAME := libpmc.so.$(firstword $(subst ., ,$(PMC_SO_VERSION)))
PMC_MAP := user/pmc/libpmc.map
PMC_MAN := docs/pmc_control.3
PMC_SRCS := $(wildcard $(foreach s,$(DEPS_pmc),user/$(s)/*.c))
PMC_PIC_OBJS := $(patsubst user/%.c,$(OUTPUT)/pic/user/%.o,$(PMC_SRCS))
# -lm last, where static links want it.
PMC_LDLIBS = $(filter-out -lm,$(call stage_ldlibs,pmc)) $(filter -lm,$(call stage_ldlibs,pmc))
PMC_SO := $(OUTPUT)/libpmc.so.$(PMC_SO_VERSION)
PMC_LIBS := $(OUTPUT)/libpmc.a $(PMC_SO) $(OUTPUT)/$(PMC_SONAME) $(OUTPUT)/libpmc.so
# -z defs: a library that needs something it does not link fails here,
# not in its users' links (not with sanitizers, whose runtime the
# program brings).
PMC_SO_LDFLAGS := $(if $(SAN_FLAGS),,-Wl,-z,defs)
VERSION := $(shell sed -n 's/^\#define BPMC_VERSION "\(.*\)"/\1/p' user/common/version.h)

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

.DELETE_ON_ERROR:
# Keep every intermediate (objects, the skeleton): nothing is rebuilt twice.
.SECONDARY:
.SECONDEXPANSION:
.PHONY: all deps run test check bench bperf soak format clean test-bins install uninstall \
	fuzz fuzz-bins test-hw test-vm FORCE

all: $(BPMC_BIN) $(PMC_LIBS) $(OUTPUT)/libpmc.pc

include vmlinux/vmlinux.mk

$(OUTPUT) $(OUTPUT)/tests $(OUTPUT)/bench $(OUTPUT)/fuzz:
	$(Q)mkdir -p $@

# -g debug info only goes: BTF stays, and the skeleton embeds 1/7th.
$(OUTPUT)/%.bpf.o: bpf/%.bpf.c $(VMLINUX_H) $(BPF_ARCH_STAMP) | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(CPPFLAGS) $(BPF_CFLAGS) -c $< -o $@
	$(Q)$(LLVM_STRIP) -g $@

$(OUTPUT)/%.skel.h: $(OUTPUT)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

# `bpmc --version`'s commit: git describe of this tree at build time
# (BPMC_GIT_DESCRIBE where the tree is a copy: make deb),
# rewritten only when it changes, so that only version.o follows it; a
# tree without its own .git (a tarball, even unpacked inside another
# repository) says "unknown". Only characters a tag can safely hold.
GIT_VERSION_H := $(OUTPUT)/cmd/git_version.h
$(GIT_VERSION_H): FORCE
	$(Q)mkdir -p $(@D)
	$(Q)d=$$( (if [ -n "$$BPMC_GIT_DESCRIBE" ]; then echo "$$BPMC_GIT_DESCRIBE"; \
		elif test -e .git; then git describe --always --dirty 2>/dev/null; fi) | \
		tr -cd 'A-Za-z0-9._+-'); \
	printf '#define BPMC_GIT_DESCRIBE "%s"\n' "$${d:-unknown}" > $@.tmp
	$(Q)if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv -f $@.tmp $@; fi
$(OUTPUT)/user/cmd/version.o: $(GIT_VERSION_H)

# Only maps/ includes the skeleton; the first build must have it.
$(filter $(OUTPUT)/user/maps/%.o,$(USER_OBJS)): | $(SKELS)

$(OUTPUT)/user/%.o: user/%.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

define stage_archive
$(call stage_ar,$(1)): $(filter $(OUTPUT)/user/$(1)/%.o,$(USER_OBJS))
	$$(call msg,AR,$$@)
	$(Q)rm -f $$@
	$(Q)$(AR) rcs $$@ $$^
endef
$(foreach s,$(STAGES),$(eval $(call stage_archive,$(s))))

$(BPMC_BIN): $(call stage_archives,cmd)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ -Wl,--start-group $^ -Wl,--end-group \
		$(call stage_ldlibs,cmd)

$(OUTPUT)/pic/user/%.o: user/%.c
	$(call msg,CC-PIC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC -c $< -o $@

# The list of those objects, rewritten when it changes, so that a source
# removed or renamed in user/pmc/ leaves no stale member in the library.
$(OUTPUT)/pic/objects: FORCE
	$(Q)mkdir -p $(@D)
	$(Q)echo $(PMC_PIC_OBJS) > $@.tmp
	$(Q)if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv -f $@.tmp $@; fi

# The archive's one member is every object linked into one (-r), with
# only what PMC_MAP exports left global, as libpmc.so: a static user
# sees no internal name of ours (error__set, cpus_online...) to clash
# with its own. No CFLAGS there: clang -fsanitize=... -r would link the
# sanitizers' runtime into it, which the program brings itself.
PMC_KEEP := $(OUTPUT)/pic/libpmc.keep
$(PMC_KEEP): $(PMC_MAP) | $(OUTPUT)
	$(Q)mkdir -p $(@D)
	$(Q)sed -n '/global:/,/local:/{s/[[:space:];]//g;/^[a-z_*]*$$/p}' $< > $@
$(OUTPUT)/libpmc.a: $(PMC_PIC_OBJS) $(OUTPUT)/pic/objects $(PMC_KEEP)
	$(call msg,AR,$@)
	$(Q)rm -f $@ $(OUTPUT)/pic/libpmc.o
	$(Q)$(CC) -r -nostdlib -o $(OUTPUT)/pic/libpmc.o $(PMC_PIC_OBJS)
	$(Q)$(OBJCOPY) --wildcard --keep-global-symbols=$(PMC_KEEP) $(OUTPUT)/pic/libpmc.o
	$(Q)$(AR) rcs $@ $(OUTPUT)/pic/libpmc.o

$(PMC_SO): $(PMC_PIC_OBJS) $(PMC_MAP) $(OUTPUT)/pic/objects
	$(call msg,LINK-SO,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -shared -fPIC -Wl,-soname,$(PMC_SONAME) \
		-Wl,--version-script=$(PMC_MAP) $(PMC_SO_LDFLAGS) \
		-o $@ $(PMC_PIC_OBJS) $(PMC_LDLIBS)

$(OUTPUT)/$(PMC_SONAME): $(PMC_SO)
	$(Q)ln -sf $(notdir $<) $@

$(OUTPUT)/libpmc.so: $(OUTPUT)/$(PMC_SONAME)
	$(Q)ln -sf $(notdir $<) $@

# Its paths follow PREFIX, LIBDIR and INCLUDEDIR at every make: rewritten
# only when they changed.
$(OUTPUT)/libpmc.pc: scripts/libpmc.pc.in FORCE | $(OUTPUT)
	$(Q)sed -e 's|@PREFIX@|$(PREFIX)|g' \
		-e 's|@LIBDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))|g' \
		-e 's|@INCLUDEDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))|g' \
		-e 's|@VERSION@|$(VERSION)|g' -e 's|@LIBS_PRIVATE@|$(PMC_LDLIBS)|g' \
		$< > $@.tmp
	$(Q)if cmp -s $@.tmp $@; then rm -f $@.tmp; else \
		printf '  %-8s %s\n' GEN $@; mv -f $@.tmp $@; fi

$(OUTPUT)/tests/test_%: tests/unit/test_%.c $$(call stage_archives,$$(STAGE_test_$$*)) | $(OUTPUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -Itests/unit $< -o $@ -Wl,--start-group \
		$(call stage_archives,$(STAGE_test_$*)) -Wl,--end-group \
		$(call stage_ldlibs,$(STAGE_test_$*))

$(OUTPUT)/bench/%: bench/%.c $$(call stage_archives,$$(STAGE_$$*)) | $(OUTPUT)/bench
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $< -o $@ -Wl,--start-group \
		$(call stage_archives,$(STAGE_$*)) -Wl,--end-group \
		$(call stage_ldlibs,$(STAGE_$*)) $(LDLIBS_$*)

# A helper that drives one of our stages links it (STAGE_helper_NAME).
STAGE_helper_csv_writer := sinks
$(OUTPUT)/tests/%: tests/helpers/%.c $$(call stage_archives,$$(STAGE_helper_$$*)) | $(OUTPUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $< -o $@ -Wl,--start-group \
		$(call stage_archives,$(STAGE_helper_$*)) -Wl,--end-group \
		$(call stage_ldlibs,$(STAGE_helper_$*)) -pthread -lbpf -lelf -lz

# The cross build's sysroot and what its default goal adds: the helpers,
# and tests/pmc's programs linked with libpmc.so, found beside them
# (rpath $$ORIGIN/..) wherever the tree lies.
ifeq ($(CROSS),1)
SYSROOT ?= $(CURDIR)/build/vm/root
override CFLAGS += --sysroot=$(SYSROOT)
override LDFLAGS += --sysroot=$(SYSROOT)
PMC_PROG_SRCS := $(wildcard tests/pmc/*.c)
PMC_PROG_BINS := $(patsubst tests/pmc/%.c,$(OUTPUT)/pmc/%,$(PMC_PROG_SRCS))
all: $(HELPER_BINS) $(PMC_PROG_BINS)
$(OUTPUT)/pmc/%: tests/pmc/%.c $(OUTPUT)/libpmc.so
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) -g -O2 -Wall $(if $(filter 1,$(WERROR)),-Werror) -Iinclude \
		--sysroot=$(SYSROOT) $(LDFLAGS) -rdynamic $< -o $@ -L$(OUTPUT) \
		-Wl,-rpath,'$$ORIGIN/..' -lpmc -pthread -ldl
# build/vm/root, fetched once (scripts/arm64-root: apt, network) before
# anything is compiled against it.
ifeq ($(SYSROOT),$(CURDIR)/build/vm/root)
$(SYSROOT)/.packages: scripts/arm64-root
	$(call msg,ROOT,$(SYSROOT))
	$(Q)scripts/arm64-root
	$(Q)touch $@
$(USER_OBJS) $(PMC_PIC_OBJS) $(UNIT_BINS) $(BENCH_BINS) $(HELPER_BINS) $(PMC_PROG_BINS): | $(SYSROOT)/.packages
endif
endif

$(OUTPUT)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $$(call stage_archives,$$(STAGE_fuzz_$$*)) | $(OUTPUT)/fuzz
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -fsanitize=fuzzer $< -o $@ -Wl,--start-group \
		$(call stage_archives,$(STAGE_fuzz_$*)) -Wl,--end-group \
		$(call stage_ldlibs,$(STAGE_fuzz_$*))

-include $(USER_OBJS:.o=.d) $(PMC_PIC_OBJS:.o=.d) $(BPF_OBJS:.o=.d) $(UNIT_BINS:=.d) \
	$(BENCH_BINS:=.d) $(HELPER_BINS:=.d) $(FUZZ_BINS:=.d)

# Installs whatever of the build and test dependencies is missing.
deps:
	$(Q)scripts/install-deps

run: deps
	$(Q)$(MAKE) -s --no-print-directory all
	$(Q)scripts/run-default

# Benches are built too, so a change that breaks one fails the suite.
test-bins: all $(UNIT_BINS) $(HELPER_BINS) $(BENCH_BINS)

# The suite finds the binary and the helpers through BPMC_BIN and
# BPMC_BUILD (tests/run, tests/integration/lib.sh); under SANITIZE=1,
# tests/run makes every finding of ASan or UBSan fail the test it
# happened in (see SANITIZE there).
test: deps
	$(Q)$(MAKE) -s --no-print-directory test-bins
	$(Q)if tests/fuzz/run --can-build $(CLANG); then \
		$(MAKE) -s --no-print-directory fuzz-bins; fi
	$(Q)BPMC_BIN=$(abspath $(BPMC_BIN)) BPMC_BUILD=$(abspath $(OUTPUT)) \
		SANITIZE=$(SANITIZE) $(if $(filter 1,$(SANITIZE)),BPMC_FUZZ_SKIP="$(FUZZ_SKIP_SAN)") \
		tests/run

# The hardware suite (tests/hw/): make test-hw runs it on this host,
# each test skipping with the reason where there is no hardware PMU;
# make test-vm runs it in one arm64 guest with QEMU's emulated PMU
# (tests/run --vm: make ARCH=arm64, then scripts/vm-run), installing
# what that needs first (scripts/install-deps --vm: qemu, the cross
# compiler; the guest's packages come with scripts/arm64-root).
test-hw:
	$(Q)scripts/install-deps --hw
	$(Q)$(MAKE) -s --no-print-directory test-bins
	$(Q)BPMC_BIN=$(abspath $(BPMC_BIN)) BPMC_BUILD=$(abspath $(OUTPUT)) tests/run --hw

test-vm:
	$(Q)scripts/install-deps --vm
	$(Q)tests/run --vm

# make check: the fast path for a one-line change, as any user, without
# deps (apt): the build, the unit tests, the static integration tests
# (`# bpmc-test: static`: the layout and the man pages) and each fuzz
# target over its corpus once (where libFuzzer is, else skipped), in
# parallel unless -j says otherwise. CONTRIBUTING.md has its times.
check:
	$(Q)fuzz=; if tests/fuzz/run --can-build $(CLANG); then fuzz=fuzz-bins; fi; \
		$(MAKE) -s --no-print-directory $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc)) \
		all $(UNIT_BINS) $$fuzz
	$(Q)BPMC_BIN=$(abspath $(BPMC_BIN)) BPMC_BUILD=$(abspath $(OUTPUT)) \
		SANITIZE=$(SANITIZE) tests/run --unit --fuzz-replay

# The fuzz targets carry ASan and UBSan themselves and run in the plain
# suite: the sanitized suite does not run them a second time.
FUZZ_SKIP_SAN := run by the plain suite, which builds them with ASan and UBSan

# The libFuzzer targets, in build-fuzz/ whatever SANITIZE says.
ifeq ($(FUZZ),1)
fuzz-bins: $(FUZZ_BINS)
else
fuzz-bins:
	$(Q)$(MAKE) --no-print-directory FUZZ=1 fuzz-bins
endif

# make fuzz [FUZZ_SECONDS=60] [FUZZ_MERGE=1]: each target for
# FUZZ_SECONDS from its corpus in tests/fuzz/corpus/; FUZZ_MERGE=1 merges
# the inputs that found new coverage into the corpus.
fuzz: deps
	$(Q)$(MAKE) -s --no-print-directory fuzz-bins
	$(Q)tests/fuzz/run -s $(FUZZ_SECONDS) $(if $(filter 1,$(FUZZ_MERGE)),--merge)

# SOAK_SECONDS=600 and SOAK_MAX_KEYS=16384 by default; tests/soak/soak.sh
# says what it checks.
soak: deps
	$(Q)$(MAKE) -s --no-print-directory test-bins
	$(Q)tests/soak/soak.sh

bench: deps
	$(Q)$(MAKE) -s --no-print-directory all $(HELPER_BINS) $(BENCH_BINS)
	$(Q)bench/run

# make bperf: perf 6.1 with BPF skeletons (--bpf-counters), built from
# Debian's linux-source-6.1 and cached in /var/cache/bpmc-bench (root;
# 1.5-3 minutes the first time); prints its path. Not part of make test.
bperf:
	$(Q)bench/build_bperf.sh

# make install [PREFIX=/usr/local] [LIBDIR=PREFIX/lib] [DESTDIR=]: the
# binary, the docs, the systemd unit (its paths follow PREFIX) and the
# sysusers.d entry of the user bpmc, which is created only when
# installing to the real root (REAL_ROOT: no DESTDIR, and PREFIX /usr or
# /usr/local, the prefixes whose sysusers.d and units systemd reads; a
# PREFIX elsewhere is a tree of files, not an installation); and libpmc: <pmc.h> and <sys/pmc.h>,
# libpmc.a, libpmc.so* and libpmc.pc in LIBDIR (and LIBDIR/pkgconfig),
# pmc_control(3) and pmc_get_info(3); bpmc(1) and the commands' pages
# (man/) and the bash and zsh completions. ldconfig runs only without
# DESTDIR.
PREFIX ?= /usr/local
BINDIR := $(PREFIX)/bin
DOCDIR := $(PREFIX)/share/doc/bpmc
UNITDIR := $(PREFIX)/lib/systemd/system
SYSUSERSDIR := $(PREFIX)/lib/sysusers.d
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR := $(LIBDIR)/pkgconfig
MAN3DIR := $(PREFIX)/share/man/man3
MAN1DIR := $(PREFIX)/share/man/man1
# bpmc(1) and a page per command (tests/integration/test_man_pages.sh).
MAN1_PAGES := $(wildcard man/*.1)
BASHCOMPDIR := $(PREFIX)/share/bash-completion/completions
# zsh's _bpmc runs the bash one, which it finds from there.
ZSHCOMPDIR := $(PREFIX)/share/zsh/site-functions
DOCS := README.md $(wildcard docs/*.md)
SYSTEM_PREFIXES := /usr /usr/local
REAL_ROOT := $(if $(DESTDIR),,$(filter $(SYSTEM_PREFIXES),$(patsubst %/,%,$(PREFIX))))

install: $(BPMC_BIN) $(PMC_LIBS) $(OUTPUT)/libpmc.pc $(PMC_MAN)
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX))
	$(Q)install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DOCDIR) \
		$(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSUSERSDIR) \
		$(DESTDIR)$(INCLUDEDIR)/sys $(DESTDIR)$(LIBDIR) \
		$(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(MAN3DIR) \
		$(DESTDIR)$(MAN1DIR) $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR)
	$(Q)install -m 0644 $(MAN1_PAGES) $(DESTDIR)$(MAN1DIR)/
	$(Q)install -m 0644 completion/bpmc.bash $(DESTDIR)$(BASHCOMPDIR)/bpmc
	$(Q)install -m 0644 completion/_bpmc $(DESTDIR)$(ZSHCOMPDIR)/_bpmc
	$(Q)install -m 0644 include/pmc.h $(DESTDIR)$(INCLUDEDIR)/pmc.h
	$(Q)install -m 0644 include/sys/pmc.h $(DESTDIR)$(INCLUDEDIR)/sys/pmc.h
	$(Q)install -m 0644 $(OUTPUT)/libpmc.a $(DESTDIR)$(LIBDIR)/libpmc.a
	$(Q)install -m 0755 $(PMC_SO) $(DESTDIR)$(LIBDIR)/$(notdir $(PMC_SO))
	$(Q)ln -sf $(notdir $(PMC_SO)) $(DESTDIR)$(LIBDIR)/$(PMC_SONAME)
	$(Q)ln -sf $(PMC_SONAME) $(DESTDIR)$(LIBDIR)/libpmc.so
	$(Q)install -m 0644 $(OUTPUT)/libpmc.pc $(DESTDIR)$(PKGCONFIGDIR)/libpmc.pc
	$(Q)install -m 0644 $(PMC_MAN) $(DESTDIR)$(MAN3DIR)/pmc_control.3
	$(Q)echo '.so man3/pmc_control.3' > $(DESTDIR)$(MAN3DIR)/pmc_get_info.3
	$(Q)chmod 0644 $(DESTDIR)$(MAN3DIR)/pmc_get_info.3
	$(Q)install -m 0755 $(BPMC_BIN) $(DESTDIR)$(BINDIR)/bpmc
	$(Q)install -m 0644 $(DOCS) $(DESTDIR)$(DOCDIR)/
	$(Q)sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@DOCDIR@|$(DOCDIR)|g' \
		scripts/bpmc.service > $(DESTDIR)$(UNITDIR)/bpmc.service
	$(Q)chmod 0644 $(DESTDIR)$(UNITDIR)/bpmc.service
	$(Q)install -m 0644 scripts/bpmc.sysusers $(DESTDIR)$(SYSUSERSDIR)/bpmc.conf
	$(Q)if [ -n "$(REAL_ROOT)" ]; then \
		if command -v systemd-sysusers >/dev/null; then \
			systemd-sysusers $(SYSUSERSDIR)/bpmc.conf; \
		elif ! id bpmc >/dev/null 2>&1; then \
			useradd --system --user-group --no-create-home \
				--home-dir /var/lib/bpmc --shell /usr/sbin/nologin bpmc; \
		fi; \
	fi
	$(Q)if [ -z "$(DESTDIR)" ]; then ldconfig; fi

# Leaves the user bpmc and /var/lib/bpmc, which hold the recordings.
uninstall:
	$(call msg,UNINSTALL,$(DESTDIR)$(PREFIX))
	$(Q)rm -f $(DESTDIR)$(BINDIR)/bpmc $(DESTDIR)$(UNITDIR)/bpmc.service \
		$(DESTDIR)$(SYSUSERSDIR)/bpmc.conf \
		$(addprefix $(DESTDIR)$(DOCDIR)/,$(notdir $(DOCS))) \
		$(DESTDIR)$(INCLUDEDIR)/pmc.h $(DESTDIR)$(INCLUDEDIR)/sys/pmc.h \
		$(addprefix $(DESTDIR)$(LIBDIR)/,libpmc.a libpmc.so $(PMC_SONAME) \
			$(notdir $(PMC_SO))) \
		$(DESTDIR)$(PKGCONFIGDIR)/libpmc.pc \
		$(DESTDIR)$(MAN3DIR)/pmc_control.3 $(DESTDIR)$(MAN3DIR)/pmc_get_info.3 \
		$(addprefix $(DESTDIR)$(MAN1DIR)/,$(notdir $(MAN1_PAGES))) \
		$(DESTDIR)$(BASHCOMPDIR)/bpmc $(DESTDIR)$(ZSHCOMPDIR)/_bpmc
	$(Q)rmdir $(DESTDIR)$(DOCDIR) 2>/dev/null || true
	$(Q)if [ -z "$(DESTDIR)" ]; then ldconfig; fi

# make deb: bpmc, libpmc1 and libpmc-dev (debian/) in $(DEB_DIR), built by
# dpkg-buildpackage from a copy of this checkout's files (git ls-files:
# tracked and untracked, not ignored; not the tests), so that debhelper's `make clean`
# never empties the build/ and ./bpmc of this tree, and the tree gains no
# debian/tmp. Then lintian, which must find no error. Made again only when
# one of those files changes. Needs `scripts/install-deps --deb`.
DEB_DIR := build/deb
# Not tests/, bench/, deploy/ or scripts/image: nothing of them is in a package.
DEB_LS = git ls-files -co --exclude-standard $(1) -- . ':!tests' ':!bench' ':!deploy' ':!.ci' ':!scripts/image'
DEB_FILES = $(wildcard $(shell $(call DEB_LS) 2>/dev/null))
DEB_VERSION = $(shell dpkg-parsechangelog -l debian/changelog -S Version 2>/dev/null)
.PHONY: deb
deb:
	$(Q)scripts/install-deps --deb
	$(Q)$(MAKE) -s --no-print-directory $(DEB_DIR)/stamp
$(DEB_DIR)/stamp: $$(DEB_FILES)
	$(Q)[ -e .git ] || { echo "make deb: needs a git checkout (it packages git ls-files)" >&2; exit 1; }
	$(Q)[ "$(DEB_VERSION)" = "$(VERSION)" ] || { echo "make deb: debian/changelog says $(DEB_VERSION), \
		user/common/version.h $(VERSION)" >&2; exit 1; }
	$(call msg,DEB,$(DEB_DIR))
	$(Q)rm -rf $(DEB_DIR) && mkdir -p $(DEB_DIR)/bpmc-$(VERSION)
	$(Q)$(call DEB_LS,-z) | xargs -0 sh -c 'for f; do [ -e "$$f" ] || [ -L "$$f" ] && printf "%s\0" "$$f"; done' sh | \
		tar -c --null -T - | tar -x -C $(DEB_DIR)/bpmc-$(VERSION)
	$(Q)cd $(DEB_DIR)/bpmc-$(VERSION) && \
		BPMC_GIT_DESCRIBE=$$(cd $(CURDIR) && git describe --always --dirty 2>/dev/null) \
		dpkg-buildpackage -b -us -uc -J$(shell nproc) >../build.log 2>&1 || \
		{ tail -30 ../build.log >&2; echo "make deb: dpkg-buildpackage failed: $(DEB_DIR)/build.log" >&2; exit 1; }
	$(Q)lintian --allow-root --fail-on error --display-info --tag-display-limit 0 $(DEB_DIR)/bpmc_$(VERSION)_*.changes \
		>$(DEB_DIR)/lintian.log 2>&1 || { cat $(DEB_DIR)/lintian.log >&2; exit 1; }
	$(Q)cat $(DEB_DIR)/lintian.log
	$(Q)touch $@

format:
	$(Q)clang-format -i bpf/*.c bpf/*.h include/*.h $(USER_SRCS) \
		$(wildcard $(foreach s,$(STAGES),user/$(s)/*.h)) \
		tests/unit/*.c tests/unit/*.h tests/helpers/*.c bench/*.c \
		tests/fuzz/*.c

clean:
	$(call msg,CLEAN,)
	$(Q)rm -rf $(OUTPUT) $(BPMC_BIN)
