// SPDX-License-Identifier: GPL-2.0
/*
 * overflow_floor PERIOD_NS [VARIANT]: the floor under case 1's overflow
 * handlers. A perf_event program that does nothing (r0 = 0; exit: what
 * bpftrace's empty probe compiles to) attached to a cpu-clock sampling
 * every PERIOD_NS on every online CPU, as `bpmc record -c` opens it
 * (one fd per CPU, the program attached to each), until SIGINT or
 * SIGTERM. Its run time per run, read like any program's from BPF
 * run-time statistics, is what every overflow program pays whatever it
 * does: the kernel's indirect call into it, the JIT's prologue and
 * return, and the statistics' own clock reads around it.
 *
 * VARIANT (default "empty") adds one thing to that, to price it alone:
 *   pid_tgid   one helper call, bpf_get_current_pid_tgid()
 *   ktime      one clock read, bpf_ktime_get_ns()
 *   cgroup     bpf_get_current_cgroup_id()
 *   array      a u64 in an array map's value read and written (one line
 *              of memory that nothing else touches between overflows)
 * The program is named ovf_VARIANT. Prints "ready" once attached.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <linux/perf_event.h>

#define MAX_CPUS 1024

static const struct {
	const char *name;
	int helper; /* 0: none */
	int map_flags; /* -1: no map; else an array's, its u64 incremented */
} variants[] = {
	{ "empty", 0, -1 },
	{ "pid_tgid", BPF_FUNC_get_current_pid_tgid, -1 },
	{ "ktime", BPF_FUNC_ktime_get_ns, -1 },
	{ "cgroup", BPF_FUNC_get_current_cgroup_id, -1 },
	{ "array", 0, 0 },
};

static void on_signal(int sig)
{
	(void)sig;
}

int main(int argc, char **argv)
{
	long period = argc >= 2 ? atol(argv[1]) : 0;
	const char *variant = argc >= 3 ? argv[2] : "empty";
	struct bpf_insn insns[8];
	static int fds[MAX_CPUS];
	char name[BPF_OBJ_NAME_LEN];
	int nr = 0, prog, helper = -1, map_flags = -1;
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	struct sigaction sa = { .sa_handler = on_signal };

	for (size_t i = 0; i < sizeof(variants) / sizeof(*variants); i++)
		if (!strcmp(variant, variants[i].name)) {
			helper = variants[i].helper;
			map_flags = variants[i].map_flags;
		}
	if (period <= 0 || argc > 3 || helper < 0) {
		fprintf(stderr,
			"usage: overflow_floor PERIOD_NS [empty|pid_tgid|ktime|cgroup|array]\n");
		return 2;
	}
	if (helper) {
		insns[nr++] = (struct bpf_insn){ .code = BPF_JMP | BPF_CALL,
						 .imm = helper };
	}
	if (map_flags >= 0) {
		LIBBPF_OPTS(bpf_map_create_opts, mo, .map_flags = map_flags);
		int map = bpf_map_create(BPF_MAP_TYPE_ARRAY, "ovf_floor", 4, 64,
					 1, &mo);

		if (map < 0) {
			fprintf(stderr, "overflow_floor: map: %s\n",
				strerror(errno));
			return 1;
		}
		/* r1 = &value[0]; r2 = *(u64 *)r1; r2 += 1; *(u64 *)r1 = r2 */
		insns[nr++] =
			(struct bpf_insn){ .code = BPF_LD | BPF_DW | BPF_IMM,
					   .dst_reg = BPF_REG_1,
					   .src_reg = BPF_PSEUDO_MAP_VALUE,
					   .imm = map };
		insns[nr++] = (struct bpf_insn){ 0 };
		insns[nr++] =
			(struct bpf_insn){ .code = BPF_LDX | BPF_MEM | BPF_DW,
					   .dst_reg = BPF_REG_2,
					   .src_reg = BPF_REG_1 };
		insns[nr++] =
			(struct bpf_insn){ .code = BPF_ALU64 | BPF_ADD | BPF_K,
					   .dst_reg = BPF_REG_2,
					   .imm = 1 };
		insns[nr++] =
			(struct bpf_insn){ .code = BPF_STX | BPF_MEM | BPF_DW,
					   .dst_reg = BPF_REG_1,
					   .src_reg = BPF_REG_2 };
	}
	insns[nr++] = (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_K,
					 .dst_reg = BPF_REG_0 };
	insns[nr++] = (struct bpf_insn){ .code = BPF_JMP | BPF_EXIT };
	snprintf(name, sizeof(name), "ovf_%s", variant);
	prog = bpf_prog_load(BPF_PROG_TYPE_PERF_EVENT, name, "GPL", insns, nr,
			     NULL);
	if (prog < 0) {
		fprintf(stderr, "overflow_floor: cannot load %s: %s\n", name,
			strerror(errno));
		return 1;
	}
	if (cpus > MAX_CPUS)
		cpus = MAX_CPUS;
	for (int cpu = 0; cpu < cpus; cpu++) {
		struct perf_event_attr attr = {
			.type = PERF_TYPE_SOFTWARE,
			.size = sizeof(attr),
			.config = PERF_COUNT_SW_CPU_CLOCK,
			.sample_period = period,
			.disabled = 1,
		};

		fds[cpu] = syscall(SYS_perf_event_open, &attr, -1, cpu, -1,
				   PERF_FLAG_FD_CLOEXEC);
		if (fds[cpu] < 0) {
			if (errno == ENODEV) /* offline */
				continue;
			fprintf(stderr,
				"overflow_floor: cpu-clock on cpu %d: %s\n",
				cpu, strerror(errno));
			return 1;
		}
		if (ioctl(fds[cpu], PERF_EVENT_IOC_SET_BPF, prog) ||
		    ioctl(fds[cpu], PERF_EVENT_IOC_ENABLE, 0)) {
			fprintf(stderr,
				"overflow_floor: attach on cpu %d: %s\n", cpu,
				strerror(errno));
			return 1;
		}
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	printf("ready\n");
	fflush(stdout);
	pause();
	return 0;
}
