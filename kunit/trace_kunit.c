// SPDX-License-Identifier: GPL-2.0
/*
 * trace_kunit.c - the glue's tracepoints for tungro_kunit.ko, which links the glue but not
 * tungro_trace.c: defined under events/tungro_kunit/, so the two modules, loaded together, never
 * register one event twice.
 */
#define TUNGRO_TRACE_KUNIT
#define CREATE_TRACE_POINTS
#include "../module/tungro_trace.h"
