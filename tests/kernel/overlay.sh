#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A kernel tree that backports interfaces without changing its version,
# as distributions do: a copy of Debian 11's 5.10 headers (the stock-5.10
# kind's) with later interfaces applied by script, so that kmod/conftest.sh's
# probes must flip where a version check would not.
#
#   tests/kernel/overlay.sh NAME            make it; prints its KDIR
#   tests/kernel/overlay.sh --flips NAME    the probes it flips, as
#                                           tests/kernel/probes.sh takes them
#
# NAME:
#   rhel9  what RHEL 9.3 to 9.8 (a 5.14 kernel) carry from later releases,
#          as other modules' build failures on them report: inode operations
#          and generic_fillattr() with a struct mnt_idmap (6.3's form),
#          class->devnode with a const device, class attributes with const
#          pointers and no class owner (6.2 to 6.4), vm_flags read-only with
#          vm_flags_set()/vm_flags_clear() (6.3), file_open_root() with a
#          struct path (5.15), fault_in_readable() (5.16), a const kobj_type,
#          and what 5.14 itself has beyond 5.10: vma_lookup(),
#          vma_set_file(), the may_split hook, and has_capability_noaudit()
#          exported.
#   5.15y  5.15's stable series: fault_in_readable() replaced
#          fault_in_pages_readable() (backported from 5.16).
# The copy lives in build/kernels/overlay-NAME (made anew each time: a few
# seconds).  The edits are declarations only: nothing is linked or run
# against the tree, which only proves that nvmediate builds clean (W=1)
# with the branches the probes choose.
set -euo pipefail
. "$(dirname "$0")/../qemu/lib.sh"

flips() {
	case $1 in
	rhel9) echo iop_idmap=1 fillattr_idmap=1 devnode_const=1 class_attr_const=1 class_owner=0 \
		vm_flags_set=1 file_open_root_path=1 fault_in_readable=1 ktype_const=1 vma_lookup=1 \
		vma_set_file=1 vm_ops_may_split=1 has_capability_noaudit_export=1 ;;
	5.15y) echo fault_in_readable=1 ;;
	*) return 1 ;;
	esac
}

if [ "${1:-}" = --flips ]; then
	flips "${2:-}" || nvm_die "unknown overlay ${2:-}: rhel9 or 5.15y"
	exit 0
fi
[ $# -eq 1 ] && flips "$1" > /dev/null || nvm_die "usage: $0 [--flips] rhel9|5.15y"
name=$1
base=$NVM_KERNELS/stock-5.10/tree
[ -f "$NVM_KERNELS/stock-5.10/ready" ] || nvm_die "no stock-5.10 kernel (tests/kernel/fetch-kernel.sh stock-5.10)"
rel=$(cat "$NVM_KERNELS/stock-5.10/release")
top=$NVM_KERNELS/overlay-$name
rm -rf "$top"
mkdir -p "$top"
cp -a "$base" "$top/tree"
kdir=$top/tree/usr/src/linux-headers-$rel
common=$top/tree/usr/src/linux-headers-${rel%-amd64}-common
inc=$common/include/linux

# edit FILE SED...: apply sed expressions, and fail unless the file changed.
edit() {
	local f=$1
	shift
	cp "$f" "$f.orig"
	sed -i "$@" "$f"
	! cmp -s "$f" "$f.orig" || nvm_die "overlay $name: ${f#"$top"/} did not change"
	rm -f "$f.orig"
}
# export SYMBOL: listed in Module.symvers as vmlinux's.
export_sym() {
	printf '0x00000000\t%s\tvmlinux\tEXPORT_SYMBOL_GPL\t\n' "$1" >> "$kdir/Module.symvers"
}

fault_in_readable() {
	edit "$inc/pagemap.h" \
		-e 's/^static inline int fault_in_pages_readable(/static inline int nvm_overlay_gone_fault_in_pages_readable(/' \
		-e 's/^#endif \/\* _LINUX_PAGEMAP_H \*\//size_t fault_in_readable(const char __user *uaddr, size_t size);\n&/'
	export_sym fault_in_readable
}

case $name in
5.15y)
	fault_in_readable
	;;
rhel9)
	fault_in_readable
	edit "$inc/fs.h" \
		-e "s/^struct export_operations;$/&\nstruct mnt_idmap;/" \
		-e 's/int (\*permission) (struct inode \*, int);/int (*permission) (struct mnt_idmap *, struct inode *, int);/' \
		-e 's/int (\*setattr) (struct dentry \*, struct iattr \*);/int (*setattr) (struct mnt_idmap *, struct dentry *, struct iattr *);/' \
		-e 's/int (\*getattr) (const struct path \*, struct kstat \*, u32, unsigned int);/int (*getattr) (struct mnt_idmap *, const struct path *, struct kstat *, u32, unsigned int);/' \
		-e 's/^extern void generic_fillattr(struct inode \*, struct kstat \*);/extern void generic_fillattr(struct mnt_idmap *, struct inode *, struct kstat *);/' \
		-e '/^extern struct file \*file_open_root(struct dentry \*, struct vfsmount \*,$/{N;s/.*/extern struct file *file_open_root(const struct path *, const char *, int, umode_t);/}'
	grep -q '^struct mnt_idmap;' "$inc/fs.h" || nvm_die "overlay $name: no forward declaration place in fs.h"
	edit "$inc/device/class.h" \
		-e 's/char \*(\*devnode)(struct device \*dev, umode_t \*mode);/char *(*devnode)(const struct device *dev, umode_t *mode);/' \
		-e '/^struct class {$/,/^};$/{/^\tstruct module\t\t\*owner;$/d}' \
		-e 's/ssize_t (\*show)(struct class \*class, struct class_attribute \*attr,/ssize_t (*show)(const struct class *class, const struct class_attribute *attr,/' \
		-e 's/ssize_t (\*store)(struct class \*class, struct class_attribute \*attr,/ssize_t (*store)(const struct class *class, const struct class_attribute *attr,/'
	edit "$inc/kobject.h" -e '/^int kobject_init_and_add(struct kobject \*kobj,$/{n;s/^\t\t\t struct kobj_type \*ktype,/\t\t\t const struct kobj_type *ktype,/}'
	edit "$inc/mm_types.h" \
		-e 's/^\tunsigned long vm_flags;\t\t\/\* Flags, see mm.h. \*\//\tunion {\n\t\tconst vm_flags_t vm_flags;\n\t\tvm_flags_t __private __vm_flags;\n\t};/'
	edit "$inc/mm.h" \
		-e 's/\tint (\*split)(struct vm_area_struct \* area, unsigned long addr);/\tint (*may_split)(struct vm_area_struct *area, unsigned long addr);/' \
		-e 's/^#endif \/\* _LINUX_MM_H \*\//static inline void vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)\n{\n\tACCESS_PRIVATE(vma, __vm_flags) |= flags;\n}\nstatic inline void vm_flags_clear(struct vm_area_struct *vma, vm_flags_t flags)\n{\n\tACCESS_PRIVATE(vma, __vm_flags) \&= ~flags;\n}\nstatic inline struct vm_area_struct *vma_lookup(struct mm_struct *mm, unsigned long addr)\n{\n\tstruct vm_area_struct *vma = find_vma(mm, addr);\n\n\treturn vma \&\& vma->vm_start <= addr ? vma : NULL;\n}\nvoid vma_set_file(struct vm_area_struct *vma, struct file *file);\n&/'
	export_sym vma_set_file
	export_sym has_capability_noaudit
	;;
esac
echo "$kdir"
