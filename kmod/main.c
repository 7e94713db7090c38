// SPDX-License-Identifier: GPL-2.0
/*
 * nvmediate: module entry points; each part of the module declares its own
 * parameters.
 */
#include <linux/module.h>
#include <linux/rcupdate.h>

#include "abi.h"
#include "bounce.h"
#include "devnodes.h"
#include "fdctx.h"
#include "node.h"
#include "nodefs.h"
#include "sets.h"
#include "setsfs.h"
#include "stats.h"
#include "nvmediate.h"

/* /sys/class/nvmediate: the ABI in use and the counters. */
static const struct attribute_group *nvm_class_groups[] = {
	&nvm_abi_class_group,
	&nvm_stats_class_group,
	NULL
};

static int __init nvm_init(void)
{
	dev_t devt;
	int ret;

	if (nvm_num_gpus > NVM_MAX_GPUS) {
		pr_err("num_gpus=%u: at most %u GPU nodes; load nvmediate with a smaller num_gpus (/etc/modprobe.d/nvmediate.conf)\n",
		       nvm_num_gpus, NVM_MAX_GPUS);
		return -EINVAL;
	}
	if (nvm_bounce_mode > 2) {
		pr_err("bounce=%u: 0, 1 or 2\n", nvm_bounce_mode);
		return -EINVAL;
	}
	ret = nvm_fdctx_init();
	if (ret)
		return ret;
	ret = nvm_bounce_init();
	if (ret)
		goto err_fdctx;
	ret = nvm_abi_init();
	if (ret)
		goto err_bounce;
	ret = nvm_stats_init();
	if (ret)
		goto err_abi;
	ret = nvm_devnodes_init(nvm_class_groups, &devt);
	if (ret) {
		pr_err("cannot register the mediated nodes: %d\n", ret);
		goto err_stats;
	}
	nvm_node_init(devt);
	ret = nvm_sets_init(&nvm_setsfs_ktype, &nvm_setsfs_top_group);
	if (ret) {
		pr_err("cannot create the node sets: %d\n", ret);
		goto err_devnodes;
	}
	/* The driver's version, decided now and whenever its module comes or goes. */
	ret = nvm_abi_start();
	if (ret)
		goto err_sets;
	/* Last: nothing may fail once a file can be opened. */
	ret = nvm_node_start();
	if (ret) {
		pr_err("cannot register the mediated nodes: %d\n", ret);
		goto err_abi_start;
	}
	/*
	 * The nodes at the driver's numbers mount the nodes above: without
	 * them nvmediate still serves /dev/nvproxy*, and says so.
	 */
	ret = nvm_nodefs_init(devt);
	if (ret)
		pr_err("cannot register the filesystem nvmediatefs: %d; the nodes at the driver's numbers (docs/containers.md) cannot be mounted\n",
		       ret);
	pr_info("version %s: /dev/%s, /dev/%s0..%u, /dev/%s\n", NVM_VERSION,
		NVM_NODE_NAME_CTL, NVM_NODE_NAME_CTL, nvm_num_gpus ? nvm_num_gpus - 1 : 0,
		NVM_NODE_NAME_UVM);
	return 0;

err_abi_start:
	nvm_abi_stop();
err_sets:
	nvm_sets_exit();
err_devnodes:
	nvm_devnodes_exit();
err_stats:
	nvm_stats_exit();
err_abi:
	nvm_abi_exit();
err_bounce:
	nvm_bounce_exit();
err_fdctx:
	nvm_fdctx_exit();
	return ret;
}

static void __exit nvm_exit(void)
{
	nvm_nodefs_exit();
	nvm_node_stop();
	nvm_abi_stop();
	nvm_sets_exit();
	nvm_devnodes_exit();
	nvm_stats_exit();
	nvm_abi_exit();
	nvm_bounce_exit();
	nvm_fdctx_exit();
	/* Private fd tables freed by call_rcu() (fdctx.c) run our code. */
	rcu_barrier();
}

module_init(nvm_init);
module_exit(nvm_exit);

MODULE_DESCRIPTION("Mediated, checked access to the NVIDIA driver's device nodes");
MODULE_LICENSE("GPL");
MODULE_VERSION(NVM_VERSION);
