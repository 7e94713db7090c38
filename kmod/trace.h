/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvmediate: tracepoints, one per mediated call (docs/operations.md).
 * stats.c is the one file that defines them (CREATE_TRACE_POINTS).
 * __print_symbolic() takes literal pairs: the names below are the words of
 * uapi/nvmediate.h, and tests/tools/words.sh keeps them so.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM nvmediate

#if !defined(NVM_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define NVM_TRACE_H

#include <linux/tracepoint.h>

#include "nvm.h"

#define nvm_trace_node_names					\
	{ NVM_NODE_CTL, "ctl" },				\
	{ NVM_NODE_GPU, "gpu" },				\
	{ NVM_NODE_UVM, "uvm" }

#define nvm_trace_family_names					\
	{ NVM_FAM_ESCAPE, "escape" },				\
	{ NVM_FAM_CTRL, "ctrl" },				\
	{ NVM_FAM_ALLOC, "alloc" },				\
	{ NVM_FAM_UVM, "uvm" },					\
	{ NVM_FAM_OPEN, "open" },				\
	{ NVM_FAM_MMAP, "mmap" },				\
	{ NVM_FAM_POLL, "poll" }

#define nvm_trace_verdict_names					\
	{ NVM_OUT_FORWARDED, "forwarded" },			\
	{ NVM_OUT_REFUSED, "refused" },				\
	{ NVM_OUT_ANSWERED, "answered" },			\
	{ NVM_OUT_AUDITED, "audited" }

/* Ops of nvmediate_file: the families above, and release. */
#define NVM_TRACE_RELEASE	NVM_FAM_COUNT

#define nvm_trace_op_names					\
	{ NVM_FAM_OPEN, "open" },				\
	{ NVM_FAM_MMAP, "mmap" },				\
	{ NVM_FAM_POLL, "poll" },				\
	{ NVM_TRACE_RELEASE, "release" }

TRACE_EVENT(nvmediate_call,
	TP_PROTO(const struct nvm_file *nf, const struct nvm_report *r, long ret),
	TP_ARGS(nf, r, ret),

	TP_STRUCT__entry(
		__field(u8, node)
		__field(u8, family)
		__field(u8, verdict)
		__field(u8, xfer)
		__field(u32, gpu)
		__field(u32, number)
		__field(u32, size)
		__field(int, err)
		__field(u32, status)
		__field(long, ret)
		__array(char, rule, 40)
	),

	TP_fast_assign(
		__entry->node = nf->kind;
		__entry->family = r->family;
		__entry->verdict = r->outcome;
		__entry->xfer = r->xfer;
		__entry->gpu = nf->gpu;
		__entry->number = r->nr;
		__entry->size = r->size;
		__entry->err = r->err;
		__entry->status = r->status;
		__entry->ret = ret;
		strscpy(__entry->rule, r->rule ? r->rule : "-", sizeof(__entry->rule));
	),

	TP_printk("node=%s gpu=%u family=%s number=0x%x size=%u xfer=%u verdict=%s rule=%s err=%d status=0x%x ret=%ld",
		  __print_symbolic(__entry->node, nvm_trace_node_names), __entry->gpu,
		  __print_symbolic(__entry->family, nvm_trace_family_names), __entry->number,
		  __entry->size, __entry->xfer,
		  __print_symbolic(__entry->verdict, nvm_trace_verdict_names), __entry->rule,
		  __entry->err, __entry->status, __entry->ret)
);

TRACE_EVENT(nvmediate_file,
	TP_PROTO(unsigned int op, enum nvm_kind kind, unsigned int gpu, long ret),
	TP_ARGS(op, kind, gpu, ret),

	TP_STRUCT__entry(
		__field(u8, op)
		__field(u8, node)
		__field(u32, gpu)
		__field(long, ret)
	),

	TP_fast_assign(
		__entry->op = op;
		__entry->node = kind;
		__entry->gpu = gpu;
		__entry->ret = ret;
	),

	TP_printk("op=%s node=%s gpu=%u ret=%ld",
		  __print_symbolic(__entry->op, nvm_trace_op_names),
		  __print_symbolic(__entry->node, nvm_trace_node_names), __entry->gpu,
		  __entry->ret)
);

#endif /* NVM_TRACE_H */

/* Out of tree: the header is found through -I kmod (Kbuild). */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
