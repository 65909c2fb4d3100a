// SPDX-License-Identifier: GPL-2.0
/* tungro_pred.c - the offload path's per-CPU prediction slots (tungro_pred.h): their set-up. */
#define pr_fmt(fmt) "tungro: " fmt	/* also linked into tungro_kunit.ko: one name in the log */

#include <linux/cpumask.h>
#include <linux/slab.h>

#include "tungro_pred.h"

struct tungro_pred_cpu __percpu *tungro_preds;

/**
 * tungro_pred_alloc() - the prediction slots, before tungro's offloads are published
 *
 * None where the tag cannot tell the CPUs apart (more than 255 possible) or the kernel leaves no
 * byte of skb->cb for it (6.1): the offload path then runs without its predicted stage.
 *
 * Context: process context, sleeps.
 * Return: 0, or -ENOMEM.
 */
int tungro_pred_alloc(void)
{
	struct tungro_pred_cpu __percpu *preds;

	if (!tungro_cb_has_pred_cpu() || nr_cpu_ids > U8_MAX)
		return 0;
	preds = alloc_percpu(struct tungro_pred_cpu);	/* zeroed: no slot names a packet */
	if (!preds)
		return -ENOMEM;
	WRITE_ONCE(tungro_preds, preds);
	return 0;
}

/**
 * tungro_pred_free() - the slots, once no CPU runs tungro's offloads (tungro_offloads_remove())
 *
 * Context: process context.
 */
void tungro_pred_free(void)
{
	struct tungro_pred_cpu __percpu *preds = tungro_preds;

	WRITE_ONCE(tungro_preds, NULL);
	free_percpu(preds);
}
