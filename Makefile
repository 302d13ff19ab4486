# bpmc: build, run, test, bench. See README.md.
OUTPUT := build
CLANG ?= clang
BPFTOOL ?= bpftool
CC ?= cc
ARCH := $(shell uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/;s/ppc64le/powerpc/')

CFLAGS ?= -g -O2
CFLAGS += -Wall -Wextra -Wno-unused-parameter -std=gnu11 -D_GNU_SOURCE \
	  -Iinclude -Iuser -I$(OUTPUT)
LDLIBS := -lbpf -lelf -lz -lpfm -lm
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Wall \
	      -Iinclude -I$(OUTPUT)

BPF_SRCS := $(wildcard bpf/*.bpf.c)
BPF_OBJS := $(patsubst bpf/%.bpf.c,$(OUTPUT)/%.bpf.o,$(BPF_SRCS))
SKELS := $(patsubst bpf/%.bpf.c,$(OUTPUT)/%.skel.h,$(BPF_SRCS))
USER_SRCS := $(wildcard user/*.c)
USER_OBJS := $(patsubst user/%.c,$(OUTPUT)/user/%.o,$(USER_SRCS))
LIB_OBJS := $(filter-out $(OUTPUT)/user/main.o,$(USER_OBJS))
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(OUTPUT)/tests/%,$(UNIT_SRCS))
BENCH_SRCS := $(wildcard bench/*.c)
BENCH_BINS := $(patsubst bench/%.c,$(OUTPUT)/bench/%,$(BENCH_SRCS))
HELPER_SRCS := $(wildcard tests/helpers/*.c)
HELPER_BINS := $(patsubst tests/helpers/%.c,$(OUTPUT)/tests/%,$(HELPER_SRCS))

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

.DELETE_ON_ERROR:
.SECONDARY: $(BPF_OBJS)
.PHONY: all deps run test bench format clean test-bins

all: bpmc

include vmlinux/vmlinux.mk

$(OUTPUT) $(OUTPUT)/user $(OUTPUT)/tests $(OUTPUT)/bench:
	$(Q)mkdir -p $@

$(OUTPUT)/%.bpf.o: bpf/%.bpf.c $(OUTPUT)/vmlinux.h $(wildcard include/*.h) | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUTPUT)/%.skel.h: $(OUTPUT)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

$(OUTPUT)/user/%.o: user/%.c $(wildcard user/*.h include/*.h) $(SKELS) | $(OUTPUT)/user
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

bpmc: $(USER_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

$(OUTPUT)/tests/test_%: tests/unit/test_%.c tests/unit/test.h $(LIB_OBJS) | $(OUTPUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Itests/unit $< $(LIB_OBJS) -o $@ $(LDLIBS)

$(OUTPUT)/bench/%: bench/%.c $(LIB_OBJS) | $(OUTPUT)/bench
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $< $(LIB_OBJS) -o $@ $(LDLIBS)

$(OUTPUT)/tests/%: tests/helpers/%.c | $(OUTPUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $< -o $@ $(LDLIBS)

# Installs whatever of the build and test dependencies is missing.
deps:
	$(Q)scripts/install-deps

run: deps
	$(Q)$(MAKE) -s --no-print-directory all
	$(Q)scripts/run-default

test-bins: all $(UNIT_BINS) $(HELPER_BINS)

test: deps
	$(Q)$(MAKE) -s --no-print-directory test-bins
	$(Q)tests/run

bench: deps
	$(Q)$(MAKE) -s --no-print-directory all $(HELPER_BINS) $(BENCH_BINS)
	$(Q)bench/run

format:
	$(Q)clang-format -i bpf/*.c user/*.c user/*.h include/*.h tests/unit/*.c tests/unit/*.h tests/helpers/*.c

clean:
	$(call msg,CLEAN,)
	$(Q)rm -rf $(OUTPUT) bpmc
