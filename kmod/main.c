// SPDX-License-Identifier: GPL-2.0
/*
 * nvmediate: module entry points and parameters.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/rcupdate.h>

#include "nvm.h"
#include "nvmediate.h"

unsigned int nvm_num_gpus = 8;
module_param_named(num_gpus, nvm_num_gpus, uint, 0444);
MODULE_PARM_DESC(num_gpus, "Number of mediated GPU nodes /dev/nvproxy0.. (default 8, max 254)");

char *nvm_uvm_path = "/dev/nvidia-uvm";
module_param_named(uvm_path, nvm_uvm_path, charp, 0444);
MODULE_PARM_DESC(uvm_path,
		 "Host path of the real UVM node, resolved from the host's root, used only to learn its device number (default /dev/nvidia-uvm)");

char *nvm_force_version = "";
module_param_named(force_version, nvm_force_version, charp, 0444);
MODULE_PARM_DESC(force_version,
		 "Treat the host driver as this version instead of the detected one, e.g. 570.86.15 (default: detect)");

bool nvm_accept_outside;
module_param_named(accept_outside, nvm_accept_outside, bool, 0444);
MODULE_PARM_DESC(accept_outside,
		 "Serve a driver whose version is outside every known ABI range with the nearest lower range, at the administrator's risk (default N: refuse)");

bool nvm_allow_root;
module_param_named(allow_root, nvm_allow_root, bool, 0444);
MODULE_PARM_DESC(allow_root,
		 "Forward the driver's administrator-only calls for callers with CAP_SYS_ADMIN (default N: refuse them with EPERM)");

bool nvm_allow_finn;
module_param_named(allow_finn, nvm_allow_finn, bool, 0444);
MODULE_PARM_DESC(allow_finn,
		 "Forward RM controls with FINN-serialized params (default N: refuse with EPERM)");

bool nvm_allow_gss;
module_param_named(allow_gss, nvm_allow_gss, bool, 0444);
MODULE_PARM_DESC(allow_gss, "Forward GSS-legacy RM controls (default N: refuse with EPERM)");

bool nvm_audit;
module_param_named(audit, nvm_audit, bool, 0444);
MODULE_PARM_DESC(audit,
		 "Forward the calls the validator would refuse, and log each (ratelimited) with the rule (default N: refuse)");

module_param_named(bounce, nvm_bounce_mode, uint, 0644);
MODULE_PARM_DESC(bounce,
		 "Hand the driver the checked payloads from pages the caller cannot write: 0 never; 1 always (a sealed area from 6.10), except, below 6.10, for a process that can map below 64 KiB itself (vm.mmap_min_addr lowered, CAP_SYS_RAWIO), served from its own memory with a log line (default); 2 refuse those calls too (EPERM). Other failures to make the area refuse the call (ENOMEM, EPERM)");

static int __init nvm_init(void)
{
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
	ret = nvm_node_init();
	if (ret) {
		pr_err("cannot register the mediated nodes: %d\n", ret);
		goto err_stats;
	}
	pr_info("version %s: /dev/%s, /dev/%s0..%u, /dev/%s\n", NVM_VERSION,
		NVM_NODE_NAME_CTL, NVM_NODE_NAME_CTL, nvm_num_gpus ? nvm_num_gpus - 1 : 0,
		NVM_NODE_NAME_UVM);
	return 0;

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
	nvm_node_exit();
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
