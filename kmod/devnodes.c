// SPDX-License-Identifier: GPL-2.0
/*
 * nvmediate: the device numbers and /dev nodes of the mediated nodes: the
 * character device region every set's minors are in, the class their
 * devices belong to (/sys/class/nvmediate, with the attributes main.c
 * gives it), and the nodes of each set, made and removed by sets.c.  What
 * an open of a node does is node.c's.
 *
 * Set K has the minors K * 256 + 0 .. 255 (nvm_minor_kind(), node.c):
 *   the default set  /dev/nvproxy (255), /dev/nvproxyN (N), /dev/nvproxy-uvm (254)
 *   another set      /dev/nvmediate/<name>/nvidiactl, nvidiaN, nvidia-uvm
 */
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/kdev_t.h>

#include "devnodes.h"
#include "nvmediate.h"

static dev_t nvm_devt;

static char *nvm_devnode(NVM_DEVNODE_CONST struct device *dev, umode_t *mode)
{
	if (mode)
		*mode = 0666;
	return NULL;
}

static struct class nvm_class_struct = {
	.name		= "nvmediate",
	NVM_CLASS_OWNER
	.devnode	= nvm_devnode,
};
static struct class *const nvm_class = &nvm_class_struct;

/*
 * Make the node of minor @minor of set @index: /dev/@dflt for the default
 * set, /dev/nvmediate/@set/@leaf for another.
 */
static int nvm_devnode_make(unsigned int index, const char *set, unsigned int minor,
			    const char *dflt, const char *leaf)
{
	dev_t devt = MKDEV(MAJOR(nvm_devt), index * NVM_MINORS + minor);
	struct device *dev;

	if (index)
		dev = device_create(nvm_class, NULL, devt, NULL, "nvmediate!%s!%s", set, leaf);
	else
		dev = device_create(nvm_class, NULL, devt, NULL, "%s", dflt);
	return PTR_ERR_OR_ZERO(dev);
}

/**
 * nvm_devnodes_add() - create the device nodes of a set
 * @index: the set's index; 0 is the default set (/dev/nvproxy*)
 * @name: its name, for /dev/nvmediate/@name/
 * @ngpus: GPU nodes to make (num_gpus)
 *
 * Return: 0 or a negative errno; nothing is left created on failure.
 */
int nvm_devnodes_add(unsigned int index, const char *name, unsigned int ngpus)
{
	char dflt[sizeof(NVM_NODE_NAME_CTL) + 10], leaf[sizeof("nvidia") + 10];
	unsigned int i = 0;
	int ret;

	ret = nvm_devnode_make(index, name, NVM_MINOR_CTL, NVM_NODE_NAME_CTL, "nvidiactl");
	if (ret)
		return ret;
	ret = nvm_devnode_make(index, name, NVM_MINOR_UVM, NVM_NODE_NAME_UVM, "nvidia-uvm");
	/* @i counts the GPU nodes made. */
	while (!ret && i < ngpus) {
		snprintf(dflt, sizeof(dflt), NVM_NODE_NAME_CTL "%u", i);
		snprintf(leaf, sizeof(leaf), "nvidia%u", i);
		ret = nvm_devnode_make(index, name, i, dflt, leaf);
		if (!ret)
			i++;
	}
	if (ret)
		nvm_devnodes_del(index, i);
	return ret;
}

/**
 * nvm_devnodes_del() - remove the device nodes of a set
 * @index: the set's index
 * @ngpus: its GPU nodes, as made
 */
void nvm_devnodes_del(unsigned int index, unsigned int ngpus)
{
	unsigned int base = index * NVM_MINORS;
	unsigned int i;

	for (i = 0; i < ngpus; i++)
		device_destroy(nvm_class, MKDEV(MAJOR(nvm_devt), base + i));
	device_destroy(nvm_class, MKDEV(MAJOR(nvm_devt), base + NVM_MINOR_UVM));
	device_destroy(nvm_class, MKDEV(MAJOR(nvm_devt), base + NVM_MINOR_CTL));
}

/**
 * nvm_devnodes_init() - reserve the minors of every possible set, and
 *	register the class of their devices
 * @groups: the attributes of /sys/class/nvmediate (abi.c, stats.c)
 * @devt: set to the first device number
 *
 * Nothing answers an open of the minors before node.c adds its cdev.
 *
 * Return: 0 or a negative errno; nothing is left registered on failure.
 */
int nvm_devnodes_init(const struct attribute_group **groups, dev_t *devt)
{
	int ret;

	ret = alloc_chrdev_region(&nvm_devt, 0, NVM_MINORS * NVM_MAX_SETS, "nvmediate");
	if (ret)
		return ret;
	nvm_class->class_groups = groups;
	ret = class_register(nvm_class);
	if (ret) {
		unregister_chrdev_region(nvm_devt, NVM_MINORS * NVM_MAX_SETS);
		return ret;
	}
	*devt = nvm_devt;
	return 0;
}

/* Undo nvm_devnodes_init(), once every set's nodes are removed. */
void nvm_devnodes_exit(void)
{
	class_unregister(nvm_class);
	unregister_chrdev_region(nvm_devt, NVM_MINORS * NVM_MAX_SETS);
}
