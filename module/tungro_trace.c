// SPDX-License-Identifier: GPL-2.0
/* tungro_trace.c - defines tungro.ko's tracepoints (tungro_trace.h): events/tungro/ in tracefs. */
#define CREATE_TRACE_POINTS
#include "tungro_trace.h"
