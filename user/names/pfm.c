// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "names/pfm.h"

static pthread_once_t pfm_once = PTHREAD_ONCE_INIT;
static int pfm_status;

static void pfm_init_once(void)
{
	/* Without this, libpfm 4.13 hides every table it did not detect,
	 * even when the name carries an explicit TABLE:: prefix. */
	setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
	pfm_status = pfm_initialize();
}

int libpfm__init(struct error *err)
{
	pthread_once(&pfm_once, pfm_init_once);
	if (pfm_status != PFM_SUCCESS)
		return error__set(err, EINVAL, "cannot initialise libpfm: %s",
				  pfm_strerror(pfm_status));
	return 0;
}

bool libpfm__pmu_get(pfm_pmu_t pmu, pfm_pmu_info_t *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	return pfm_get_pmu_info(pmu, info) == PFM_SUCCESS;
}

bool libpfm__event_get(int idx, pfm_event_info_t *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	return pfm_get_event_info(idx, PFM_OS_NONE, info) == PFM_SUCCESS;
}

bool libpfm__umask_get(int idx, int attr, pfm_event_attr_info_t *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	return pfm_get_event_attr_info(idx, attr, PFM_OS_NONE, info) ==
		       PFM_SUCCESS &&
	       info->type == PFM_ATTR_UMASK;
}

/* Any case, as libpfm takes TABLE:: (SNBEP_UNC_PCU::... in its tests). */
int libpfm__pmu_by_name(const char *name)
{
	pfm_pmu_info_t info;
	pfm_pmu_t pmu;

	pfm_for_all_pmus(pmu) {
		if (libpfm__pmu_get(pmu, &info) && !strcasecmp(info.name, name))
			return pmu;
	}
	return -1;
}

int libpfm__detected_core(void)
{
	pfm_pmu_info_t info;
	pfm_pmu_t pmu;

	pfm_for_all_pmus(pmu) {
		if (libpfm__pmu_get(pmu, &info) && info.is_present &&
		    info.type == PFM_PMU_TYPE_CORE)
			return pmu;
	}
	return -1;
}

void libpfm__version(struct lib_version *v)
{
	int run = pfm_get_version();

	v->built_major = PFM_MAJ_VERSION(LIBPFM_VERSION);
	v->built_minor = PFM_MIN_VERSION(LIBPFM_VERSION);
	v->run_major = run < 0 ? 0 : PFM_MAJ_VERSION(run);
	v->run_minor = run < 0 ? 0 : PFM_MIN_VERSION(run);
	lib_version__locate(v, (const void *)pfm_get_version);
}
