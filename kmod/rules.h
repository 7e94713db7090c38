/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvmediate: the rules that refuse (or answer) a call, by name.  A rule's
 * name is what the log line, the tracepoint, a set's audit record
 * (refused) and nvproxyctl show, and what docs/errors.md explains; this is
 * the one list of them.  The checks name a rule by its constant,
 * NVM_RULE(ESC_SIZE) for "esc-size", and keep its name (a const char *)
 * in the verdict and the report; nvproxyctl reads the names back from the
 * same list.  tests/tools/rules.sh checks that every name here is in
 * docs/errors.md and that no other source spells one out.
 *
 * Pure: no kernel header, for nvproxyctl and the unit tests alike.
 */
#ifndef NVM_RULES_H
#define NVM_RULES_H

/* X(ID, "name"), in the order of docs/errors.md's rows. */
#define NVM_RULES(X)							\
	/* escapes */							\
	X(ESC_UNKNOWN,			"esc-unknown")			\
	X(ESC_XFER_NESTED,		"esc-xfer-nested")		\
	X(ESC_NODE,			"esc-node")			\
	X(ESC_ROOT,			"esc-root")			\
	X(ESC_SIZE,			"esc-size")			\
	X(XFER_SIZE,			"xfer-size")			\
	X(ESC_PROFILE,			"esc-profile")			\
	X(ESC_UNREADABLE,		"esc-unreadable")		\
	X(ALLOC_MEMORY_ROOT,		"alloc-memory-root")		\
	/* controls */							\
	X(CTRL_FLAGS,			"ctrl-flags")			\
	X(CTRL_PARAMS_TOO_BIG,		"ctrl-params-too-big")		\
	X(CTRL_PARAMS_NULL,		"ctrl-params-null")		\
	X(CTRL_UNKNOWN,			"ctrl-unknown")			\
	X(CTRL_FINN,			"ctrl-finn")			\
	X(CTRL_GSS_LEGACY,		"ctrl-gss-legacy")		\
	X(KERNEL_ONLY,			"kernel-only")			\
	X(CTRL_ROOT,			"ctrl-root")			\
	X(CTRL_SIZE,			"ctrl-size")			\
	X(CTRL_PROFILE,			"ctrl-profile")			\
	X(CTRL_PARAMS_UNREADABLE,	"ctrl-params-unreadable")	\
	X(CTRL_DEPRECATED_FLAGS,	"ctrl-deprecated-flags")	\
	X(CTRL_DEPRECATED_COUNT,	"ctrl-deprecated-count")	\
	X(CTRL_DEPRECATED_LIST_UNREADABLE, "ctrl-deprecated-list-unreadable") \
	X(CTRL_DEPRECATED_LIST_UNWRITABLE, "ctrl-deprecated-list-unwritable") \
	X(CTRL_EMBEDDED_PARAMS_SIZE,	"ctrl-embedded-params-size")	\
	X(CTRL_EMBEDDED_SIZE,		"ctrl-embedded-size")		\
	X(CTRL_EMBEDDED_TOO_BIG,	"ctrl-embedded-too-big")	\
	X(CTRL_EMBEDDED_INFLIGHT,	"ctrl-embedded-inflight")	\
	X(CTRL_EMBEDDED_FDS,		"ctrl-embedded-fds")		\
	X(FD_PARAMS_TOO_BIG,		"fd-params-too-big")		\
	X(CTRL_FINN_UNBOUNDED,		"ctrl-finn-unbounded")		\
	X(CTRL_EMBEDDED_UNREADABLE,	"ctrl-embedded-unreadable")	\
	X(CTRL_EMBEDDED_UNWRITABLE,	"ctrl-embedded-unwritable")	\
	/* classes */							\
	X(CLASS_UNKNOWN,		"class-unknown")		\
	X(CLASS_KERNEL_CALLBACK,	"class-kernel-callback")	\
	X(CLASS_ROOT,			"class-root")			\
	X(CLASS_PARAMS_TOO_BIG,		"class-params-too-big")		\
	X(CLASS_PARAMS_NULL,		"class-params-null")		\
	X(ALLOC_PROFILE,		"alloc-profile")		\
	X(CLASS_PARAMS_UNREADABLE,	"class-params-unreadable")	\
	X(CLASS_RIGHTS_UNREADABLE,	"class-rights-unreadable")	\
	/* UVM commands */						\
	X(UVM_UNKNOWN,			"uvm-unknown")			\
	X(UVM_NODE,			"uvm-node")			\
	X(UVM_PROFILE,			"uvm-profile")			\
	X(UVM_UNREADABLE,		"uvm-unreadable")		\
	/* any call */							\
	X(NOMEM,			"nomem")			\
	X(OSDESC_BOUNCE_AREA,		"osdesc-bounce-area")		\
	X(FD_NODE_NOT_GIVEN,		"fd-node-not-given")		\
	X(MIG_DEVICE_PROFILING,		"mig-device-profiling")

/* NVM_RULE_ESC_UNKNOWN, ...: a rule. */
enum nvm_rule {
#define NVM_RULE_ENUM(id, name)	NVM_RULE_##id,
	NVM_RULES(NVM_RULE_ENUM)
#undef NVM_RULE_ENUM
	NVM_NR_RULES
};

/**
 * nvm_rule_name() - the name of a rule
 * @rule: NVM_RULE_*, below NVM_NR_RULES
 *
 * Inline, on a table of its own: for a constant @rule (every check's) the
 * compiler puts the string itself in the code, as a literal would be.
 *
 * Return: the rule's name, such as "esc-size".
 */
static inline const char *nvm_rule_name(enum nvm_rule rule)
{
#define NVM_RULE_NAME(id, name)	[NVM_RULE_##id] = name,
	static const char *const names[NVM_NR_RULES] = { NVM_RULES(NVM_RULE_NAME) };
#undef NVM_RULE_NAME

	return names[rule];
}

/* The name of rule NVM_RULE_<id>: NVM_RULE(ESC_SIZE) is "esc-size". */
#define NVM_RULE(id)	nvm_rule_name(NVM_RULE_##id)

#endif /* NVM_RULES_H */
