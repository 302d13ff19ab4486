# The kernel types the BPF programs are compiled against: the committed
# vmlinux/$(ARCH)/vmlinux.h (vmlinux/update.sh regenerates it and says in
# its first line which kernel it came from), so that a build needs no
# kernel with BTF. CO-RE relocations make the objects portable; the
# header only has to describe *a* kernel with the types we read.
# An architecture without one, or `make VMLINUX_H=build/vmlinux.h`,
# dumps the running kernel's BTF instead.
VMLINUX_H ?= $(or $(wildcard vmlinux/$(ARCH)/vmlinux.h),$(OUTPUT)/vmlinux.h)
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux

ifeq ($(VMLINUX_H),$(OUTPUT)/vmlinux.h)
$(OUTPUT)/vmlinux.h: | $(OUTPUT)
	$(call msg,GEN,$@)
	$(Q)test -r $(VMLINUX_BTF) || { echo "bpmc: $(VMLINUX_BTF) is missing: this kernel has no BTF" >&2; exit 1; }
	$(Q)$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@
endif

# The architecture the BPF objects were built for, rewritten when it
# changes: `make ARCH=arm64` after an x86 build rebuilds them.
BPF_ARCH_STAMP := $(OUTPUT)/bpf-arch
$(BPF_ARCH_STAMP): FORCE | $(OUTPUT)
	$(Q)echo $(ARCH) > $@.tmp
	$(Q)if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv -f $@.tmp $@; fi
