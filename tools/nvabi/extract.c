// SPDX-License-Identifier: GPL-2.0
/*
 * nvabi: extract the ABI of one release with libclang.
 *
 * Two translation units are compiled for x86_64, in memory:
 *
 *  - the RM unit: every generated NVOC class file that holds an exported
 *    method table (src/nvidia/generated/g_*_nvoc.c), the resource descriptor
 *    table (src/nvidia/src/kernel/rmapi/resource_desc.c, which expands
 *    resource_list.h), rmapi/control.h and the frontend ioctl headers, with the
 *    include paths and defines of src/nvidia/Makefile;
 *  - the UVM unit: kernel-open/nvidia-uvm/uvm_linux_ioctl.h.
 *
 * Each unit ends with probes: constant variables whose initialisers are the
 * macros we need (escape numbers, flag bits, UVM command numbers) and typedefs
 * of the payload types found by scan.c. Values come from the compiler's
 * evaluation, and every size and offset from the compiler's record layout.
 */
#include <clang-c/Index.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "nvabi.h"

/* src/nvidia/Makefile: include directories (those that exist are used). */
static const char *const rm_incdirs[] = {
	"src/nvidia/kernel/inc",
	"src/nvidia/interface",
	"src/common/sdk/nvidia/inc",
	"src/common/sdk/nvidia/inc/hw",
	"src/nvidia/arch/nvalloc/common/inc",
	"src/nvidia/arch/nvalloc/common/inc/gsp",
	"src/nvidia/arch/nvalloc/common/inc/deprecated",
	"src/nvidia/arch/nvalloc/unix/include",
	"src/nvidia/inc",
	"src/nvidia/inc/os",
	"src/common/shared/inc",
	"src/common/shared/msgq/inc",
	"src/common/inc",
	"src/common/uproc/os/libos-v2.0.0/include",
	"src/common/uproc/os/libos-v2.0.0/debug",
	"src/common/uproc/os/common/include",
	"src/common/inc/swref",
	"src/common/inc/swref/published",
	"src/nvidia/generated",
	"src/common/nvswitch/kernel/inc",
	"src/common/nvswitch/interface",
	"src/common/nvswitch/common/inc",
	"src/common/inc/displayport",
	"src/common/nvlink/interface",
	"src/common/nvlink/inband/interface",
	"src/nvidia/src/mm/uvm/interface",
	"src/nvidia/inc/libraries",
	"src/nvidia/src/libraries",
	"src/nvidia/inc/kernel",
	"kernel-open/common/inc",
	NULL,
};

static const char *const rm_defines[] = {
	"-D_LANGUAGE_C", "-D__NO_CTYPE", "-DNVRM", "-DLOCK_VAL_ENABLED=0",
	"-DPORT_ATOMIC_64_BIT_SUPPORTED=1", "-DPORT_IS_KERNEL_BUILD=1",
	"-DPORT_IS_CHECKED_BUILD=0", "-DPORT_MODULE_atomic=1", "-DPORT_MODULE_core=1",
	"-DPORT_MODULE_cpu=1", "-DPORT_MODULE_crypto=1", "-DPORT_MODULE_debug=1",
	"-DPORT_MODULE_memory=1", "-DPORT_MODULE_safe=1", "-DPORT_MODULE_string=1",
	"-DPORT_MODULE_sync=1", "-DPORT_MODULE_thread=1", "-DPORT_MODULE_util=1",
	"-DPORT_MODULE_example=0", "-DPORT_MODULE_mmio=0", "-DPORT_MODULE_time=0",
	"-DRS_STANDALONE=0", "-DRS_STANDALONE_TEST=0", "-DRS_COMPATABILITY_MODE=1",
	"-DRS_PROVIDES_API_STATE=0", "-DNV_CONTAINERS_NO_TEMPLATES",
	"-DINCLUDE_NVLINK_LIB", "-DINCLUDE_NVSWITCH_LIB", "-DNV_PRINTF_STRINGS_ALLOWED=1",
	"-DNV_ASSERT_FAILED_USES_STRINGS=1", "-DPORT_ASSERT_FAILED_USES_STRINGS=1",
	NULL,
};

/* Method flag bits (rmapi/control.h) and class flag bits (resource_desc*.h). */
enum {
	CF_NON_PRIVILEGED, CF_PRIVILEGED, CF_INTERNAL, CF_PRIV_IF_RS_ACCESS_DISABLED,
	CF_TEST_ONLY, RF_NON_PRIVILEGED, RF_PRIVILEGED, RF_KERNEL_PRIVILEGED,
	RF_INTERNAL_ONLY, NFLAGS
};
static const char *const flag_macros[NFLAGS] = {
	"RMCTRL_FLAGS_NON_PRIVILEGED", "RMCTRL_FLAGS_PRIVILEGED", "RMCTRL_FLAGS_INTERNAL",
	"RMCTRL_FLAGS_PRIVILEGED_IF_RS_ACCESS_DISABLED", "RMCTRL_FLAGS_RM_TEST_ONLY_CODE",
	"RS_FLAGS_ALLOC_NON_PRIVILEGED", "RS_FLAGS_ALLOC_PRIVILEGED",
	"RS_FLAGS_ALLOC_KERNEL_PRIVILEGED", "RS_FLAGS_INTERNAL_ONLY",
};

struct probe {
	char *what;		/* macro or type spelling */
	int is_type;
	unsigned line;		/* line in the probe file */
	int ok;
	unsigned long long val;
	CXType type;
};

struct xctx {
	struct tree *t;
	CXIndex idx;
	CXTranslationUnit tu;
	char *main_path;
	struct pvec probes;	/* struct probe */
	struct smap recs;	/* USR -> struct layout */
	struct smap names;	/* layout name -> USR */
	struct pvec all;	/* every struct layout made */
	struct abi *abi;
};

/* ---- helpers --------------------------------------------------------------- */

static char *cx(CXString s)
{
	char *r = xstrdup(clang_getCString(s) ? clang_getCString(s) : "");

	clang_disposeString(s);
	return r;
}

static double now(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return tv.tv_sec + tv.tv_usec / 1e6;
}

static const char *relpath(struct xctx *x, const char *p)
{
	size_t n = strlen(x->t->root);

	if (!strncmp(p, x->t->root, n) && p[n] == '/')
		return p + n + 1;
	return p;
}

static int probe_add(struct xctx *x, struct sbuf *src, unsigned *line, const char *what,
		     int is_type)
{
	struct probe *p = xcalloc(1, sizeof(*p));
	int i = (int)x->probes.n;

	p->what = xstrdup(what);
	p->is_type = is_type;
	if (is_type) {
		sb_printf(src, "typedef %s __nvabi_t_%d;\n", what, i);
		p->line = *line;
		*line += 1;
	} else {
		sb_printf(src, "#ifdef %s\nstatic const unsigned long long __nvabi_v_%d = "
			  "(unsigned long long)(%s);\n#endif\n", what, i, what);
		p->line = *line + 1;
		*line += 3;
	}
	pv_push(&x->probes, p);
	return i;
}

/* A value probe of an expression (no macro to test for). */
static int probe_expr(struct xctx *x, struct sbuf *src, unsigned *line, const char *expr)
{
	struct probe *p = xcalloc(1, sizeof(*p));
	int i = (int)x->probes.n;

	p->what = xstrdup(expr);
	sb_printf(src, "static const unsigned long long __nvabi_v_%d = (unsigned long long)(%s);\n",
		  i, expr);
	p->line = *line;
	*line += 1;
	pv_push(&x->probes, p);
	return i;
}

static struct probe *probe_get(struct xctx *x, int i)
{
	return i >= 0 && (size_t)i < x->probes.n ? x->probes.v[i] : NULL;
}

/* Diagnostics: errors outside the probe file are fatal; inside, they mark a
 * probe as unresolved. */
static void check_diags(struct xctx *x, const char *unit)
{
	unsigned i, n = clang_getNumDiagnostics(x->tu), shown = 0;

	for (i = 0; i < n; i++) {
		CXDiagnostic d = clang_getDiagnostic(x->tu, i);
		enum CXDiagnosticSeverity sev = clang_getDiagnosticSeverity(d);
		CXFile f;
		unsigned line, col, off;
		char *fname, *msg;

		if (sev < CXDiagnostic_Error) {
			clang_disposeDiagnostic(d);
			continue;
		}
		clang_getFileLocation(clang_getDiagnosticLocation(d), &f, &line, &col, &off);
		fname = f ? cx(clang_getFileName(f)) : xstrdup("");
		msg = cx(clang_getDiagnosticSpelling(d));
		if (!strcmp(fname, x->main_path)) {
			size_t k;

			for (k = 0; k < x->probes.n; k++) {
				struct probe *p = x->probes.v[k];

				if (p->line == line)
					p->ok = -1;
			}
			note("probe line %u: %s", line, msg);
		} else {
			if (shown < 5)
				fprintf(stderr, "nvabi: %s:%u:%u: error: %s\n",
					relpath(x, fname), line, col, msg);
			shown++;
		}
		free(fname);
		free(msg);
		clang_disposeDiagnostic(d);
	}
	if (shown)
		die("%s: the %s unit does not compile (%u errors); see above", x->t->label,
		    unit, shown);
}

static CXTranslationUnit parse_unit(struct xctx *x, const char *src, size_t len,
				    const char *const *incdirs, const char *const *defs,
				    const char *preinclude)
{
	struct pvec args = { 0 };
	struct CXUnsavedFile uf;
	CXTranslationUnit tu = NULL;
	enum CXErrorCode ec;
	int i;

	pv_push(&args, "-x");
	pv_push(&args, "c");
	pv_push(&args, "-target");
	pv_push(&args, "x86_64-linux-gnu");
	pv_push(&args, "-std=gnu11");
	pv_push(&args, "-ffreestanding");
	pv_push(&args, "-w");
	pv_push(&args, "-ferror-limit=0");
	for (i = 0; defs && defs[i]; i++)
		pv_push(&args, (void *)defs[i]);
	for (i = 0; incdirs && incdirs[i]; i++) {
		char *p = path_join(x->t->root, incdirs[i]);

		if (is_dir(p)) {
			pv_push(&args, "-I");
			pv_push(&args, p);
		} else
			free(p);
	}
	if (preinclude) {
		char *p = path_join(x->t->root, preinclude);

		if (path_exists(p)) {
			pv_push(&args, "-include");
			pv_push(&args, p);
		} else
			free(p);
	}
	uf.Filename = x->main_path;
	uf.Contents = src;
	uf.Length = len;
	ec = clang_parseTranslationUnit2(x->idx, x->main_path, (const char *const *)args.v,
					 (int)args.n, &uf, 1,
					 CXTranslationUnit_SkipFunctionBodies |
					 CXTranslationUnit_KeepGoing, &tu);
	if (ec != CXError_Success || !tu)
		die("%s: libclang failed to start (error %d)", x->t->label, (int)ec);
	for (i = 0; i < (int)args.n; i++) {
		const char *a = args.v[i];

		if (a[0] == '/')
			free(args.v[i]);
	}
	pv_free(&args);
	return tu;
}

/* ---- layouts ------------------------------------------------------------------ */

static void squash(char *s)
{
	/* "unsigned int" -> "unsigned_int", "NvU8 *" -> "NvU8*", drop qualifiers */
	char *r = s, *w = s;
	static const char *const quals[] = { "const ", "volatile ", "restrict ", NULL };

	while (*r) {
		int i, skipped = 0;

		for (i = 0; quals[i]; i++) {
			size_t n = strlen(quals[i]);

			if (!strncmp(r, quals[i], n) && (r == s || r[-1] == ' ' || r[-1] == '*')) {
				r += n;
				skipped = 1;
			}
		}
		if (skipped)
			continue;
		if (*r == ' ') {
			if (r[1] == '*' || r[1] == '[' || w == s || w[-1] == '*') {
				r++;
				continue;
			}
			*w++ = '_';
			r++;
			continue;
		}
		*w++ = *r++;
	}
	while (w > s && w[-1] == '_')
		w--;
	*w = 0;
}

static int is_int_kind(enum CXTypeKind k)
{
	return (k >= CXType_Char_U && k <= CXType_UInt128) ||
	       (k >= CXType_Char_S && k <= CXType_Int128);
}

/* Does the type (through typedefs and arrays) involve NvP64 or a pointer? */
static int is_ptr_type(CXType t)
{
	for (;;) {
		CXType c = clang_getCanonicalType(t);

		if (c.kind == CXType_Pointer)
			return 1;
		if (t.kind == CXType_Typedef) {
			char *n = cx(clang_getTypedefName(t));
			int hit = !strcmp(n, "NvP64");

			free(n);
			if (hit)
				return 1;
			t = clang_getTypedefDeclUnderlyingType(clang_getTypeDeclaration(t));
			continue;
		}
		if (t.kind == CXType_Elaborated) {
			t = clang_Type_getNamedType(t);
			continue;
		}
		if (t.kind == CXType_ConstantArray || t.kind == CXType_IncompleteArray) {
			t = clang_getArrayElementType(t);
			continue;
		}
		return 0;
	}
}

/* A field that holds a file descriptor number: an integer named like one. */
static int is_fd_field(const char *name, CXType t)
{
	CXType c = clang_getCanonicalType(t);
	char low[256];
	size_t n = strlen(name), i;

	if (!is_int_kind(c.kind) || clang_Type_getSizeOf(c) < 4 || n >= sizeof(low) || !n)
		return 0;
	for (i = 0; i <= n; i++)
		low[i] = (char)tolower((unsigned char)name[i]);
	if (!strcmp(low, "fd"))
		return 1;
	if (n > 2 && !strcmp(low + n - 2, "fd") &&
	    (name[n - 3] == '_' || (name[n - 2] == 'F' && islower((unsigned char)name[n - 3]))))
		return 1;
	if (n > 10 && !strcmp(low + n - 10, "descriptor"))
		return 1;
	return 0;
}

static struct layout *lay_record(struct xctx *x, CXType canon, const char *hint);

/* Printed type of t; *rec gets the record it refers to (arrays included). */
static char *print_type(struct xctx *x, CXType t, const char *hint, struct layout **rec)
{
	CXType c = clang_getCanonicalType(t);
	char *s;

	*rec = NULL;
	if (t.kind == CXType_ConstantArray) {
		char *e = print_type(x, clang_getArrayElementType(t), hint, rec);

		s = xasprintf("%s[%lld]", e, clang_getArraySize(t));
		free(e);
		return s;
	}
	if (t.kind == CXType_IncompleteArray) {
		char *e = print_type(x, clang_getArrayElementType(t), hint, rec);

		s = xasprintf("%s[]", e);
		free(e);
		return s;
	}
	if (c.kind == CXType_Record) {
		*rec = lay_record(x, c, hint);
		return xstrdup((*rec)->name);
	}
	if (c.kind == CXType_ConstantArray || c.kind == CXType_IncompleteArray) {
		/* a typedef of an array: keep its name unless it holds records */
		CXType el = c;

		while (el.kind == CXType_ConstantArray || el.kind == CXType_IncompleteArray)
			el = clang_getCanonicalType(clang_getArrayElementType(el));
		if (el.kind == CXType_Record)
			return print_type(x, c, hint, rec);
	}
	s = cx(clang_getTypeSpelling(t));
	squash(s);
	return s;
}

static char *record_name(struct xctx *x, CXCursor decl, CXType canon, const char *hint,
			 const char *usr)
{
	char *n = cx(clang_getCursorSpelling(decl));
	char *base, *name;
	int k;

	if (!*n || strchr(n, '(') || strchr(n, ' ')) {
		free(n);
		n = cx(clang_getTypeSpelling(canon));
		if (!*n || strchr(n, '(') || strchr(n, ' ') || strchr(n, ':')) {
			free(n);
			n = xstrdup(hint ? hint : "anon");
		}
	}
	base = n;
	name = xstrdup(base);
	for (k = 2; ; k++) {
		const char *owner = smap_get(&x->names, name);

		if (!owner || !strcmp(owner, usr))
			break;
		free(name);
		name = xasprintf("%s~%d", base, k);
	}
	free(base);
	return name;
}

struct fldv {
	CXCursor *v;
	size_t n, cap;
};

static enum CXVisitorResult field_cb(CXCursor c, CXClientData d)
{
	struct fldv *fv = d;

	if (fv->n == fv->cap) {
		fv->cap = fv->cap ? fv->cap * 2 : 16;
		fv->v = xrealloc(fv->v, fv->cap * sizeof(*fv->v));
	}
	fv->v[fv->n++] = c;
	return CXVisit_Continue;
}

static struct layout *lay_record(struct xctx *x, CXType canon, const char *hint)
{
	CXCursor decl = clang_getTypeDeclaration(canon);
	char *usr = cx(clang_getCursorUSR(decl));
	struct layout *l = smap_get(&x->recs, usr);
	struct fldv fv = { 0 };
	size_t i;
	CXFile file;
	unsigned line, col, off;

	if (l) {
		free(usr);
		return l;
	}
	l = xcalloc(1, sizeof(*l));
	l->name = record_name(x, decl, canon, hint, usr);
	smap_put(&x->recs, usr, l);
	smap_put(&x->names, l->name, xstrdup(usr));
	pv_push(&x->all, l);
	l->is_union = clang_getCursorKind(decl) == CXCursor_UnionDecl;
	l->size = clang_Type_getSizeOf(canon);
	l->align = clang_Type_getAlignOf(canon);
	clang_getFileLocation(clang_getCursorLocation(decl), &file, &line, &col, &off);
	if (file) {
		char *fn = cx(clang_getFileName(file));

		l->header = xstrdup(relpath(x, fn));
		free(fn);
	} else
		l->header = xstrdup("?");

	clang_Type_visitFields(canon, field_cb, &fv);
	l->nfields = fv.n;
	l->fields = xcalloc(fv.n + 1, sizeof(*l->fields));
	for (i = 0; i < fv.n; i++) {
		struct field *f = &l->fields[i];
		CXCursor fc = fv.v[i];
		CXType ft = clang_getCursorType(fc);
		char *nm = cx(clang_getCursorSpelling(fc)), *h;

		if (!*nm || strchr(nm, '(')) {
			free(nm);
			nm = xasprintf("-%zu", i);
		}
		f->name = nm;
		f->off = clang_Cursor_getOffsetOfField(fc);
		f->bitfield = clang_Cursor_isBitField(fc);
		f->size = f->bitfield ? clang_getFieldDeclBitWidth(fc) : clang_Type_getSizeOf(ft);
		h = xasprintf("%s.%s", l->name, nm);
		f->type = print_type(x, ft, h, &f->rec);
		free(h);
		if (is_ptr_type(ft))
			f->flags |= FLD_PTR;
		if (is_fd_field(nm, ft))
			f->flags |= FLD_FD;
	}
	free(fv.v);
	free(usr);
	return l;
}

static void ptype_set(struct xctx *x, struct ptype *pt, CXType t)
{
	CXType c = clang_getCanonicalType(t);
	struct layout *rec = NULL;

	pt->size = clang_Type_getSizeOf(t);
	if (c.kind == CXType_Record) {
		rec = lay_record(x, c, NULL);
		pt->name = xstrdup(rec->name);
		pt->rec = rec;
	} else {
		pt->name = print_type(x, t, NULL, &rec);
		pt->rec = NULL;
	}
}

/* ---- cursors --------------------------------------------------------------------- */

struct kids {
	CXCursor *v;
	size_t n, cap;
};

static enum CXChildVisitResult kids_cb(CXCursor c, CXCursor p, CXClientData d)
{
	struct kids *k = d;

	(void)p;
	if (k->n == k->cap) {
		k->cap = k->cap ? k->cap * 2 : 16;
		k->v = xrealloc(k->v, k->cap * sizeof(*k->v));
	}
	k->v[k->n++] = c;
	return CXChildVisit_Continue;
}

static struct kids children(CXCursor c)
{
	struct kids k = { 0 };

	clang_visitChildren(c, kids_cb, &k);
	return k;
}

struct find {
	enum CXCursorKind kind;
	CXCursor hit;
	int found;
	const char *prefix;
};

static enum CXChildVisitResult find_cb(CXCursor c, CXCursor p, CXClientData d)
{
	struct find *f = d;

	(void)p;
	if (clang_getCursorKind(c) == f->kind) {
		if (f->prefix) {
			char *n = cx(clang_getCursorSpelling(c));
			int ok = !strncmp(n, f->prefix, strlen(f->prefix));

			free(n);
			if (!ok)
				return CXChildVisit_Recurse;
		}
		f->hit = c;
		f->found = 1;
		return CXChildVisit_Break;
	}
	return CXChildVisit_Recurse;
}

static int find_desc(CXCursor c, enum CXCursorKind kind, const char *prefix, CXCursor *out)
{
	struct find f = { .kind = kind, .prefix = prefix };

	clang_visitChildren(c, find_cb, &f);
	if (f.found)
		*out = f.hit;
	return f.found;
}

static int eval_uint(CXCursor c, unsigned long long *v)
{
	CXEvalResult r = clang_Cursor_Evaluate(c);
	int ok = 0;

	if (!r)
		return 0;
	if (clang_EvalResult_getKind(r) == CXEval_Int) {
		*v = clang_EvalResult_getAsUnsigned(r);
		ok = 1;
	}
	clang_EvalResult_dispose(r);
	return ok;
}

/* Field names of a record type, in order. */
static char **record_field_names(CXType t, size_t *n)
{
	struct fldv fv = { 0 };
	char **names;
	size_t i;

	clang_Type_visitFields(clang_getCanonicalType(t), field_cb, &fv);
	names = xcalloc(fv.n + 1, sizeof(*names));
	for (i = 0; i < fv.n; i++)
		names[i] = cx(clang_getCursorSpelling(fv.v[i]));
	*n = fv.n;
	free(fv.v);
	return names;
}

static int name_index(char **names, size_t n, const char *want)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(names[i], want))
			return (int)i;
	return -1;
}

static void free_names(char **names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* sizeof(T) or 0: the size and (when sizeof) the type. */
static int size_expr(CXCursor e, unsigned long long *size, CXType *type)
{
	CXCursor tr;

	if (!eval_uint(e, size))
		return -1;
	type->kind = CXType_Invalid;
	if (*size && find_desc(e, CXCursor_TypeRef, NULL, &tr))
		*type = clang_getCursorType(tr);
	return 0;
}

/* The identifier written at the file location of an expression (for names of
 * macros that the compiler has already expanded). */
static char *written_name(struct xctx *x, CXCursor e)
{
	CXSourceLocation loc = clang_getRangeStart(clang_getCursorExtent(e));
	CXFile f;
	unsigned line, col, off;
	size_t size = 0;
	const char *buf;
	size_t i;

	clang_getFileLocation(loc, &f, &line, &col, &off);
	if (!f)
		return NULL;
	buf = clang_getFileContents(x->tu, f, &size);
	if (!buf || off >= size || !(isalpha((unsigned char)buf[off]) || buf[off] == '_'))
		return NULL;
	for (i = off; i < size && (isalnum((unsigned char)buf[i]) || buf[i] == '_'); i++)
		;
	return xstrndup(buf + off, i - off);
}

/* ---- RM tables ------------------------------------------------------------------- */

static unsigned long long flagv[NFLAGS];
static int flag_known[NFLAGS];

static enum priv ctrl_priv(unsigned long long fl)
{
	if (!flag_known[CF_NON_PRIVILEGED])
		return PRIV_UNKNOWN;
	if (flag_known[CF_INTERNAL] && (fl & flagv[CF_INTERNAL]))
		return PRIV_INTERNAL;
	if (flag_known[CF_PRIVILEGED] && (fl & flagv[CF_PRIVILEGED]))
		return PRIV_ROOT;
	if (fl & flagv[CF_NON_PRIVILEGED])
		return PRIV_USER;
	return PRIV_KERNEL;
}

static enum priv class_priv(unsigned long long fl)
{
	if (flag_known[RF_INTERNAL_ONLY] && (fl & flagv[RF_INTERNAL_ONLY]))
		return PRIV_INTERNAL;
	if (!flag_known[RF_NON_PRIVILEGED])
		return PRIV_UNKNOWN;
	if (flag_known[RF_KERNEL_PRIVILEGED] && (fl & flagv[RF_KERNEL_PRIVILEGED]))
		return PRIV_KERNEL;
	if (flag_known[RF_PRIVILEGED] && (fl & flagv[RF_PRIVILEGED]))
		return PRIV_ROOT;
	if (fl & flagv[RF_NON_PRIVILEGED])
		return PRIV_USER;
	return PRIV_NONE;
}

static int reachable(enum priv p)
{
	return p != PRIV_KERNEL && p != PRIV_INTERNAL && p != PRIV_NONE;
}

static void do_methods(struct xctx *x, CXCursor var, const char *owner)
{
	CXType at = clang_getCursorType(var);
	CXCursor init;
	struct kids ents;
	size_t nn, i;
	char **names = record_field_names(clang_getArrayElementType(at), &nn);
	int i_flags = name_index(names, nn, "flags");
	int i_ar = name_index(names, nn, "accessRight");
	int i_id = name_index(names, nn, "methodId");
	int i_size = name_index(names, nn, "paramSize");

	if (i_flags < 0 || i_id < 0 || i_size < 0)
		die("%s: %s: the method table has no flags/methodId/paramSize fields",
		    x->t->label, owner);
	if (!find_desc(var, CXCursor_InitListExpr, NULL, &init)) {
		free_names(names, nn);
		return;
	}
	ents = children(init);
	for (i = 0; i < ents.n; i++) {
		struct kids f = children(ents.v[i]);
		unsigned long long fl = 0, ar = 0, id = 0, sz = 0;
		CXType pt;
		struct ctrl *c;

		if ((size_t)i_size >= f.n || (size_t)i_id >= f.n || (size_t)i_flags >= f.n ||
		    !eval_uint(f.v[i_flags], &fl) || !eval_uint(f.v[i_id], &id) ||
		    size_expr(f.v[i_size], &sz, &pt))
			die("%s: %s: cannot evaluate method table entry %zu", x->t->label, owner, i);
		if (i_ar >= 0 && (size_t)i_ar < f.n)
			eval_uint(f.v[i_ar], &ar);
		c = xcalloc(1, sizeof(*c));
		c->cmd = (uint32_t)id;
		c->priv = ctrl_priv(fl);
		c->access = (uint32_t)ar;
		if (flag_known[CF_PRIV_IF_RS_ACCESS_DISABLED] &&
		    (fl & flagv[CF_PRIV_IF_RS_ACCESS_DISABLED]))
			c->extra |= CTRL_X_PRIV_IF_NO_RIGHTS;
		if (flag_known[CF_TEST_ONLY] && (fl & flagv[CF_TEST_ONLY]))
			c->extra |= CTRL_X_TEST_ONLY;
		c->owners = xstrdup(owner);
		if (!reachable(c->priv)) {
			c->type.name = xstrdup("-");
			c->type.size = -1;
		} else if (sz && pt.kind != CXType_Invalid) {
			ptype_set(x, &c->type, pt);
			if (c->type.size != (long long)sz)
				die("%s: %s: method 0x%08x: size %llu but its type is %lld bytes",
				    x->t->label, owner, c->cmd, sz, c->type.size);
		} else {
			c->type.name = xstrdup("-");
			c->type.size = (long long)sz;
		}
		pv_push(&x->abi->ctrl, c);
		free(f.v);
	}
	free(ents.v);
	free_names(names, nn);
}

static void do_classes(struct xctx *x, CXCursor var)
{
	CXType at = clang_getCursorType(var);
	CXCursor init;
	struct kids ents;
	size_t nn, i;
	char **names = record_field_names(clang_getArrayElementType(at), &nn);
	int i_ext = name_index(names, nn, "externalClassId");
	int i_size = name_index(names, nn, "allocParamSize");
	int i_req = name_index(names, nn, "bParamRequired");
	int i_flags = name_index(names, nn, "flags");
	int i_info = name_index(names, nn, "pClassInfo");

	if (i_ext < 0 || i_size < 0 || i_req < 0)
		die("%s: the resource descriptor table has no externalClassId/allocParamSize/"
		    "bParamRequired fields", x->t->label);
	if (!find_desc(var, CXCursor_InitListExpr, NULL, &init))
		die("%s: the resource descriptor table has no initialiser", x->t->label);
	ents = children(init);
	for (i = 0; i < ents.n; i++) {
		struct kids f = children(ents.v[i]);
		unsigned long long id = 0, sz = 0, req = 0, fl = 0;
		CXType pt;
		struct cls *c;
		CXCursor ref;

		if ((size_t)i_ext >= f.n || (size_t)i_size >= f.n || (size_t)i_req >= f.n ||
		    !eval_uint(f.v[i_ext], &id) || size_expr(f.v[i_size], &sz, &pt) ||
		    !eval_uint(f.v[i_req], &req))
			die("%s: cannot evaluate resource descriptor %zu", x->t->label, i);
		if (i_flags >= 0 && (size_t)i_flags < f.n)
			eval_uint(f.v[i_flags], &fl);
		c = xcalloc(1, sizeof(*c));
		c->id = (uint32_t)id;
		c->name = written_name(x, f.v[i_ext]);
		if (!c->name)
			c->name = xasprintf("0x%04x", c->id);
		if (i_info >= 0 && (size_t)i_info < f.n &&
		    find_desc(f.v[i_info], CXCursor_DeclRefExpr, "__nvoc_class_def_", &ref)) {
			char *n = cx(clang_getCursorSpelling(ref));

			c->internal = xstrdup(n + strlen("__nvoc_class_def_"));
			free(n);
		} else
			c->internal = xstrdup("-");
		c->priv = class_priv(fl);
		c->params = sz ? (req ? 2 : 1) : 0;
		if (!reachable(c->priv)) {
			c->type.name = xstrdup("-");
			c->type.size = -1;
			c->params = 0;
		} else if (sz && pt.kind != CXType_Invalid) {
			ptype_set(x, &c->type, pt);
		} else {
			c->type.name = xstrdup("-");
			c->type.size = (long long)sz;
		}
		pv_push(&x->abi->cls, c);
		free(f.v);
	}
	free(ents.v);
	free_names(names, nn);
}

/* ---- units ---------------------------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Files of a directory whose names match prefix*suffix, sorted. */
static void list_dir(const char *dir, const char *prefix, const char *suffix, struct pvec *out)
{
	char *cmd[] = { "ls", "-1", (char *)dir, NULL };
	char *txt = run_capture(cmd, NULL, NULL), *line, *save = NULL;

	for (line = strtok_r(txt, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t n = strlen(line), ls = strlen(suffix);

		if (strncmp(line, prefix, strlen(prefix)) || n < ls || strcmp(line + n - ls, suffix))
			continue;
		pv_push(out, path_join(dir, line));
	}
	free(txt);
	qsort(out->v, out->n, sizeof(*out->v), cmp_str);
}

static int file_has(const char *path, const char *needle)
{
	char *t = read_file(path, NULL);
	int r = t && strstr(t, needle);

	free(t);
	return r;
}

static enum CXChildVisitResult top_cb(CXCursor c, CXCursor p, CXClientData d)
{
	struct xctx *x = d;
	char *n;

	(void)p;
	if (clang_getCursorKind(c) != CXCursor_VarDecl)
		return CXChildVisit_Continue;
	n = cx(clang_getCursorSpelling(c));
	if (!strncmp(n, "__nvoc_exported_method_def_", 27) &&
	    clang_getCursorType(c).kind == CXType_ConstantArray)
		do_methods(x, c, n + 27);
	else if (!strcmp(n, "g_RsResourceDescList"))
		do_classes(x, c);
	free(n);
	return CXChildVisit_Continue;
}

static enum CXChildVisitResult probe_cb(CXCursor c, CXCursor p, CXClientData d)
{
	struct xctx *x = d;
	enum CXCursorKind k = clang_getCursorKind(c);
	char *n;
	int i;

	(void)p;
	if (k != CXCursor_VarDecl && k != CXCursor_TypedefDecl)
		return CXChildVisit_Continue;
	n = cx(clang_getCursorSpelling(c));
	if (k == CXCursor_VarDecl && sscanf(n, "__nvabi_v_%d", &i) == 1) {
		struct probe *pr = probe_get(x, i);

		if (pr && pr->ok == 0 && eval_uint(c, &pr->val))
			pr->ok = 1;
	} else if (k == CXCursor_TypedefDecl && sscanf(n, "__nvabi_t_%d", &i) == 1) {
		struct probe *pr = probe_get(x, i);

		if (pr && pr->ok == 0) {
			pr->type = clang_getTypedefDeclUnderlyingType(c);
			pr->ok = clang_Type_getSizeOf(pr->type) >= 0 ? 1 : -1;
		}
	}
	free(n);
	return CXChildVisit_Continue;
}

/* The deprecated control of @h, from its probes @p (see rm_unit()). */
static void dep_add(struct xctx *x, const struct dep_hit *h, const int *p)
{
	struct dep *d = xcalloc(1, sizeof(*d));
	const char *what[5] = { h->name, h->v2, h->type, h->elem, "the list's maximum" };
	int k;

	for (k = 0; k < 5; k++)
		if (p[k] >= 0 && probe_get(x, p[k])->ok != 1)
			die("%s: deprecated control %s: %s has no value in the headers", x->t->label,
			    h->name, what[k]);
	d->cmd = (uint32_t)probe_get(x, p[0])->val;
	d->v2 = (uint32_t)probe_get(x, p[1])->val;
	d->name = xstrdup(h->name);
	ptype_set(x, &d->type, probe_get(x, p[2])->type);
	if (!d->type.rec)
		die("%s: deprecated control %s: params %s are no struct", x->t->label, h->name,
		    h->type);
	if (!h->v2type) {
		d->custom = 1;
		d->elem.name = xstrdup("-");
		pv_push(&x->abi->dep, d);
		return;
	}
	d->list = xstrdup(h->list);
	d->count = xstrdup(h->count);
	d->is_count = h->is_count;
	d->in = h->in;
	d->out = h->out;
	ptype_set(x, &d->elem, probe_get(x, p[3])->type);
	d->max = (uint32_t)probe_get(x, p[4])->val;
	for (k = 0; k < 2; k++)
		if (!layout_field(d->type.rec, k ? d->count : d->list))
			die("%s: deprecated control %s: %s has no field %s", x->t->label, h->name,
			    h->type, k ? d->count : d->list);
	pv_push(&x->abi->dep, d);
}

/* Does the RM build define @m (rm_defines)? */
static int rm_defined(const char *m)
{
	size_t n = strlen(m);
	int i;

	for (i = 0; rm_defines[i]; i++)
		if (!strncmp(rm_defines[i] + 2, m, n) &&
		    (rm_defines[i][2 + n] == 0 || rm_defines[i][2 + n] == '='))
			return 1;
	return 0;
}

static uint32_t number(const struct xctx *x, const char *what, const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
		end++;
	if (*end || v > 0xffffffffUL)
		die("%s: %s: '%s' is not a number", x->t->label, what, s);
	return (uint32_t)v;
}

/*
 * A list the driver copies for a method-table control (scan_embedded()),
 * from its probes @p: the command, the params type, the element type. A
 * case under "#ifdef M" counts only where the build defines M, or where M
 * is the command's own macro and the headers define it.
 */
static void emb_add(struct xctx *x, const struct emb_hit *h, const int *p)
{
	struct emb *e;
	int k;

	if (h->cond) {
		const char *m = h->cond + 6;

		if (strncmp(h->cond, "ifdef ", 6))
			die("%s: embedded list of %s under '#%s' is not understood", x->t->label,
			    h->name, h->cond);
		if (strcmp(m, h->name) ? !rm_defined(m) : probe_get(x, p[0])->ok != 1)
			return;
	}
	if (h->custom == 2)
		die("%s: embeddedParamCopyIn(): case %s is not understood", x->t->label, h->name);
	for (k = 0; k < 3; k++)
		if (p[k] >= 0 && probe_get(x, p[k])->ok != 1)
			die("%s: embedded list of %s: %s has no value in the headers", x->t->label,
			    h->name, k == 0 ? h->name : k == 1 ? h->type : h->elem);
	e = xcalloc(1, sizeof(*e));
	e->cmd = (uint32_t)probe_get(x, p[0])->val;
	e->slot = h->slot;
	e->name = xstrdup(h->name);
	ptype_set(x, &e->type, probe_get(x, p[1])->type);
	if (!e->type.rec)
		die("%s: embedded list of %s: params %s are no struct", x->t->label, h->name,
		    h->type);
	pv_push(&x->abi->emb, e);
	if (h->custom) {
		e->custom = 1;
		e->elem.name = xstrdup("-");
		return;
	}
	e->list = xstrdup(h->list);
	e->count = h->count ? xstrdup(h->count) : NULL;
	e->count2 = h->count2 ? xstrdup(h->count2) : NULL;
	e->cnum = h->cnum ? number(x, h->name, h->cnum) : 0;
	e->ifptr = h->ifptr;
	e->in = h->in;
	e->out = h->out;
	e->nomax = h->nomax;
	if (h->elem) {
		ptype_set(x, &e->elem, probe_get(x, p[2])->type);
	} else {
		e->elem.name = xstrdup("-");
		e->elem.size = number(x, h->name, h->elemnum);
	}
	if (!layout_field(e->type.rec, e->list) || (e->count && !layout_field(e->type.rec, e->count)) ||
	    (e->count2 && !layout_field(e->type.rec, e->count2)))
		die("%s: embedded list of %s: %s lacks a field named in %s/%s", x->t->label, h->name,
		    h->type, e->list, e->count ? e->count : "-");
}

/* The RM unit as it is written: its text, its next line, its probes per hit. */
struct rmu {
	struct scan *sc;
	struct sbuf src;
	unsigned line;
	int fp[NFLAGS];		/* flag_macros[] */
	int (*ep)[5];		/* per escape: its number, then each type */
	int (*dp)[5];		/* per deprecated control: number, V2, params, element, max */
	int (*mp)[3];		/* per embedded list: number, params, element */
	int (*xp)[2];		/* per early check: each type */
};

/*
 * The unit's #includes: the NVOC files with exported method tables, the
 * resource descriptors, rmapi/control.h, the frontend ioctl headers and the
 * headers the RM dispatchers include.
 */
static void rm_includes(struct xctx *x, struct rmu *u)
{
	struct pvec gen = { 0 }, ioh = { 0 };
	char *dir, *p;
	size_t i;

	dir = path_join(x->t->root, "src/nvidia/generated");
	list_dir(dir, "g_", "_nvoc.c", &gen);
	free(dir);
	for (i = 0; i < gen.n; i++) {
		if (!file_has(gen.v[i], "__nvoc_exported_method_def_"))
			continue;
		sb_printf(&u->src, "#include \"%s\"\n", (char *)gen.v[i]);
		u->line++;
	}
	if (!u->src.len)
		die("%s: no NVOC exported method tables in src/nvidia/generated", x->t->label);
	p = path_join(x->t->root, "src/nvidia/src/kernel/rmapi/resource_desc.c");
	if (!path_exists(p))
		die("%s: missing src/nvidia/src/kernel/rmapi/resource_desc.c", x->t->label);
	sb_printf(&u->src, "#include \"%s\"\n", p);
	u->line++;
	free(p);
	sb_add(&u->src, "#if __has_include(\"rmapi/control.h\")\n#include \"rmapi/control.h\"\n"
		"#endif\n");
	u->line += 3;
	dir = path_join(x->t->root, "kernel-open/common/inc");
	list_dir(dir, "nv-ioctl", ".h", &ioh);
	free(dir);
	for (i = 0; i < ioh.n; i++) {
		sb_printf(&u->src, "#include \"%s\"\n", (char *)ioh.v[i]);
		u->line++;
	}
	/* the headers the RM dispatchers (escape.c, osapi.c) include */
	for (i = 0; i < u->sc->includes.n; i++) {
		const char *h = u->sc->includes.v[i];

		sb_printf(&u->src, "#if __has_include(%s)\n#include %s\n#endif\n", h, h);
		u->line += 3;
	}
	for (i = 0; i < gen.n; i++)
		free(gen.v[i]);
	for (i = 0; i < ioh.n; i++)
		free(ioh.v[i]);
	pv_free(&gen);
	pv_free(&ioh);
}

/* The probes of the deprecated controls: numbers, params, element, maximum. */
static void rm_dep_probes(struct xctx *x, struct rmu *u)
{
	struct scan *sc = u->sc;
	size_t i;

	u->dp = xcalloc(sc->dep.n + 1, sizeof(*u->dp));
	for (i = 0; i < sc->dep.n; i++) {
		struct dep_hit *h = sc->dep.v[i];
		int *dp = u->dp[i];

		dp[0] = probe_add(x, &u->src, &u->line, h->name, 0);
		dp[1] = probe_add(x, &u->src, &u->line, h->v2, 0);
		dp[2] = probe_add(x, &u->src, &u->line, h->type, 1);
		dp[3] = dp[4] = -1;
		if (h->v2type) {
			char *e = xasprintf("sizeof(((%s *)0)->%s) / %s%s%s", h->v2type, h->v2list,
					    h->is_count ? "sizeof(" : "1",
					    h->is_count ? h->elem : "", h->is_count ? ")" : "");

			dp[3] = probe_add(x, &u->src, &u->line, h->elem, 1);
			dp[4] = probe_expr(x, &u->src, &u->line, e);
			free(e);
		}
	}
}

/* The probes of the unit: flag bits, then what each hit of the scan names. */
static void rm_probes(struct xctx *x, struct rmu *u)
{
	struct scan *sc = u->sc;
	size_t i;
	int k;

	for (i = 0; i < NFLAGS; i++)
		u->fp[i] = probe_add(x, &u->src, &u->line, flag_macros[i], 0);
	u->ep = xcalloc(sc->esc.n + 1, sizeof(*u->ep));
	for (i = 0; i < sc->esc.n; i++) {
		struct esc_hit *h = sc->esc.v[i];

		u->ep[i][0] = probe_add(x, &u->src, &u->line, h->name, 0);
		for (k = 0; k < h->ntypes; k++)
			u->ep[i][k + 1] = probe_add(x, &u->src, &u->line, h->types[k], 1);
	}
	rm_dep_probes(x, u);
	u->mp = xcalloc(sc->emb.n + 1, sizeof(*u->mp));
	for (i = 0; i < sc->emb.n; i++) {
		struct emb_hit *h = sc->emb.v[i];
		int *mp = u->mp[i];

		mp[0] = mp[1] = mp[2] = -1;
		if (h->cond && !strncmp(h->cond, "ifdef ", 6) && strcmp(h->cond + 6, h->name) &&
		    !rm_defined(h->cond + 6))
			continue;	/* not built: emb_add() drops it */
		mp[0] = probe_add(x, &u->src, &u->line, h->name, 0);
		mp[1] = h->type ? probe_add(x, &u->src, &u->line, h->type, 1) : -1;
		mp[2] = h->elem ? probe_add(x, &u->src, &u->line, h->elem, 1) : -1;
	}
	u->xp = xcalloc(sc->early.n + 1, sizeof(*u->xp));
	for (i = 0; i < sc->early.n; i++) {
		struct early_hit *h = sc->early.v[i];

		for (k = 0; k < h->ntypes; k++)
			u->xp[i][k] = probe_add(x, &u->src, &u->line, h->types[k], 1);
	}
}

/* The up-front size check of escape @e (hit @h), where the scan found one. */
static void rm_esc_early(struct xctx *x, const struct rmu *u, const struct esc_hit *h,
			 struct esc *e)
{
	const struct scan *sc = u->sc;
	int k;

	e->early = ESC_UNCHECKED;
	for (k = 0; k < (int)sc->early.n; k++) {
		struct early_hit *eh = sc->early.v[k];
		int m, ok = 1;

		if (strcmp(eh->name, h->name))
			continue;
		for (m = 0; m < eh->ntypes; m++) {
			struct probe *pt = probe_get(x, u->xp[k][m]);

			if (pt->ok != 1) {
				warnx("%s: %s: early check type '%s' is not known",
				      x->t->label, h->name, eh->types[m]);
				ok = 0;
				continue;
			}
			e->early_size[m] = clang_Type_getSizeOf(pt->type);
		}
		if (!ok)
			continue;
		e->early = eh->array ? ESC_ARRAY : ESC_EXACT;
		e->nearly = eh->ntypes;
		if (e->nearly == 2 && e->early_size[0] > e->early_size[1]) {
			long long t = e->early_size[0];

			e->early_size[0] = e->early_size[1];
			e->early_size[1] = t;
		}
	}
}

/* Escape hit @i of the scan, its types laid out by the compiler, into the ABI. */
static void rm_esc(struct xctx *x, const struct rmu *u, size_t i)
{
	struct esc_hit *h = u->sc->esc.v[i];
	struct probe *pv = probe_get(x, u->ep[i][0]);
	struct esc *e;
	int k;

	if (pv->ok != 1) {
		warnx("%s: %s (handled in %s) has no value in the headers; skipped",
		      x->t->label, h->name, h->src);
		return;
	}
	e = xcalloc(1, sizeof(*e));
	e->nr = (unsigned)pv->val;
	e->name = xstrdup(h->name);
	e->node = h->node;
	e->priv = h->priv;
	e->kind = h->kind;
	e->src = xstrdup(h->src);
	for (k = 0; k < h->ntypes; k++) {
		struct probe *pt = probe_get(x, u->ep[i][k + 1]);

		if (pt->ok != 1) {
			warnx("%s: %s: type '%s' is not known to the compiler",
			      x->t->label, h->name, h->types[k]);
			continue;
		}
		ptype_set(x, &e->types[e->ntypes++], pt->type);
	}
	for (k = 1; k < e->ntypes; k++) {	/* smallest first */
		int m = k;

		while (m > 0 && e->types[m - 1].size > e->types[m].size) {
			struct ptype tmp = e->types[m];

			e->types[m] = e->types[m - 1];
			e->types[m - 1] = tmp;
			m--;
		}
	}
	if (!e->ntypes)
		e->kind = ESC_UNCHECKED;
	rm_esc_early(x, u, h, e);
	pv_push(&x->abi->esc, e);
}

static void rm_unit(struct xctx *x, struct scan *sc)
{
	struct rmu u = { .sc = sc, .line = 1 };
	size_t i;

	rm_includes(x, &u);
	rm_probes(x, &u);
	x->tu = parse_unit(x, u.src.s, u.src.len, rm_incdirs, rm_defines,
			   "src/common/sdk/nvidia/inc/cpuopsys.h");
	check_diags(x, "RM");
	clang_visitChildren(clang_getTranslationUnitCursor(x->tu), probe_cb, x);
	for (i = 0; i < NFLAGS; i++) {
		struct probe *pr = probe_get(x, u.fp[i]);

		flag_known[i] = pr->ok == 1;
		flagv[i] = pr->val;
	}
	if (!flag_known[CF_NON_PRIVILEGED])
		warnx("%s: RMCTRL_FLAGS_NON_PRIVILEGED is not defined; control privileges unknown",
		      x->t->label);
	clang_visitChildren(clang_getTranslationUnitCursor(x->tu), top_cb, x);
	if (!x->abi->ctrl.n)
		die("%s: no exported methods found", x->t->label);
	if (!x->abi->cls.n)
		die("%s: no resource descriptors found", x->t->label);
	for (i = 0; i < sc->esc.n; i++)
		rm_esc(x, &u, i);
	for (i = 0; i < sc->dep.n; i++)
		dep_add(x, sc->dep.v[i], u.dp[i]);
	for (i = 0; i < sc->emb.n; i++)
		emb_add(x, sc->emb.v[i], u.mp[i]);
	free(u.mp);
	free(u.ep);
	free(u.xp);
	free(u.dp);
	sb_free(&u.src);
}

static const char *const uvm_incdirs[] = {
	"kernel-open/nvidia-uvm", "kernel-open/common/inc", NULL,
};

static void uvm_unit(struct xctx *x, struct scan *sc)
{
	struct sbuf src = { 0 };
	unsigned line = 1;
	char *h = path_join(x->t->root, "kernel-open/nvidia-uvm/uvm_linux_ioctl.h");
	int (*up)[2];
	size_t i;

	if (!path_exists(h)) {
		free(h);
		h = path_join(x->t->root, "kernel-open/nvidia-uvm/uvm_ioctl.h");
		if (!path_exists(h)) {
			warnx("%s: no UVM ioctl header; no UVM commands recorded", x->t->label);
			free(h);
			return;
		}
	}
	sb_printf(&src, "#include \"%s\"\n", h);
	line++;
	free(h);
	up = xcalloc(sc->uvm.n + 1, sizeof(*up));
	for (i = 0; i < sc->uvm.n; i++) {
		struct uvm_hit *u = sc->uvm.v[i];

		up[i][0] = probe_add(x, &src, &line, u->name, 0);
		up[i][1] = u->params ? probe_add(x, &src, &line, u->params, 1) : -1;
	}
	x->tu = parse_unit(x, src.s, src.len, uvm_incdirs, NULL, NULL);
	check_diags(x, "UVM");
	clang_visitChildren(clang_getTranslationUnitCursor(x->tu), probe_cb, x);
	for (i = 0; i < sc->uvm.n; i++) {
		struct uvm_hit *u = sc->uvm.v[i];
		struct probe *pv = probe_get(x, up[i][0]), *pt = probe_get(x, up[i][1]);
		struct uvmc *c;

		if (pv->ok != 1) {
			warnx("%s: UVM command %s has no value; skipped", x->t->label, u->name);
			continue;
		}
		c = xcalloc(1, sizeof(*c));
		c->cmd = (uint32_t)pv->val;
		c->name = xstrdup(u->name);
		c->node = u->node;
		if (pt && pt->ok == 1)
			ptype_set(x, &c->type, pt->type);
		else {
			if (pt)
				warnx("%s: %s: params type %s is not known", x->t->label, u->name,
				      u->params);
			c->type.name = xstrdup("-");
			c->type.size = 0;
		}
		pv_push(&x->abi->uvm, c);
	}
	free(up);
	sb_free(&src);
}

static void probes_reset(struct xctx *x)
{
	size_t i;

	for (i = 0; i < x->probes.n; i++) {
		struct probe *p = x->probes.v[i];

		free(p->what);
		free(p);
	}
	x->probes.n = 0;
}

/* Move the layouts made from a unit into the ABI (keyed later by hash). */
static void collect_layouts(struct xctx *x, struct pvec *keep)
{
	size_t i;

	for (i = 0; i < x->all.n; i++)
		pv_push(keep, x->all.v[i]);
	x->all.n = 0;
	smap_free(&x->recs, NULL);
	smap_free(&x->names, free);
}

/* Give every payload type of @a the hash of its layout. */
static void set_hashes(struct abi *a)
{
	size_t i;
	int k;

	for (i = 0; i < a->esc.n; i++) {
		struct esc *e = a->esc.v[i];

		for (k = 0; k < e->ntypes; k++)
			if (e->types[k].rec)
				e->types[k].hash = e->types[k].rec->hash;
	}
	for (i = 0; i < a->ctrl.n; i++) {
		struct ctrl *c = a->ctrl.v[i];

		if (c->type.rec)
			c->type.hash = c->type.rec->hash;
	}
	for (i = 0; i < a->cls.n; i++) {
		struct cls *c = a->cls.v[i];

		if (c->type.rec)
			c->type.hash = c->type.rec->hash;
	}
	for (i = 0; i < a->uvm.n; i++) {
		struct uvmc *c = a->uvm.v[i];

		if (c->type.rec)
			c->type.hash = c->type.rec->hash;
	}
	for (i = 0; i < a->dep.n; i++) {
		struct dep *d = a->dep.v[i];

		if (d->type.rec)
			d->type.hash = d->type.rec->hash;
		if (d->elem.rec)
			d->elem.hash = d->elem.rec->hash;
	}
	for (i = 0; i < a->emb.n; i++) {
		struct emb *e = a->emb.v[i];

		if (e->type.rec)
			e->type.hash = e->type.rec->hash;
		if (e->elem.rec)
			e->elem.hash = e->elem.rec->hash;
	}
}

void extract_tree(struct tree *t, struct abi *out, struct xstats *st)
{
	struct xctx x = { 0 };
	struct scan sc;
	struct pvec keep = { 0 };
	double t0 = now();
	size_t i;

	memset(out, 0, sizeof(*out));
	out->release = xstrdup(t->version);
	out->source = xstrdup(t->source);
	x.t = t;
	x.abi = out;
	x.idx = clang_createIndex(0, 0);
	x.main_path = path_join(t->root, ".nvabi-unit.c");

	scan_tree(t->root, &sc);
	scan_fds(t->root, &out->fdin);
	out->uvm_unknown = scan_uvm_unknown(t->root);
	rm_unit(&x, &sc);
	collect_layouts(&x, &keep);
	clang_disposeTranslationUnit(x.tu);
	probes_reset(&x);
	uvm_unit(&x, &sc);
	collect_layouts(&x, &keep);
	if (x.tu)
		clang_disposeTranslationUnit(x.tu);
	probes_reset(&x);
	pv_free(&x.probes);
	clang_disposeIndex(x.idx);
	scan_free(&sc);

	/* Hash every layout and key it by name#hash. */
	for (i = 0; i < keep.n; i++) {
		struct layout *l = keep.v[i];
		char key[512];

		layout_hash(l);
		snprintf(key, sizeof(key), "%s#%012llx", l->name,
			 (unsigned long long)(l->hash & 0xffffffffffffULL));
		if (!smap_get(&out->layouts, key))
			smap_put(&out->layouts, key, l);
	}
	set_hashes(out);
	pv_free(&keep);
	free(x.main_path);
	abi_sort(out);
	if (st) {
		st->secs = now() - t0;
		st->nlayouts = out->layouts.n;
	}
}
