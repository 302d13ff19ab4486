# vmlinux.h is generated from the running kernel's BTF, never committed.
# CO-RE relocations make the objects portable; this header only has to
# describe *a* kernel with the types we read.
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux

$(OUTPUT)/vmlinux.h: | $(OUTPUT)
	$(call msg,GEN,$@)
	$(Q)test -r $(VMLINUX_BTF) || { echo "bpmc: $(VMLINUX_BTF) is missing: this kernel has no BTF" >&2; exit 1; }
	$(Q)$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@
