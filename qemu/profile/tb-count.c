// SPDX-License-Identifier: GPL-2.0
/*
 * tb-count.c - a QEMU TCG plugin that counts the guest instructions each translation block runs,
 * for scripts/guest-profile.sh: where the kernel side of issue 12's bench spends its instructions,
 * function by function (scripts/guest-profile.py symbolises the blocks' addresses).
 *
 * usage: qemu-system-... -plugin path/tb-count.so,out=FILE
 * At exit FILE holds one line per block address: "vaddr_hex insns_per_exec execs" (blocks translated
 * more than once are summed). A block's instructions are counted whole when it is entered (an
 * exception in the middle overcounts it by the rest: rare in the receive path).
 *
 * QEMU 7.2 (Debian 12) installs no qemu-plugin.h, so the few entry points of its plugin API
 * (QEMU_PLUGIN_VERSION 1, docs/devel/tcg-plugins.rst) are declared here.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_info_t;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*udata_cb_t)(qemu_plugin_id_t id, void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, enum qemu_plugin_op op,
					      void *ptr, uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, udata_cb_t cb, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

/* One translation of a block: its counter lives as long as QEMU (the inline add writes to it). */
struct block {
	uint64_t execs;		/* first: what the inline add points at */
	uint64_t vaddr;
	uint64_t insns;
	struct block *next;
};

static struct block *blocks;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char out_path[4096];

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	struct block *b = calloc(1, sizeof(*b));

	(void)id;
	if (!b)
		return;	/* that block goes uncounted: QEMU's allocation would fail next */
	b->vaddr = qemu_plugin_tb_vaddr(tb);
	b->insns = qemu_plugin_tb_n_insns(tb);
	pthread_mutex_lock(&lock);
	b->next = blocks;
	blocks = b;
	pthread_mutex_unlock(&lock);
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &b->execs, 1);
}

static void at_qemu_exit(qemu_plugin_id_t id, void *userdata)
{
	FILE *f = fopen(out_path, "w");
	struct block *b;

	(void)id;
	(void)userdata;
	if (!f) {
		fprintf(stderr, "tb-count: cannot write %s\n", out_path);
		return;
	}
	for (b = blocks; b; b = b->next)
		if (b->execs)
			fprintf(f, "%" PRIx64 " %" PRIu64 " %" PRIu64 "\n", b->vaddr, b->insns, b->execs);
	fclose(f);
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id,
							       const struct qemu_info_t *info,
							       int argc, char **argv)
{
	(void)info;
	if (argc != 1 || strncmp(argv[0], "out=", 4) != 0 || strlen(argv[0] + 4) >= sizeof(out_path)) {
		fprintf(stderr, "tb-count: usage: -plugin tb-count.so,out=FILE\n");
		return -1;
	}
	strcpy(out_path, argv[0] + 4);
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, at_qemu_exit, NULL);
	return 0;
}
