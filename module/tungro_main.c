// SPDX-License-Identifier: GPL-2.0
/* tungro_main.c - module load and unload: layout asserts, stats, and the offload swap of tungro_offload.c. */
#include <linux/module.h>

#include "tungro.h"
#include "tungro_cb.h"

static int __init tungro_init(void)
{
	int err;

	tungro_layout_asserts();
	err = tungro_stats_init();
	if (err)
		return err;
	err = tungro_offloads_install();
	if (err) {
		tungro_stats_exit();
		return err;
	}
	pr_info("tungro: IPIP and SIT GRO taken over\n");
	return 0;
}

static void __exit tungro_exit(void)
{
	tungro_offloads_remove();
	tungro_stats_exit();
	pr_info("tungro: IPIP and SIT GRO given back to the kernel\n");
}

module_init(tungro_init);
module_exit(tungro_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tungro: GRO for IPIP and SIT tunnels from a freestanding C++ core");
