/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvmediate: checking every call before it is forwarded (validate.c).
 */
#ifndef NVM_VALIDATE_H
#define NVM_VALIDATE_H

#include "nvm.h"
#include "verdict.h"

/* nvm_validate(): answered in the payload, not forwarded, ioctl returns 0. */
#define NVM_ANSWERED		1

/**
 * struct nvm_kept - what the validator read for the driver, besides the
 *	payload itself: what the hand-off (handoff.c) places in the bounce
 *	area and charges, so that the driver reads the bytes checked
 * @rights_read: @rights_mask holds the mask at verdict.rights
 * @rights_mask: an NVOS64's access-rights mask (pRightsRequested)
 * @params: nested params the driver will read, kmalloc'd: a control's,
 *	for the lists it sizes by them alone, or a control's or class's
 *	that hold fd fields (nvm_req_keep()); NULL when none.  The payload's
 *	pointer to them is at verdict.nested_at
 * @params_size: their size
 * @params_user: the caller's copy of them, where what the driver writes
 *	back goes
 * @nomax_bytes: bytes of lists the driver will allocate without its own
 *	bound (NVABI_EMB_NOMAX), which the hand-off charges
 */
struct nvm_kept {
	bool rights_read;
	u8 rights_mask[NVM_RS_ACCESS_MASK_SIZE];
	void *params;
	unsigned int params_size;
	u64 params_user;
	u64 nomax_bytes;
};

/**
 * struct nvm_req - one ioctl on its way from the caller to the driver
 * @cmd: the ioctl command
 * @compat: it came in through compat_ioctl
 * @arg: the caller's argument
 * @nr: escape number after unwrapping XFER, or the UVM command
 * @size: payload size (the ioctl's, XFER's inner size, or the UVM size)
 * @xfer: the call came wrapped in NV_ESC_IOCTL_XFER_CMD
 * @xfer_hdr: the XFER header as checked, when @xfer
 * @payload: the caller's payload (XFER's inner pointer when @xfer)
 * @kbuf: the validator's copy of the @size bytes at @payload, or NULL
 * @verdict: the validator's decision, with the table entry it matched
 *	(what the fd plan reads)
 * @kept: what else the driver is to read as the validator read it
 * @small: storage for a small @kbuf
 */
struct nvm_req {
	unsigned int cmd;
	bool compat;
	void __user *arg;
	unsigned int nr;
	unsigned int size;
	bool xfer;
	struct nvm_xfer xfer_hdr;
	void __user *payload;
	void *kbuf;
	struct nvm_verdict verdict;
	struct nvm_kept kept;
	u8 small[64] __aligned(8);
};

/*
 * The most bytes of fd-carrying params nvm_req_keep() copies (the largest
 * any release has: 2,128, NV0000_CTRL_OS_UNIX_EXPORT_OBJECTS_TO_FD).
 */
#define NVM_KEEP_PARAMS_MAX	8192

int nvm_validate(const struct nvm_file *nf, struct nvm_req *req, struct nvm_report *rep);
int nvm_req_keep(const struct nvm_file *nf, struct nvm_req *req, struct nvm_report *rep);
void nvm_req_free(struct nvm_req *req);
int nvm_report_refused(struct nvm_report *rep, const char *rule, int err);

#endif /* NVM_VALIDATE_H */
