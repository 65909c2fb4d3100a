// SPDX-License-Identifier: GPL-2.0
/*
 * tungro_main.c - module load and unload: layout asserts, stats, the offload swap of
 * tungro_offload.c and the engine path of tungro_attach.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "tungro.h"
#include "tungro_attach.h"
#include "tungro_cb.h"

static int __init tungro_init(void)
{
	int err;

	tungro_layout_asserts();
	tungro_stats_init();
	err = tungro_offloads_install();
	if (err)
		return err;
	tungro_debugfs_init();
	err = tungro_attach_init();
	if (err) {
		tungro_debugfs_exit();
		tungro_offloads_remove();
		return err;
	}
	pr_info("IPIP, SIT, ip4ip6 and ip6ip6 GRO taken over\n");
	return 0;
}

static void __exit tungro_exit(void)
{
	tungro_attach_exit();
	tungro_debugfs_exit();
	tungro_offloads_remove();
	pr_info("IPIP, SIT, ip4ip6 and ip6ip6 GRO given back to the kernel\n");
}

module_init(tungro_init);
module_exit(tungro_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tungro: GRO for IPIP and SIT tunnels from a freestanding C++ core");
