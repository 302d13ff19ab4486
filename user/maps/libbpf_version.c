// SPDX-License-Identifier: GPL-2.0
#include <bpf/libbpf.h>
#include <bpf/libbpf_version.h>

#include "maps/libbpf_version.h"

void libbpf__version(struct lib_version *v)
{
	v->built_major = LIBBPF_MAJOR_VERSION;
	v->built_minor = LIBBPF_MINOR_VERSION;
	v->run_major = libbpf_major_version();
	v->run_minor = libbpf_minor_version();
	lib_version__locate(v, (const void *)libbpf_major_version);
}
