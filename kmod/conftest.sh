#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# nvmediate: what the target kernel's headers offer, decided by compiling a
# few lines against them, never by the kernel's version number (distribution
# kernels backport interfaces without changing it).
#
#   CC=... conftest.sh OUT SYMVERS CFLAGS...
#
# Kbuild runs this once per kernel build tree (Kbuild, "nvm-conf") with the
# flags it compiles modules with; each probe below becomes one line of OUT,
# "#define NVM_HAVE_<NAME> 1" or "... 0", which kmod/compat.h reads.  A
# probe is a translation unit that compiles (-fsyntax-only) exactly when the
# kernel has the interface; "symbol" probes look for an export in the
# kernel's Module.symvers instead.  `conftest.sh --list` prints each probe
# with the releases that have its interface (tests/kernel/probes.sh reads
# it).
set -eu

# probe NAME SINCE: the C text on standard input compiles with the
# interface.  SINCE: the releases that have it, as far as the trees tested
# tell: "A" from A on, "..B" before B, "A..B" from A until before B.
probe() {
	if [ "$mode" = list ]; then
		printf '%s\t%s\n' "$1" "$2"
		cat > /dev/null
		return
	fi
	cat > "$tmp/$1.c"
	(
		if $cc $cflags -Werror=implicit-function-declaration \
			-Werror=incompatible-pointer-types -Werror=discarded-qualifiers \
			-Werror=int-conversion -Werror=implicit-int -Werror=return-type \
			-fsyntax-only -c "$tmp/$1.c" > "$tmp/$1.log" 2>&1; then
			echo 1 > "$tmp/$1.res"
		else
			echo 0 > "$tmp/$1.res"
		fi
	) &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait
		running=0
	fi
}

# symbol NAME SYMBOL SINCE: the kernel exports SYMBOL to modules.
symbol() {
	if [ "$mode" = list ]; then
		printf '%s\t%s\n' "$1" "$3"
		return
	fi
	if [ -r "$symvers" ] && awk -v s="$2" '$2 == s { f = 1 } END { exit !f }' "$symvers"; then
		echo 1 > "$tmp/$1.res"
	else
		echo 0 > "$tmp/$1.res"
	fi
}

probes() {
probe class_attr_const 6.4 <<'EOF'
#include <linux/device/class.h>
static ssize_t show(const struct class *c, const struct class_attribute *a, char *b)
{
	return 0;
}
struct class_attribute nvm_conftest = { .show = show };
EOF

probe class_owner ..6.4 <<'EOF'
#include <linux/device/class.h>
#include <linux/module.h>
struct class nvm_conftest = { .owner = THIS_MODULE };
EOF

probe devnode_const 6.2 <<'EOF'
#include <linux/device.h>
static char *devnode(const struct device *dev, umode_t *mode)
{
	return NULL;
}
struct class nvm_conftest = { .devnode = devnode };
EOF

probe vm_flags_set 6.3 <<'EOF'
#include <linux/mm.h>
void nvm_conftest(struct vm_area_struct *vma);
void nvm_conftest(struct vm_area_struct *vma)
{
	vm_flags_set(vma, VM_IO);
	vm_flags_clear(vma, VM_IO);
}
EOF

probe simple_inode_init_ts 6.7 <<'EOF'
#include <linux/fs.h>
void nvm_conftest(struct inode *inode);
void nvm_conftest(struct inode *inode)
{
	simple_inode_init_ts(inode);
}
EOF

probe inode_set_ctime_current 6.6 <<'EOF'
#include <linux/fs.h>
void nvm_conftest(struct inode *inode);
void nvm_conftest(struct inode *inode)
{
	inode_set_ctime_current(inode);
}
EOF

probe iop_idmap 6.3 <<'EOF'
#include <linux/fs.h>
static int setattr(struct mnt_idmap *idmap, struct dentry *d, struct iattr *a)
{
	return 0;
}
struct inode_operations nvm_conftest = { .setattr = setattr };
EOF

probe iop_userns 5.12..6.3 <<'EOF'
#include <linux/fs.h>
static int setattr(struct user_namespace *userns, struct dentry *d, struct iattr *a)
{
	return 0;
}
struct inode_operations nvm_conftest = { .setattr = setattr };
EOF

probe fillattr_idmap_mask 6.6 <<'EOF'
#include <linux/fs.h>
#include <linux/stat.h>
void nvm_conftest(struct mnt_idmap *idmap, struct inode *inode, struct kstat *stat);
void nvm_conftest(struct mnt_idmap *idmap, struct inode *inode, struct kstat *stat)
{
	generic_fillattr(idmap, STATX_BASIC_STATS, inode, stat);
}
EOF

probe fillattr_idmap 6.3..6.6 <<'EOF'
#include <linux/fs.h>
#include <linux/stat.h>
void nvm_conftest(struct mnt_idmap *idmap, struct inode *inode, struct kstat *stat);
void nvm_conftest(struct mnt_idmap *idmap, struct inode *inode, struct kstat *stat)
{
	generic_fillattr(idmap, inode, stat);
}
EOF

probe fillattr_userns 5.12..6.3 <<'EOF'
#include <linux/fs.h>
#include <linux/stat.h>
void nvm_conftest(struct user_namespace *ns, struct inode *inode, struct kstat *stat);
void nvm_conftest(struct user_namespace *ns, struct inode *inode, struct kstat *stat)
{
	generic_fillattr(ns, inode, stat);
}
EOF

probe vm_ops_may_split 5.11 <<'EOF'
#include <linux/mm.h>
static int may_split(struct vm_area_struct *vma, unsigned long addr)
{
	return 0;
}
struct vm_operations_struct nvm_conftest = { .may_split = may_split };
EOF

probe vma_set_file 5.11 <<'EOF'
#include <linux/mm.h>
void nvm_conftest(struct vm_area_struct *vma, struct file *file);
void nvm_conftest(struct vm_area_struct *vma, struct file *file)
{
	vma_set_file(vma, file);
}
EOF

probe vm_sealed 6.10 <<'EOF'
#include <linux/mm.h>
#ifndef CONFIG_64BIT
#error "VM_SEALED is a 64-bit kernel's"
#endif
unsigned long nvm_conftest = VM_SEALED;
EOF

probe fault_orig_pte_valid 6.1 <<'EOF'
#include <linux/mm.h>
unsigned int nvm_conftest = FAULT_FLAG_ORIG_PTE_VALID;
EOF

probe vma_lookup 5.14 <<'EOF'
#include <linux/mm.h>
struct vm_area_struct *nvm_conftest(struct mm_struct *mm);
struct vm_area_struct *nvm_conftest(struct mm_struct *mm)
{
	return vma_lookup(mm, 0);
}
EOF

probe file_open_root_path 5.15 <<'EOF'
#include <linux/fs.h>
struct file *nvm_conftest(const struct path *root);
struct file *nvm_conftest(const struct path *root)
{
	return file_open_root(root, "x", O_RDWR, 0);
}
EOF

probe fault_in_readable 5.16 <<'EOF'
#include <linux/pagemap.h>
size_t nvm_conftest(const char __user *p);
size_t nvm_conftest(const char __user *p)
{
	return fault_in_readable(p, 1);
}
EOF

probe ktype_const 6.1 <<'EOF'
#include <linux/kobject.h>
static const struct kobj_type ktype;
int nvm_conftest(struct kobject *kobj);
int nvm_conftest(struct kobject *kobj)
{
	return kobject_init_and_add(kobj, &ktype, NULL, "x");
}
EOF

symbol has_capability_noaudit_export has_capability_noaudit 5.11..7.3

probe vfs_mmap 6.17 <<'EOF'
#include <linux/fs.h>
int nvm_conftest(struct file *file, struct vm_area_struct *vma);
int nvm_conftest(struct file *file, struct vm_area_struct *vma)
{
	return vfs_mmap(file, vma);
}
EOF

probe inode_just_drop 6.18 <<'EOF'
#include <linux/fs.h>
struct super_operations nvm_conftest = { .drop_inode = inode_just_drop };
EOF

probe zap_special_vma_range 7.2 <<'EOF'
#include <linux/mm.h>
void nvm_conftest(struct vm_area_struct *vma);
void nvm_conftest(struct vm_area_struct *vma)
{
	zap_special_vma_range(vma, vma->vm_start, PAGE_SIZE);
}
EOF

probe bin_attr_const 6.16 <<'EOF'
#include <linux/sysfs.h>
static ssize_t rd(struct file *f, struct kobject *k, const struct bin_attribute *a,
		  char *b, loff_t o, size_t n)
{
	return 0;
}
static const struct bin_attribute attr = { .read = rd };
static const struct bin_attribute *const attrs[] = { &attr, NULL };
struct attribute_group nvm_conftest = { .bin_attrs = attrs };
EOF

probe sched_exit_group_dead 6.13 <<'EOF'
#include <trace/events/sched.h>
static void hook(void *data, struct task_struct *p, bool group_dead)
{
}
int nvm_conftest(void);
int nvm_conftest(void)
{
	return register_trace_sched_process_exit(hook, NULL);
}
EOF
}

case ${1:-} in
--list)
	mode=list
	probes
	exit 0
	;;
-*|'')
	echo "usage: CC=... conftest.sh OUT SYMVERS CFLAGS... | --list" >&2
	exit 2
	;;
esac

mode=run
out=$1
symvers=$2
cc=${CC:-gcc}
shift 2
cflags="$* -DMODULE -DKBUILD_BASENAME=\"nvm_conftest\" -DKBUILD_MODNAME=\"nvm_conftest\" -D__KBUILD_MODNAME=kmod_nvm_conftest"
jobs=$(nproc 2>/dev/null || echo 2)
running=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nvm-conftest.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
probes
wait

# Every probe answered, or the compiler could not run at all: a compiler
# that fails every probe (a wrong CC) would otherwise read as an old kernel.
if ! $cc $cflags -fsyntax-only -c -x c /dev/null > "$tmp/cc.log" 2>&1; then
	echo "conftest.sh: the compiler does not run with the kernel's flags:" >&2
	cat "$tmp/cc.log" >&2
	exit 1
fi

mkdir -p "$(dirname "$out")"
{
	echo "/* Generated by kmod/conftest.sh: what this kernel's headers offer. */"
	for r in "$tmp"/*.res; do
		name=$(basename "$r" .res)
		printf '#define NVM_HAVE_%s %s\n' "$(echo "$name" | tr a-z A-Z)" "$(cat "$r")"
	done
} > "$out.tmp"
mv "$out.tmp" "$out"
