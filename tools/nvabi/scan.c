// SPDX-License-Identifier: GPL-2.0
/*
 * nvabi: read the driver's ioctl dispatch code with the clang lexer.
 *
 * The kernel-side dispatch (kernel-open/nvidia/nv.c) needs Linux headers to
 * compile, so it is read as a token stream rather than parsed: for each
 * escape the dispatchers handle we record which device node it is gated to,
 * whether it demands an administrator, and which type(s) its size is checked
 * against. Type names found here are laid out later by the compiler
 * (extract.c); no size or offset is taken from text.
 *
 * The escape is handled by the first of these that names it, in order:
 *   nv.c nvidia_ioctl -> osapi.c rm_ioctl -> escape.c RmIoctl
 * UVM commands are the cases of uvm.c uvm_ioctl and uvm_tools.c
 * uvm_tools_unlocked_ioctl; their params type is <command>_PARAMS, as the
 * driver's UVM_ROUTE_CMD_* macros (uvm_api.h) paste it.
 */
#include <clang-c/Index.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "nvabi.h"

struct tok {
	char *s;
	int kind;		/* CXTokenKind */
	int depth;		/* brace depth before the token */
	const char *cond;	/* innermost #if around it ("ifdef X", "else ifdef X" ...) */
};

struct tfile {
	char *rel;		/* tree-relative path */
	struct tok *t;
	size_t n;
	struct pvec conds;	/* the strings tok.cond points to */
};

struct fn {
	struct tfile *f;
	const char *name;
	size_t pb, pe;		/* parameter tokens [pb, pe) */
	size_t bb, be;		/* body tokens (b, e): bb is '{', be is '}' */
};

struct scanctx {
	struct tfile files[32];
	int nfiles;
	CXIndex idx;
	const char *root;
};

static int is_ident(const struct tok *t)
{
	return t->kind == CXToken_Identifier;
}

static int teq(const struct tok *t, const char *s)
{
	return !strcmp(t->s, s);
}

/* The spelling of token @t if it lies on @line, else NULL (free it). */
static char *tok_on_line(CXTranslationUnit tu, CXToken t, unsigned line)
{
	CXString s;
	unsigned l;
	char *r;

	clang_getSpellingLocation(clang_getTokenLocation(tu, t), NULL, &l, NULL, NULL);
	if (l != line)
		return NULL;
	s = clang_getTokenSpelling(tu, t);
	r = xstrdup(clang_getCString(s));
	clang_disposeString(s);
	return r;
}

/* An #include's "file" or <file>, tokens @t on @line, entered in @incs once. */
static void grab_include(CXTranslationUnit tu, CXToken *t, size_t n, unsigned line,
			 struct pvec *incs)
{
	struct sbuf b = { 0 };
	size_t i;
	char *w;

	for (i = 2; i < n && (w = tok_on_line(tu, t[i], line)); i++) {
		sb_add(&b, w);
		free(w);
	}
	if (b.len > 2 && ((b.s[0] == '"' && b.s[b.len - 1] == '"') ||
			  (b.s[0] == '<' && b.s[b.len - 1] == '>'))) {
		for (i = 0; i < incs->n; i++)
			if (!strcmp(incs->v[i], b.s))
				break;
		if (i == incs->n) {
			pv_push(incs, sb_steal(&b));
			return;
		}
	}
	sb_free(&b);
}

/*
 * Follow the conditional directive @d (its name; @t on @line the rest):
 * @cond[*@n - 1] names the innermost one around the tokens that follow
 * ("ifdef X", "ifndef X", "if" for an expression, "else " before any of
 * them in its #else or #elif part).
 */
static void cond_track(CXTranslationUnit tu, const char *d, CXToken *t, size_t n,
		       unsigned line, struct tfile *tf, const char **cond, int *ncond)
{
	char *c = NULL, *m;

	if (!strcmp(d, "ifdef") || !strcmp(d, "ifndef")) {
		m = n > 2 ? tok_on_line(tu, t[2], line) : NULL;
		c = xasprintf("%s %s", d, m ? m : "?");
		free(m);
	} else if (!strcmp(d, "if")) {
		c = xstrdup("if");
	}
	if (c) {
		if (*ncond == 32)
			die("%s: #if nested too deep", tf->rel);
		pv_push(&tf->conds, c);
		cond[(*ncond)++] = c;
	} else if ((!strcmp(d, "else") || !strcmp(d, "elif")) && *ncond &&
		   strncmp(cond[*ncond - 1], "else ", 5)) {
		c = xasprintf("else %s", cond[*ncond - 1]);
		pv_push(&tf->conds, c);
		cond[*ncond - 1] = c;
	} else if (!strcmp(d, "endif") && *ncond) {
		(*ncond)--;
	}
}

/* lex_file() under way: the file's text and lines, and where the tokens are. */
struct lexer {
	CXTranslationUnit tu;
	const char *text;
	size_t len;
	size_t nlines;
	size_t *line_start;		/* per line, from 1: its offset */
	unsigned char *directive;	/* per line: part of a directive */
	struct tfile *tf;
	int depth;			/* of braces */
	int ncond;
	const char *cond[32];		/* the #if around, innermost last */
};

/* Where each line of the text starts; no line is a directive yet. */
static void lex_lines(struct lexer *lx)
{
	size_t i, nlines = 1;

	for (i = 0; i < lx->len; i++)
		if (lx->text[i] == '\n')
			nlines++;
	lx->line_start = xcalloc(nlines + 2, sizeof(*lx->line_start));
	lx->directive = xcalloc(nlines + 2, 1);
	nlines = 1;
	lx->line_start[1] = 0;
	for (i = 0; i < lx->len; i++)
		if (lx->text[i] == '\n')
			lx->line_start[++nlines] = i + 1;
	lx->nlines = nlines;
}

/*
 * A directive: '#' the first of the @n tokens @t, on @line. Its #include
 * goes into @incs, its #if and such into the conditions; it and its
 * continuation lines are marked as directive lines.
 */
static void lex_directive(struct lexer *lx, CXToken *t, size_t n, unsigned line,
			  struct pvec *incs)
{
	unsigned l = line;
	char *d = n > 1 ? tok_on_line(lx->tu, t[1], line) : NULL;

	if (d && incs && !strcmp(d, "include"))
		grab_include(lx->tu, t, n, line, incs);
	if (d)
		cond_track(lx->tu, d, t, n, line, lx->tf, lx->cond, &lx->ncond);
	free(d);

	for (;;) {
		size_t end = l < lx->nlines ? lx->line_start[l + 1] : lx->len;

		lx->directive[l] = 1;
		while (end > lx->line_start[l] &&
		       (lx->text[end - 1] == '\n' || lx->text[end - 1] == '\r'))
			end--;
		if (end > lx->line_start[l] && lx->text[end - 1] == '\\' && l < lx->nlines)
			l++;
		else
			break;
	}
}

/* Append token @s of kind @k, with its brace depth and condition. */
static void lex_token(struct lexer *lx, CXTokenKind k, const char *s)
{
	struct tok *t = &lx->tf->t[lx->tf->n++];

	t->s = xstrdup(s);
	t->kind = k;
	t->depth = lx->depth;
	t->cond = lx->ncond ? lx->cond[lx->ncond - 1] : NULL;
	if (k == CXToken_Punctuation) {
		if (!strcmp(t->s, "{"))
			lx->depth++;
		else if (!strcmp(t->s, "}") && lx->depth > 0)
			lx->depth--;
	}
}

/* Lex one file; directive lines (#include, #if, #define ...) are dropped. */
static int lex_file(struct scanctx *sc, const char *rel, struct tfile *tf, struct pvec *incs)
{
	char *path = path_join(sc->root, rel);
	struct lexer lx = { .tf = tf };
	char *text = read_file(path, &lx.len);
	const char *args[] = { "-x", "c", "-std=gnu11", "-nostdinc", "-w" };
	CXToken *raw = NULL;
	unsigned nraw = 0, prev_line = 0;
	CXFile file;
	size_t i;

	memset(tf, 0, sizeof(*tf));
	tf->rel = xstrdup(rel);
	if (!text) {
		free(path);
		return -1;
	}
	lx.text = text;
	lex_lines(&lx);

	lx.tu = clang_parseTranslationUnit(sc->idx, path, args, 5, NULL, 0,
					   CXTranslationUnit_SingleFileParse |
					   CXTranslationUnit_SkipFunctionBodies |
					   CXTranslationUnit_KeepGoing |
					   CXTranslationUnit_Incomplete);
	if (!lx.tu)
		die("%s: clang could not read the file", rel);
	file = clang_getFile(lx.tu, path);
	if (file) {
		CXSourceRange r = clang_getRange(clang_getLocationForOffset(lx.tu, file, 0),
						 clang_getLocationForOffset(lx.tu, file, lx.len));
		clang_tokenize(lx.tu, r, &raw, &nraw);
	}
	tf->t = xcalloc(nraw + 1, sizeof(*tf->t));
	for (i = 0; i < nraw; i++) {
		CXTokenKind k = clang_getTokenKind(raw[i]);
		unsigned line, col, off;
		CXString s;

		if (k == CXToken_Comment)
			continue;
		clang_getSpellingLocation(clang_getTokenLocation(lx.tu, raw[i]), NULL, &line, &col,
					  &off);
		s = clang_getTokenSpelling(lx.tu, raw[i]);
		if (k == CXToken_Punctuation && !strcmp(clang_getCString(s), "#") &&
		    line != prev_line && line <= lx.nlines)
			lex_directive(&lx, raw + i, nraw - i, line, incs);
		prev_line = line;
		if (line > lx.nlines || !lx.directive[line])
			lex_token(&lx, k, clang_getCString(s));
		clang_disposeString(s);
	}
	tf->t[tf->n].s = xstrdup("");
	if (raw)
		clang_disposeTokens(lx.tu, raw, nraw);
	clang_disposeTranslationUnit(lx.tu);
	free(lx.line_start);
	free(lx.directive);
	free(text);
	free(path);
	return 0;
}

static void tfile_free(struct tfile *tf)
{
	size_t i;

	for (i = 0; i <= tf->n && tf->t; i++)
		free(tf->t[i].s);
	for (i = 0; i < tf->conds.n; i++)
		free(tf->conds.v[i]);
	pv_free(&tf->conds);
	free(tf->t);
	free(tf->rel);
}

/* Index of the token matching the opener at i ('(' or '{' or '['), or n. */
static size_t match(const struct tfile *f, size_t i)
{
	const char *open = f->t[i].s;
	const char *close = !strcmp(open, "(") ? ")" : !strcmp(open, "{") ? "}" : "]";
	int d = 0;

	for (; i < f->n; i++) {
		if (f->t[i].kind != CXToken_Punctuation)
			continue;
		if (!strcmp(f->t[i].s, open))
			d++;
		else if (!strcmp(f->t[i].s, close) && --d == 0)
			return i;
	}
	return f->n;
}

/* Find the definition of a function in the lexed files. */
static int find_fn(struct scanctx *sc, const char *name, struct fn *out)
{
	int fi;

	for (fi = 0; fi < sc->nfiles; fi++) {
		struct tfile *f = &sc->files[fi];
		size_t i;

		for (i = 0; i + 1 < f->n; i++) {
			size_t pe;

			if (f->t[i].depth != 0 || !is_ident(&f->t[i]) || !teq(&f->t[i], name) ||
			    !teq(&f->t[i + 1], "("))
				continue;
			pe = match(f, i + 1);
			if (pe + 1 >= f->n || !teq(&f->t[pe + 1], "{"))
				continue;
			out->f = f;
			out->name = name;
			out->pb = i + 2;
			out->pe = pe;
			out->bb = pe + 1;
			out->be = match(f, pe + 1);
			return 0;
		}
	}
	return -1;
}

/* Name of the idx-th parameter of fn (last identifier of that parameter). */
static const char *param_name(const struct fn *fn, int idx)
{
	const struct tfile *f = fn->f;
	size_t i;
	int n = 0, d = 0;
	const char *last = NULL;

	for (i = fn->pb; i < fn->pe; i++) {
		const struct tok *t = &f->t[i];

		if (teq(t, "(") || teq(t, "["))
			d++;
		else if (teq(t, ")") || teq(t, "]"))
			d--;
		else if (d == 0 && teq(t, ",")) {
			if (n == idx)
				return last;
			n++;
			last = NULL;
		} else if (d == 0 && is_ident(t))
			last = t->s;
	}
	return n == idx ? last : NULL;
}

static int is_size_var(const struct tfile *f, size_t i, const char *sizevar)
{
	if (!is_ident(&f->t[i]))
		return 0;
	if (i > 0 && (teq(&f->t[i - 1], "->") || teq(&f->t[i - 1], ".")))
		return 0;
	return !strcmp(f->t[i].s, sizevar);
}

/* The declared type of variable var, searching tokens [b, e). */
static char *decl_type(const struct tfile *f, size_t b, size_t e, const char *var, int want_ptr,
		       int depth)
{
	size_t i;

	for (i = b + 1; i < e; i++) {
		size_t t;
		const char *next;

		if (!is_ident(&f->t[i]) || strcmp(f->t[i].s, var))
			continue;
		if (depth >= 0 && f->t[i].depth != depth)
			continue;
		next = f->t[i + 1].s;
		if (strcmp(next, "=") && strcmp(next, ";") && strcmp(next, ",") &&
		    strcmp(next, ")") && strcmp(next, "["))
			continue;
		t = i - 1;
		if (want_ptr) {
			if (!teq(&f->t[t], "*"))
				continue;
			t--;
		}
		while (t > b && teq(&f->t[t], "const"))
			t--;
		if (!is_ident(&f->t[t]) && f->t[t].kind != CXToken_Keyword)
			continue;
		if (f->t[t].kind == CXToken_Keyword &&
		    strcmp(f->t[t].s, "int") && strcmp(f->t[t].s, "char") &&
		    strcmp(f->t[t].s, "long") && strcmp(f->t[t].s, "unsigned"))
			continue;
		if (t > 0 && (teq(&f->t[t - 1], "struct") || teq(&f->t[t - 1], "union")))
			return xasprintf("%s %s", f->t[t - 1].s, f->t[t].s);
		/* "x = y" or "return y" are not declarations */
		if (t > 0 && (teq(&f->t[t - 1], "->") || teq(&f->t[t - 1], ".")))
			continue;
		return xstrdup(f->t[t].s);
	}
	return NULL;
}

struct hinfo {
	enum node node;
	enum priv priv;
	enum esc_kind kind;
	int ntypes;
	char *types[4];
	char *via;
};

static int kind_rank(enum esc_kind k)
{
	return k == ESC_ARRAY ? 2 : k == ESC_MIN ? 1 : 0;
}

static void hinfo_add_type(struct hinfo *h, char *ty, enum esc_kind k)
{
	int i, dup = 0;

	/* an array check outranks a minimum, which outranks an exact size */
	if (kind_rank(k) > kind_rank(h->kind))
		h->kind = k;
	for (i = 0; i < h->ntypes; i++)
		if (!strcmp(h->types[i], ty))
			dup = 1;
	if (dup || h->ntypes == 4) {
		free(ty);
		return;
	}
	h->types[h->ntypes++] = ty;
}

/* The declared type of a variable used in a handler: declared in the handler,
 * or at the top level of the function. */
static char *lookup_decl(const struct fn *ctx, size_t b, size_t e, const char *var, int want_ptr)
{
	const struct tfile *f = ctx->f;
	char *r = decl_type(f, b - 1, e, var, want_ptr, -1);

	if (!r)
		r = decl_type(f, ctx->bb, ctx->be, var, want_ptr, f->t[ctx->bb].depth + 1);
	return r;
}

/* The type named by "sizeof ( ... )" whose '(' is at i. */
static char *sizeof_type(const struct fn *ctx, size_t i, size_t b, size_t e)
{
	const struct tfile *f = ctx->f;
	size_t j = match(f, i);
	char *r;

	if (j == i + 3 && teq(&f->t[i + 1], "*") && is_ident(&f->t[i + 2]))
		return lookup_decl(ctx, b, e, f->t[i + 2].s, 1);
	if (j == i + 2 && is_ident(&f->t[i + 1])) {
		r = lookup_decl(ctx, b, e, f->t[i + 1].s, 0);
		return r ? r : xstrdup(f->t[i + 1].s);
	}
	if (j == i + 3 && (teq(&f->t[i + 1], "struct") || teq(&f->t[i + 1], "union")))
		return xasprintf("%s %s", f->t[i + 1].s, f->t[i + 2].s);
	if (j == i + 2 && f->t[i + 1].kind == CXToken_Keyword)
		return xstrdup(f->t[i + 1].s);
	return NULL;
}

/* The device node and privilege gates named in tokens [b, e) into @h. */
static void analyse_gates(const struct tfile *f, size_t b, size_t e, struct hinfo *h)
{
	size_t i;

	for (i = b; i < e; i++) {
		const struct tok *t = &f->t[i];

		if (!is_ident(t))
			continue;
		if (!strcmp(t->s, "NV_CTL_DEVICE_ONLY") && h->node != NODE_GPU)
			h->node = NODE_CTL;
		else if (!strcmp(t->s, "NV_ACTUAL_DEVICE_ONLY") && h->node != NODE_CTL)
			h->node = NODE_GPU;
		else if ((!strcmp(t->s, "NV_IS_SUSER") || !strcmp(t->s, "osIsAdministrator")) &&
			 i > 0 && teq(&f->t[i - 1], "!"))
			h->priv = PRIV_ROOT;
	}
}

/*
 * The kind of size check made with the sizeof at @i (its '(' closed at
 * @close, tokens up to @e): "<sizevar> <op> sizeof(T)" or "sizeof(T) <op>
 * <sizevar>"; -1 when it is none.
 */
static int size_check(const struct tfile *f, size_t i, size_t close, size_t e,
		      const char *sizevar)
{
	const char *op = NULL;

	if (i >= 2 && is_size_var(f, i - 2, sizevar))
		op = f->t[i - 1].s;
	else if (close + 2 < e && is_size_var(f, close + 2, sizevar)) {
		op = f->t[close + 1].s;
		if (!strcmp(op, "<"))
			op = ">";
		else if (!strcmp(op, ">"))
			op = "<";
		else if (!strcmp(op, "<="))
			op = ">=";
		else if (!strcmp(op, ">="))
			op = "<=";
	}
	if (!op)
		return -1;
	if (!strcmp(op, "/") || !strcmp(op, "%"))
		return ESC_ARRAY;
	if (!strcmp(op, "==") || !strcmp(op, "!="))
		return ESC_EXACT;
	if (!strcmp(op, "<") || !strcmp(op, ">="))
		return ESC_MIN;
	return -1;
}

/* The types @sizevar is checked against in tokens [b, e) into @h; found any? */
static int analyse_sizeof(const struct fn *ctx, size_t b, size_t e, const char *sizevar,
			  struct hinfo *h)
{
	const struct tfile *f = ctx->f;
	size_t i;
	int found = 0;

	for (i = b; i + 1 < e; i++) {
		int k;
		char *ty;

		if (!teq(&f->t[i], "sizeof") || !teq(&f->t[i + 1], "("))
			continue;
		k = size_check(f, i, match(f, i + 1), e, sizevar);
		if (k < 0)
			continue;
		ty = sizeof_type(ctx, i + 1, b, e);
		if (!ty) {
			warnx("%s: %s: cannot read the operand of sizeof", f->rel, ctx->name);
			continue;
		}
		hinfo_add_type(h, ty, (enum esc_kind)k);
		found = 1;
	}
	return found;
}

static void analyse(struct scanctx *sc, const struct fn *ctx, size_t b, size_t e,
		    const char *sizevar, struct hinfo *h, int depth);

/*
 * No check in tokens [b, e): follow the first call handed @sizevar whose
 * callee checks it. Return: whether one did (its name is in h->via).
 */
static int analyse_calls(struct scanctx *sc, const struct fn *ctx, size_t b, size_t e,
			 const char *sizevar, struct hinfo *h, int depth)
{
	const struct tfile *f = ctx->f;
	size_t i;

	for (i = b; i + 1 < e; i++) {
		size_t close, a;
		int argn = 0, d = 0;
		struct fn callee;
		const char *pn;

		if (!is_ident(&f->t[i]) || !teq(&f->t[i + 1], "("))
			continue;
		close = match(f, i + 1);
		for (a = i + 2; a < close; a++) {
			if (teq(&f->t[a], "(") || teq(&f->t[a], "["))
				d++;
			else if (teq(&f->t[a], ")") || teq(&f->t[a], "]"))
				d--;
			else if (d == 0 && teq(&f->t[a], ","))
				argn++;
			else if (d == 0 && is_size_var(f, a, sizevar) &&
				 (teq(&f->t[a - 1], "(") || teq(&f->t[a - 1], ",")) &&
				 (teq(&f->t[a + 1], ")") || teq(&f->t[a + 1], ",")))
				break;
		}
		if (a >= close)
			continue;
		if (find_fn(sc, f->t[i].s, &callee))
			continue;
		pn = param_name(&callee, argn);
		if (!pn)
			continue;
		analyse(sc, &callee, callee.bb + 1, callee.be, pn, h, depth + 1);
		if (h->ntypes) {
			char *via = xasprintf("%s%s%s", callee.name, h->via ? ">" : "",
					      h->via ? h->via : "");

			free(h->via);
			h->via = via;
			return 1;
		}
	}
	return 0;
}

/*
 * No size check at all in tokens [b, e): record the type the handler reads
 * the payload as ("T *p = data;"), so that a mediator can still bound it.
 */
static void analyse_unchecked(const struct tfile *f, size_t b, size_t e, struct hinfo *h)
{
	size_t i;

	for (i = b; i + 5 < e; i++) {
		const struct tok *t = &f->t[i];

		if (!is_ident(t) || !teq(&f->t[i + 1], "*") || !is_ident(&f->t[i + 2]) ||
		    !teq(&f->t[i + 3], "=") || !is_ident(&f->t[i + 4]) || !teq(&f->t[i + 5], ";"))
			continue;
		if (teq(&f->t[i - 1], "struct") || teq(&f->t[i - 1], "union"))
			hinfo_add_type(h, xasprintf("%s %s", f->t[i - 1].s, t->s), ESC_EXACT);
		else
			hinfo_add_type(h, xstrdup(t->s), ESC_EXACT);
		h->kind = ESC_UNCHECKED;
		return;
	}
}

/*
 * The handler in tokens [b, e) of @ctx into @h: its gates, and the types
 * @sizevar is checked against there or, up to three calls deep, where it
 * is handed on.
 */
static void analyse(struct scanctx *sc, const struct fn *ctx, size_t b, size_t e,
		    const char *sizevar, struct hinfo *h, int depth)
{
	analyse_gates(ctx->f, b, e, h);
	if (analyse_sizeof(ctx, b, e, sizevar, h) || depth >= 3)
		return;
	/* No check here: follow a call that is handed the size. */
	if (analyse_calls(sc, ctx, b, e, sizevar, h, depth) || depth)
		return;
	analyse_unchecked(ctx->f, b, e, h);
}

static struct esc_hit *find_hit(struct scan *out, const char *name)
{
	size_t i;

	for (i = 0; i < out->esc.n; i++) {
		struct esc_hit *h = out->esc.v[i];

		if (!strcmp(h->name, name))
			return h;
	}
	return NULL;
}

static void record(struct scan *out, const struct fn *fn, const char *name,
		   struct hinfo *h)
{
	struct esc_hit *e;
	int i;

	if (find_hit(out, name)) {
		for (i = 0; i < h->ntypes; i++)
			free(h->types[i]);
		free(h->via);
		return;
	}
	e = xcalloc(1, sizeof(*e));
	e->name = xstrdup(name);
	e->src = h->via ? xasprintf("%s>%s", fn->name, h->via) : xstrdup(fn->name);
	e->node = h->node ? h->node : NODE_ANY;
	e->priv = h->priv ? h->priv : PRIV_USER;
	e->kind = h->ntypes ? h->kind : ESC_UNCHECKED;
	e->ntypes = h->ntypes;
	for (i = 0; i < h->ntypes; i++)
		e->types[i] = h->types[i];
	free(h->via);
	pv_push(&out->esc, e);
}

static int is_esc_name(const char *s)
{
	return !strncmp(s, "NV_ESC_", 7);
}

/* The size variable of a dispatcher: the one compared with sizeof most often. */
static const char *guess_sizevar(const struct fn *fn)
{
	const struct tfile *f = fn->f;
	const char *best = NULL;
	int bestn = 0;
	size_t i, j;

	for (i = fn->bb; i < fn->be; i++) {
		const char *cand;
		int n = 0;

		if (!teq(&f->t[i], "sizeof") || i < 2 || !is_ident(&f->t[i - 2]))
			continue;
		if (teq(&f->t[i - 3], "->") || teq(&f->t[i - 3], "."))
			continue;
		cand = f->t[i - 2].s;
		for (j = fn->bb; j < fn->be; j++)
			if (j >= 2 && teq(&f->t[j], "sizeof") && !strcmp(f->t[j - 2].s, cand))
				n++;
		if (n > bestn) {
			best = cand;
			bestn = n;
		}
	}
	return best ? best : "";
}

/* A dispatcher being read: its function, its size variable, what it found. */
struct disp {
	struct scanctx *sc;
	const struct fn *fn;
	const char *sizevar;
	struct scan *out;
};

/*
 * The escapes of @labels share the case body [body, end): analyse it once,
 * record it for each.
 */
static void record_labels(const struct disp *d, size_t body, size_t end,
			  const struct pvec *labels)
{
	struct hinfo h0 = { 0 };
	size_t k;

	analyse(d->sc, d->fn, body, end, d->sizevar, &h0, 0);
	for (k = 0; k < labels->n; k++) {
		struct hinfo h = h0;
		int m;

		for (m = 0; m < h0.ntypes; m++)
			h.types[m] = xstrdup(h0.types[m]);
		h.via = h0.via ? xstrdup(h0.via) : NULL;
		record(d->out, d->fn, labels->v[k], &h);
	}
	for (k = 0; k < (size_t)h0.ntypes; k++)
		free(h0.types[k]);
	free(h0.via);
}

/*
 * "switch (x) { case NV_ESC_FOO: ... }", the switch at token @i: each
 * group of escape labels with its body. Return: the token of its '}', or
 * @i where it is no switch with a body.
 */
static size_t dispatch_switch(const struct disp *d, size_t i)
{
	const struct tfile *f = d->fn->f;
	size_t c = match(f, i + 1), sb, se, j;
	int d0;
	struct pvec labels = { 0 };
	size_t body = 0;

	if (!teq(&f->t[c + 1], "{"))
		return i;
	sb = c + 1;
	se = match(f, sb);
	d0 = f->t[sb].depth + 1;
	for (j = sb + 1; j <= se; j++) {
		int is_label = j < se && f->t[j].depth == d0 &&
			       (teq(&f->t[j], "case") || teq(&f->t[j], "default"));

		if (!is_label && j < se)
			continue;
		if (labels.n && body && j > body) {
			record_labels(d, body, j, &labels);
			labels.n = 0;
		}
		if (j == se)
			break;
		if (teq(&f->t[j], "case")) {
			/* case NAME : -- a group of labels shares one body */
			if (is_esc_name(f->t[j + 1].s) && teq(&f->t[j + 2], ":")) {
				if (body && j > body)
					labels.n = 0;
				pv_push(&labels, f->t[j + 1].s);
				body = j + 3;
			} else {
				labels.n = 0;
				body = 0;
			}
		} else {
			labels.n = 0;
			body = 0;
		}
	}
	pv_free(&labels);
	return se;
}

static void scan_dispatcher(struct scanctx *sc, const char *fname, struct scan *out,
			    int required)
{
	struct fn fn;
	const struct tfile *f;
	struct disp d = { .sc = sc, .fn = &fn, .out = out };
	size_t i;

	if (find_fn(sc, fname, &fn)) {
		if (required)
			die("the tree has no definition of %s(); is it open-gpu-kernel-modules?",
			    fname);
		note("no %s() in this tree", fname);
		return;
	}
	f = fn.f;
	d.sizevar = guess_sizevar(&fn);
	note("%s: %s(), size variable '%s'", f->rel, fname, d.sizevar);

	for (i = fn.bb + 1; i < fn.be; i++) {
		/* if (x == NV_ESC_FOO) { ... } */
		if (teq(&f->t[i], "if") && teq(&f->t[i + 1], "(") && teq(&f->t[i + 3], "==") &&
		    teq(&f->t[i + 5], ")") && teq(&f->t[i + 6], "{") &&
		    (is_esc_name(f->t[i + 4].s) || is_esc_name(f->t[i + 2].s))) {
			const char *name = is_esc_name(f->t[i + 4].s) ? f->t[i + 4].s :
									  f->t[i + 2].s;
			struct hinfo h = { 0 };
			size_t end = match(f, i + 6);

			analyse(sc, &fn, i + 7, end, d.sizevar, &h, 0);
			record(out, &fn, name, &h);
			continue;
		}
		if (teq(&f->t[i], "switch") && teq(&f->t[i + 1], "("))
			i = dispatch_switch(&d, i);
	}
}

static void scan_uvm(struct scanctx *sc, const char *fname, enum node node, struct scan *out)
{
	struct fn fn;
	const struct tfile *f;
	size_t i;

	if (find_fn(sc, fname, &fn)) {
		warnx("no %s() in this tree: no UVM commands from it", fname);
		return;
	}
	f = fn.f;
	for (i = fn.bb + 1; i + 2 < fn.be; i++) {
		struct uvm_hit *u;

		if (is_ident(&f->t[i]) && !strncmp(f->t[i].s, "UVM_ROUTE_CMD_", 14) &&
		    teq(&f->t[i + 1], "(") && is_ident(&f->t[i + 2])) {
			u = xcalloc(1, sizeof(*u));
			u->name = xstrdup(f->t[i + 2].s);
			u->params = xasprintf("%s_PARAMS", f->t[i + 2].s);
			u->node = node;
			pv_push(&out->uvm, u);
		} else if (teq(&f->t[i], "case") && is_ident(&f->t[i + 1]) &&
			   !strncmp(f->t[i + 1].s, "UVM_", 4) && teq(&f->t[i + 2], ":")) {
			u = xcalloc(1, sizeof(*u));
			u->name = xstrdup(f->t[i + 1].s);
			u->node = node;
			pv_push(&out->uvm, u);
		}
	}
}

/*
 * Up-front size checks (595.44 and later: nv_validate_ioctls() and the RM
 * tables it consults): table rows "<PREFIX>_IOCTL_ENTRY(NV_ESC_FOO, type[,
 * is_array])", and in the same functions "if (cmd == NV_ESC_FOO)" blocks
 * that compare the size with sizeof.
 */
static void early_add(struct scan *out, const char *name, char **types, int n, int array)
{
	struct early_hit *h;
	int k;

	for (k = 0; k < (int)out->early.n; k++)
		if (!strcmp(((struct early_hit *)out->early.v[k])->name, name))
			goto drop;
	h = xcalloc(1, sizeof(*h));
	h->name = xstrdup(name);
	for (k = 0; k < n && k < 2; k++)
		h->types[h->ntypes++] = types[k];
	for (; k < n; k++)
		free(types[k]);
	h->array = array;
	pv_push(&out->early, h);
	return;
drop:
	for (k = 0; k < n; k++)
		free(types[k]);
}

static void scan_early(struct scanctx *sc, struct scan *out)
{
	int fi;

	for (fi = 0; fi < sc->nfiles; fi++) {
		struct tfile *f = &sc->files[fi];
		size_t i, n, fstart = 0, fend = 0;

		for (i = 0; i + 4 < f->n; i++) {
			const char *m = f->t[i].s;
			size_t close, c1, j, k;
			struct sbuf ty = { 0 };
			char *one;

			n = strlen(m);
			if (!is_ident(&f->t[i]) || n < 12 || strcmp(m + n - 12, "_IOCTL_ENTRY") ||
			    !teq(&f->t[i + 1], "(") || !is_esc_name(f->t[i + 2].s) ||
			    !teq(&f->t[i + 3], ","))
				continue;
			close = match(f, i + 1);
			for (c1 = i + 4; c1 < close && !teq(&f->t[c1], ","); c1++)
				;
			for (j = i + 4; j < c1; j++)
				sb_printf(&ty, "%s%s", j > i + 4 ? " " : "", f->t[j].s);
			if (!ty.len)
				continue;
			one = sb_steal(&ty);
			early_add(out, f->t[i + 2].s, &one, 1,
				  c1 < close && teq(&f->t[c1 + 1], "NV_TRUE"));
			if (i < fend)
				continue;
			/* the function holding this table: its special cases */
			for (k = i; k > 0 && !(f->t[k].depth == 0 && teq(&f->t[k], "{")); k--)
				;
			fstart = k;
			fend = match(f, k);
			{
				struct fn fn = { .f = f, .name = "validate", .bb = fstart, .be = fend };
				const char *sv = guess_sizevar(&fn);

				for (j = fstart; j + 6 < fend; j++) {
					struct hinfo h = { 0 };
					const char *name;

					if (!teq(&f->t[j], "if") || !teq(&f->t[j + 1], "(") ||
					    !teq(&f->t[j + 3], "==") || !teq(&f->t[j + 5], ")") ||
					    !teq(&f->t[j + 6], "{"))
						continue;
					name = is_esc_name(f->t[j + 4].s) ? f->t[j + 4].s :
					       is_esc_name(f->t[j + 2].s) ? f->t[j + 2].s : NULL;
					if (!name)
						continue;
					analyse(sc, &fn, j + 7, match(f, j + 6), sv, &h, 1);
					if (h.ntypes)
						early_add(out, name, h.types, h.ntypes,
							  h.kind == ESC_ARRAY);
					free(h.via);
				}
			}
		}
	}
}

/*
 * Deprecated controls: the rows "{ CMD, V2_CONVERTER(_NAME), ... }" of
 * rmDeprecatedControlTable, and in each converter "V2_CONVERTER(_NAME)(...)
 * { ... }" the CONVERT_TO_V2 or CONVERT_TO_V2_EX call that names the V2
 * command, both params types, the list fields, the field sizing the list,
 * whether it counts elements, the element type and the copy directions. A
 * converter without that call is custom: its V1 type is the one of its
 * CTRL_PARAMS_TOKEN_INIT (or of its local "T *pParams" when it copies the
 * params in itself), its V2 command the one it passes to RmControl.
 */
static int call_args(const struct tfile *f, size_t open, size_t *b, size_t *e, int max);

static char *arg_text(const struct tfile *f, size_t b, size_t e)
{
	struct sbuf s = { 0 };
	size_t i;

	for (i = b; i < e; i++)
		sb_printf(&s, "%s%s", s.len ? " " : "", f->t[i].s);
	return s.len ? sb_steal(&s) : xstrdup("");
}

/* The body of the converter of @name: [*bb, *be] are its braces. */
static int find_converter(const struct tfile *f, const char *name, size_t *bb, size_t *be)
{
	size_t i, c;

	for (i = 0; i + 5 < f->n; i++) {
		if (f->t[i].depth || !teq(&f->t[i], "V2_CONVERTER") || !teq(&f->t[i + 1], "(") ||
		    !teq(&f->t[i + 2], name) || !teq(&f->t[i + 3], ")") || !teq(&f->t[i + 4], "("))
			continue;
		c = match(f, i + 4);
		if (c + 1 < f->n && teq(&f->t[c + 1], "{")) {
			*bb = c + 1;
			*be = match(f, c + 1);
			return 0;
		}
	}
	return -1;
}

static int is_true(const char *s)
{
	return !strcmp(s, "NV_TRUE") || !strcmp(s, "1") || !strcmp(s, "TRUE");
}

static void converter(const struct tfile *f, struct dep_hit *d, size_t bb, size_t be)
{
	size_t i, b[12], e[12];
	int n;

	for (i = bb + 1; i + 1 < be; i++) {
		/* a custom converter that copies in a "T *pParams" itself */
		if (!d->type && i + 3 < be && is_ident(&f->t[i]) && teq(&f->t[i + 1], "*") &&
		    teq(&f->t[i + 2], "pParams") &&
		    (teq(&f->t[i + 3], "=") || teq(&f->t[i + 3], ";"))) {
			d->type = xstrdup(f->t[i].s);
			continue;
		}
		if (!teq(&f->t[i + 1], "("))
			continue;
		if (teq(&f->t[i], "CONVERT_TO_V2") || teq(&f->t[i], "CONVERT_TO_V2_EX")) {
			n = call_args(f, i + 1, b, e, 12);
			if (n < 10)
				die("%s: %s: %s() with %d arguments", f->rel, d->name, f->t[i].s, n);
			d->v2 = arg_text(f, b[0], e[0]);
			d->type = arg_text(f, b[1], e[1]);
			d->v2type = arg_text(f, b[2], e[2]);
			d->list = arg_text(f, b[3], e[3]);
			d->v2list = arg_text(f, b[4], e[4]);
			d->count = arg_text(f, b[5], e[5]);
			d->is_count = is_true(f->t[b[6]].s);
			d->elem = arg_text(f, b[7], e[7]);
			d->in = is_true(f->t[b[8]].s);
			d->out = is_true(f->t[b[9]].s);
			return;
		}
		if (teq(&f->t[i], "CTRL_PARAMS_TOKEN_INIT") && !d->type) {
			n = call_args(f, i + 1, b, e, 4);
			if (n == 3)
				d->type = arg_text(f, b[1], e[1]);
		} else if (teq(&f->t[i], "RmControl") && !d->v2) {
			n = call_args(f, i + 1, b, e, 8);
			if (n >= 4)
				d->v2 = arg_text(f, b[3], e[3]);
		}
	}
	if (!d->type || !d->v2)
		die("%s: %s: its converter names no %s", f->rel, d->name,
		    d->type ? "V2 command (RmControl)" :
			      "V1 params type (CTRL_PARAMS_TOKEN_INIT or a T *pParams)");
}

static void scan_deprecated(struct scanctx *sc, struct scan *out)
{
	const struct tfile *f = NULL;
	size_t i, j, close;
	int fi;

	for (fi = 0; fi < sc->nfiles; fi++)
		if (strstr(sc->files[fi].rel, "rmapi_deprecated_control.c"))
			f = &sc->files[fi];
	if (!f)
		return;
	for (i = 0; i + 4 < f->n; i++)
		if (teq(&f->t[i], "rmDeprecatedControlTable") && teq(&f->t[i + 1], "[") &&
		    teq(&f->t[i + 3], "=") && teq(&f->t[i + 4], "{"))
			break;
	if (i + 4 >= f->n)
		die("%s: no rmDeprecatedControlTable", f->rel);
	close = match(f, i + 4);
	for (j = i + 5; j < close; j++) {
		size_t row, bb, be;
		struct dep_hit *d;

		if (!teq(&f->t[j], "{"))
			continue;
		row = match(f, j);
		/* { CMD , V2_CONVERTER ( _NAME ) ... }; the end row is { 0, NULL ... } */
		if (row > j + 6 && is_ident(&f->t[j + 1]) && teq(&f->t[j + 2], ",") &&
		    teq(&f->t[j + 3], "V2_CONVERTER") && teq(&f->t[j + 4], "(")) {
			d = xcalloc(1, sizeof(*d));
			d->name = xstrdup(f->t[j + 1].s);
			if (find_converter(f, f->t[j + 5].s, &bb, &be))
				die("%s: no converter V2_CONVERTER(%s)", f->rel, f->t[j + 5].s);
			converter(f, d, bb, be);
			pv_push(&out->dep, d);
		} else if (!teq(&f->t[j + 1], "0")) {
			die("%s: rmDeprecatedControlTable row at token %zu is not understood",
			    f->rel, j);
		}
		j = row;
	}
}

/* ---- lists the driver copies for method-table controls ------------------ */

/* "... -> F" as the whole of [b, e): F, and in *@type the T of "( ( T * ) ...". */
static const char *field_ref(const struct tfile *f, size_t b, size_t e, const char **type)
{
	size_t i;

	if (e < b + 3 || !teq(&f->t[e - 2], "->") || !is_ident(&f->t[e - 1]))
		return NULL;
	if (type) {
		*type = NULL;
		for (i = b; i + 3 < e; i++)
			if (teq(&f->t[i], "(") && is_ident(&f->t[i + 1]) &&
			    teq(&f->t[i + 2], "*") && teq(&f->t[i + 3], ")"))
				*type = f->t[i + 1].s;
	}
	return f->t[e - 1].s;
}

static int is_number(const struct tok *t)
{
	return t->kind == CXToken_Literal && isdigit((unsigned char)t->s[0]);
}

/*
 * The count of RMAPI_PARAM_COPY_INIT's argument [b, e) in case tokens
 * [cb, ce): a field, a constant, or a local last assigned a field or the
 * product of two before the call (inside "if (... list ...)": ifptr).
 */
static int emb_count(const struct tfile *f, size_t cb, size_t b, size_t e, struct emb_hit *h)
{
	const char *fld = field_ref(f, b, e, NULL);
	size_t i, a = 0, end, star = 0;
	int d;

	if (fld) {
		h->count = xstrdup(fld);
		return 0;
	}
	if (e != b + 1)
		return -1;
	if (is_number(&f->t[b])) {
		h->cnum = xstrdup(f->t[b].s);
		return 0;
	}
	if (!is_ident(&f->t[b]))
		return -1;
	for (i = b; i > cb; i--)
		if (teq(&f->t[i - 1], f->t[b].s) && teq(&f->t[i], "=")) {
			a = i;
			break;
		}
	if (!a)
		return -1;
	for (end = a + 1, d = 0; end < e && !(d == 0 && teq(&f->t[end], ";")); end++) {
		if (teq(&f->t[end], "("))
			d++;
		else if (teq(&f->t[end], ")"))
			d--;
		else if (d == 0 && teq(&f->t[end], "*") && !star)
			star = end;
	}
	fld = field_ref(f, a + 1, star ? star : end, NULL);
	if (!fld)
		return -1;
	h->count = xstrdup(fld);
	if (star) {
		fld = field_ref(f, star + 1, end, NULL);
		if (!fld)
			return -1;
		h->count2 = xstrdup(fld);
	}
	if (f->t[a].depth > f->t[b].depth) {
		/* "if ( ... ) {" around the assignment must test the pointer */
		size_t ob, oc = 0;

		for (ob = a; ob > cb && !(teq(&f->t[ob], "{") && f->t[ob].depth == f->t[b].depth); ob--)
			;
		if (ob > cb && teq(&f->t[ob - 1], ")"))
			for (oc = ob - 1; oc > cb && match(f, oc - 1) != ob - 1; oc--)
				;
		if (!oc || oc < 2 || !teq(&f->t[oc - 2], "if"))
			return -1;
		for (i = oc; i < ob - 1; i++)
			if (teq(&f->t[i], h->list))
				h->ifptr = 1;
		if (!h->ifptr)
			return -1;
	}
	return 0;
}

static int emb_slot(const struct tfile *f, size_t cb, size_t ce, size_t at, struct emb_hit *h)
{
	size_t b[6], e[6], i, eb, ee;
	const char *ty = NULL, *fld;
	char *lty = NULL;
	int bad;

	if (call_args(f, at + 1, b, e, 6) != 5 || e[0] != b[0] + 4 ||
	    !teq(&f->t[b[0]], "paramCopies") || !is_number(&f->t[b[0] + 2]))
		return -1;
	h->slot = atoi(f->t[b[0] + 2].s);
	fld = field_ref(f, b[2], e[2], &ty);
	if (fld && !ty && e[2] == b[2] + 3 && is_ident(&f->t[b[2]])) {
		/* "p -> F" with "T * p" declared in the case */
		lty = decl_type(f, cb, ce, f->t[b[2]].s, 1, -1);
		ty = lty;
	}
	if (!fld || !ty) {
		free(lty);
		return -1;
	}
	h->list = xstrdup(fld);
	if (!h->type)
		h->type = xstrdup(ty);
	bad = strcmp(h->type, ty);
	free(lty);
	if (bad || emb_count(f, cb, b[3], e[3], h))
		return -1;
	eb = b[4];
	ee = e[4];
	if (ee == eb + 1 && is_ident(&f->t[eb])) {
		/* a local "L = ( ... list ... ) ? sizeof ( X ) : 0" */
		size_t a = 0, q;

		for (i = eb; i > cb; i--)
			if (teq(&f->t[i - 1], f->t[eb].s) && teq(&f->t[i], "=")) {
				a = i;
				break;
			}
		for (q = a + 1; a && q < ee && !teq(&f->t[q], "?") && !teq(&f->t[q], ";"); q++)
			if (teq(&f->t[q], h->list))
				h->ifptr = 1;
		if (!a || !h->ifptr || !teq(&f->t[q], "?") || !teq(&f->t[q + 1], "sizeof") ||
		    !teq(&f->t[q + 2], "("))
			return -1;
		eb = q + 1;
		ee = match(f, q + 2) + 1;
		if (!teq(&f->t[ee], ":") || !teq(&f->t[ee + 1], "0") || !teq(&f->t[ee + 2], ";"))
			return -1;
	}
	if (ee == eb + 1 && is_number(&f->t[eb]))
		h->elemnum = xstrdup(f->t[eb].s);
	else if (teq(&f->t[eb], "sizeof") && teq(&f->t[eb + 1], "(") &&
		 match(f, eb + 1) == ee - 1)
		h->elem = arg_text(f, eb + 2, ee - 1);
	else
		return -1;
	h->in = h->out = 1;
	/* paramCopies [ k ] . flags |= RMAPI_PARAM_COPY_FLAGS_X ; and nothing else */
	for (i = cb; i + 7 < ce; i++) {
		const char *fl;

		if (!teq(&f->t[i], "paramCopies") || !teq(&f->t[i + 5], "flags") ||
		    atoi(f->t[i + 2].s) != h->slot)
			continue;
		if (!teq(&f->t[i + 6], "|=") || !teq(&f->t[i + 8], ";"))
			return -1;	/* flags assigned or combined otherwise */
		if (f->t[i].depth != f->t[at].depth)
			return -1;	/* a flag set on a condition */
		fl = f->t[i + 7].s;
		if (!strcmp(fl, "RMAPI_PARAM_COPY_FLAGS_SKIP_COPYIN"))
			h->in = 0;
		else if (!strcmp(fl, "RMAPI_PARAM_COPY_FLAGS_SKIP_COPYOUT"))
			h->out = 0;
		else if (!strcmp(fl, "RMAPI_PARAM_COPY_FLAGS_DISABLE_MAX_SIZE_CHECK"))
			h->nomax = 1;
		else if (strcmp(fl, "RMAPI_PARAM_COPY_FLAGS_ZERO_BUFFER"))
			return -1;
	}
	return 0;
}

static void emb_hit_free(struct emb_hit *h)
{
	free(h->name);
	free(h->type);
	free(h->cond);
	free(h->list);
	free(h->count);
	free(h->count2);
	free(h->cnum);
	free(h->elem);
	free(h->elemnum);
	free(h);
}

/* A list of the case that @proto stands for: its name, condition and type. */
static struct emb_hit *emb_hit_new(const struct emb_hit *proto)
{
	struct emb_hit *h = xcalloc(1, sizeof(*h));

	h->name = xstrdup(proto->name);
	h->cond = proto->cond ? xstrdup(proto->cond) : NULL;
	h->type = proto->type ? xstrdup(proto->type) : NULL;
	return h;
}

/*
 * The lists that the case at token @i (up to @ce) of embeddedParamCopyIn()
 * initializes, one per slot, or the helper function it hands them to.
 * Return: the number of slots, -1 for a helper, 0 when not understood.
 */
static int emb_case_lists(const struct tfile *f, size_t i, size_t ce,
			  const struct emb_hit *proto, struct scan *out)
{
	struct emb_hit *h;
	int nslot = 0;
	size_t j;

	for (j = i + 2; j + 1 < ce; j++) {
		if (!teq(&f->t[j + 1], "("))
			continue;
		if (teq(&f->t[j], "RMAPI_PARAM_COPY_INIT")) {
			h = emb_hit_new(proto);
			if (emb_slot(f, i, ce, j, h) || h->slot != nslot) {
				emb_hit_free(h);
				return 0;
			}
			nslot++;
			pv_push(&out->emb, h);
		} else if (is_ident(&f->t[j]) && strcmp(f->t[j].s, "CHECK_PARAMS_OR_RETURN") &&
			   strcmp(f->t[j].s, "sizeof") && strcmp(f->t[j].s, "NvP64_VALUE") &&
			   !nslot) {
			/* a helper that sets the copies up itself */
			size_t k, m = match(f, j + 1);

			for (k = j + 1; k < m; k++)
				if (teq(&f->t[k], "paramCopies"))
					break;
			if (k == m)
				continue;
			h = emb_hit_new(proto);
			h->custom = 1;
			pv_push(&out->emb, h);
			return -1;
		}
	}
	return nslot;
}

/* The case at token @i, up to @ce, of embeddedParamCopyIn()'s switch. */
static void emb_case(const struct tfile *f, size_t i, size_t ce, struct scan *out)
{
	struct emb_hit proto = { 0 }, *h;
	size_t j;
	int nslot;

	proto.name = xstrdup(f->t[i + 1].s);
	if (f->t[i].cond)
		proto.cond = xstrdup(f->t[i].cond);
	for (j = i + 2; j + 4 < ce; j++)
		if (teq(&f->t[j], "CHECK_PARAMS_OR_RETURN") && teq(&f->t[j + 3], ","))
			proto.type = xstrdup(f->t[j + 4].s);
	nslot = emb_case_lists(f, i, ce, &proto, out);
	if (!nslot) {
		/* drop what this case pushed */
		while (out->emb.n && !strcmp(((struct emb_hit *)out->emb.v[out->emb.n - 1])->name,
					     proto.name))
			emb_hit_free(out->emb.v[--out->emb.n]);
		if (!proto.cond)
			die("%s: embeddedParamCopyIn(): case %s is not understood", f->rel,
			    proto.name);
		h = xcalloc(1, sizeof(*h));
		h->name = xstrdup(proto.name);
		h->cond = xstrdup(proto.cond);
		h->custom = 2;	/* not understood: must not be compiled */
		pv_push(&out->emb, h);
	} else if (nslot > 0 && !proto.type) {
		die("%s: embeddedParamCopyIn(): case %s names no params type", f->rel,
		    proto.name);
	}
	free(proto.name);
	free(proto.cond);
	free(proto.type);
}

/*
 * The cases of embeddedParamCopyIn()'s switch on the command: each names
 * the params type (CHECK_PARAMS_OR_RETURN or the casts) and initializes
 * one RMAPI_PARAM_COPY per list, flags after it; a case that leaves that
 * to a helper function is custom. A case under an #ifdef is recorded with
 * it even where its code is not understood (extract.c decides whether the
 * driver compiles it); any other case not understood stops the scan.
 */
static void scan_embedded(struct scanctx *sc, struct scan *out)
{
	struct fn fn;
	const struct tfile *f;
	size_t i, sb = 0, se;
	int sd;

	if (find_fn(sc, "embeddedParamCopyIn", &fn))
		return;
	f = fn.f;
	for (i = fn.bb; i + 5 < fn.be; i++)
		if (teq(&f->t[i], "switch") && teq(&f->t[i + 2], "pRmCtrlParams") &&
		    teq(&f->t[i + 4], "cmd")) {
			sb = match(f, i + 1) + 1;
			break;
		}
	if (!sb || !teq(&f->t[sb], "{"))
		die("%s: embeddedParamCopyIn() has no switch on the command", f->rel);
	se = match(f, sb);
	sd = f->t[sb].depth + 1;
	for (i = sb + 1; i < se; i++) {
		size_t ce;

		if (f->t[i].depth != sd || !teq(&f->t[i], "case"))
			continue;
		for (ce = i + 1; ce < se; ce++)
			if (f->t[ce].depth == sd &&
			    (teq(&f->t[ce], "case") || teq(&f->t[ce], "default")))
				break;
		emb_case(f, i, ce, out);
		i = ce - 1;
	}
}

void scan_tree(const char *root, struct scan *out)
{
	static const char *const files[] = {
		"kernel-open/nvidia/nv.c",
		"src/nvidia/arch/nvalloc/unix/src/osapi.c",
		"src/nvidia/arch/nvalloc/unix/src/escape.c",
		"kernel-open/nvidia-uvm/uvm.c",
		"kernel-open/nvidia-uvm/uvm_tools.c",
		"src/nvidia/interface/deprecated/rmapi_deprecated_control.c",
		"src/nvidia/src/kernel/rmapi/embedded_param_copy.c",
		NULL,
	};
	struct scanctx sc = { 0 };
	int i;

	memset(out, 0, sizeof(*out));
	sc.root = root;
	sc.idx = clang_createIndex(0, 0);
	for (i = 0; files[i]; i++) {
		if (lex_file(&sc, files[i], &sc.files[sc.nfiles],
			     strstr(files[i], "src/nvidia/") ? &out->includes : NULL)) {
			if (i == 0)
				die("%s: cannot read %s", root, files[i]);
			note("%s is missing", files[i]);
			tfile_free(&sc.files[sc.nfiles]);
			continue;
		}
		sc.nfiles++;
	}
	scan_dispatcher(&sc, "nvidia_ioctl", out, 1);
	scan_dispatcher(&sc, "rm_ioctl", out, 0);
	scan_dispatcher(&sc, "RmIoctl", out, 1);
	scan_early(&sc, out);
	scan_uvm(&sc, "uvm_ioctl", NODE_UVM, out);
	scan_uvm(&sc, "uvm_tools_unlocked_ioctl", NODE_UVM_TOOLS, out);
	scan_deprecated(&sc, out);
	scan_embedded(&sc, out);
	if (!out->esc.n)
		die("%s: found no escape handlers in nvidia_ioctl()/RmIoctl()", root);
	for (i = 0; i < sc.nfiles; i++)
		tfile_free(&sc.files[i]);
	clang_disposeIndex(sc.idx);
}

void scan_free(struct scan *sc)
{
	size_t i;
	int j;

	for (i = 0; i < sc->esc.n; i++) {
		struct esc_hit *e = sc->esc.v[i];

		for (j = 0; j < e->ntypes; j++)
			free(e->types[j]);
		free(e->name);
		free(e->src);
		free(e);
	}
	for (i = 0; i < sc->uvm.n; i++) {
		struct uvm_hit *u = sc->uvm.v[i];

		free(u->name);
		free(u->params);
		free(u);
	}
	for (i = 0; i < sc->includes.n; i++)
		free(sc->includes.v[i]);
	for (i = 0; i < sc->early.n; i++) {
		struct early_hit *h = sc->early.v[i];
		int k;

		free(h->name);
		for (k = 0; k < h->ntypes; k++)
			free(h->types[k]);
		free(h);
	}
	for (i = 0; i < sc->dep.n; i++) {
		struct dep_hit *d = sc->dep.v[i];

		free(d->name);
		free(d->v2);
		free(d->type);
		free(d->v2type);
		free(d->list);
		free(d->v2list);
		free(d->count);
		free(d->elem);
		free(d);
	}
	for (i = 0; i < sc->emb.n; i++)
		emb_hit_free(sc->emb.v[i]);
	pv_free(&sc->emb);
	pv_free(&sc->dep);
	pv_free(&sc->early);
	pv_free(&sc->esc);
	pv_free(&sc->uvm);
	pv_free(&sc->includes);
}

/* ---- fd numbers the driver looks up in the caller's fd table ------------- */

/*
 * A payload field holds an fd number the driver resolves when its value
 * reaches one of the driver's lookups:
 *   nv_get_file_private(fd, ctl, ...)   nvidia.ko: a file of the nvidia
 *	major; ctl NV_TRUE: the control node, NV_FALSE: a GPU node, anything
 *	else: either (nv.c)
 *   fget(fd) in nvidia-uvm              a file of nvidia-uvm (uvm.c, uvm_tools.c)
 *   fget(fd) in nv_cap_validate_and_dup_fd()   a capability node of
 *	nvidia-caps, which the driver then installs in the caller's table
 *	(nv-caps.c; reached from osRmCapAcquire() through os-interface.c, and
 *	for the fabric manager through nv.c and nvlink_caps.c)
 *   fget(fd) in nv_caps_imex_channel_get()     an IMEX channel node, whose
 *	minor is the channel (nv-caps-imex.c; from osImexChannelGet())
 * The value is followed back through at most a few steps, each of them
 * read from the token stream: a field access "p->f" or "p.f" (the type of
 * p as declared in scope), a parameter of the function (every call of the
 * function in the files read), a local assigned from an expression, or a
 * local whose address is passed to a function that stores through it
 * ("*out = p->f").  A field named like an fd that no lookup reaches is one
 * the driver writes (an fd it creates) or keeps as a plain number.
 *
 * The lookups of nvidia-caps and IMEX channels are followed strictly: every
 * step must be one of those above and every path must end in a payload
 * field, or the scan stops (the sources changed in a way nvabi does not
 * follow). The others, older, leave a path they cannot follow.
 */

#define FD_TRACE_DEPTH	8

/* The lookups followed strictly. */
static int fd_strict(enum node node)
{
	return node == NODE_CAP || node == NODE_IMEX;
}

/* The lookups of nvidia.ko's own nodes, which one field may reach as either. */
static int fd_nvidia_node(enum node node)
{
	return node == NODE_CTL || node == NODE_GPU || node == NODE_ANY;
}

static struct fd_hit *fd_find(struct pvec *out, const char *type, const char *field)
{
	size_t i;

	for (i = 0; i < out->n; i++) {
		struct fd_hit *h = out->v[i];

		if (!strcmp(h->type, type) && !strcmp(h->field, field))
			return h;
	}
	return NULL;
}

static void fd_add(struct pvec *out, const char *type, const char *field, enum node node)
{
	struct fd_hit *h;
	char *t;
	size_t n;

	if (!strncmp(type, "struct ", 7))
		type += 7;
	t = xstrdup(type);
	n = strlen(t);
	/* nv_ioctl_register_fd_t is the typedef of struct nv_ioctl_register_fd */
	if (n > 2 && !strcmp(t + n - 2, "_t"))
		t[n - 2] = 0;
	h = fd_find(out, t, field);
	if (h) {
		if (h->node != node)
			h->node = fd_nvidia_node(h->node) && fd_nvidia_node(node) ? NODE_ANY : NODE_NONE;
		free(t);
		return;
	}
	h = xcalloc(1, sizeof(*h));
	h->type = t;
	h->field = xstrdup(field);
	h->node = node;
	pv_push(out, h);
}

/* The type of variable var as declared in scope at token pos of fn (parameters too). */
static char *decl_before(const struct fn *fn, size_t pos, const char *var, int want_ptr)
{
	const struct tfile *f = fn->f;
	int mind = f->t[pos].depth;
	size_t i, t;

	for (i = pos; i-- > fn->pb;) {
		const struct tok *k = &f->t[i];
		const char *next = f->t[i + 1].s;

		if (k->depth < mind)
			mind = k->depth;
		if (!is_ident(k) || strcmp(k->s, var) || k->depth > mind)
			continue;
		if (strcmp(next, "=") && strcmp(next, ";") && strcmp(next, ",") &&
		    strcmp(next, ")") && strcmp(next, "["))
			continue;
		t = i - 1;
		if (want_ptr) {
			if (!teq(&f->t[t], "*"))
				continue;
			t--;
		}
		while (t > fn->pb && teq(&f->t[t], "const"))
			t--;
		if (!is_ident(&f->t[t]))
			continue;
		if (t > 0 && (teq(&f->t[t - 1], "->") || teq(&f->t[t - 1], ".")))
			continue;
		return xstrdup(f->t[t].s);
	}
	return NULL;
}

/* Split the arguments of the call whose '(' is at token open: [b[k], e[k]). */
static int call_args(const struct tfile *f, size_t open, size_t *b, size_t *e, int max)
{
	size_t close = match(f, open), i;
	int n = 0, d = 0;

	if (close >= f->n || close == open + 1)
		return 0;
	b[0] = open + 1;
	for (i = open + 1; i < close; i++) {
		const struct tok *t = &f->t[i];

		if (teq(t, "(") || teq(t, "[") || teq(t, "{"))
			d++;
		else if (teq(t, ")") || teq(t, "]") || teq(t, "}"))
			d--;
		else if (d == 0 && teq(t, ",")) {
			e[n++] = i;
			if (n == max)
				return n;
			b[n] = i + 1;
		}
	}
	e[n++] = close;
	return n;
}

/* Every function defined in file f, one at a time: *at is the cursor. */
static int next_fn(struct tfile *f, size_t *at, struct fn *out)
{
	size_t i;

	for (i = *at; i + 1 < f->n; i++) {
		size_t pe;

		if (f->t[i].depth != 0 || !is_ident(&f->t[i]) || !teq(&f->t[i + 1], "("))
			continue;
		pe = match(f, i + 1);
		if (pe + 1 >= f->n || !teq(&f->t[pe + 1], "{"))
			continue;
		out->f = f;
		out->name = f->t[i].s;
		out->pb = i + 2;
		out->pe = pe;
		out->bb = pe + 1;
		out->be = match(f, pe + 1);
		*at = out->be + 1;
		return 1;
	}
	*at = f->n;
	return 0;
}

static int fd_trace(struct scanctx *sc, const struct fn *fn, size_t b, size_t e, enum node node,
		    int depth, struct pvec *out);

/*
 * A step of a strict lookup (fd_strict()) that nvabi cannot follow: stop.
 * @fn and @at name the place.
 */
static void fd_lost(const struct fn *fn, size_t at, enum node node, const char *why)
{
	if (fd_strict(node))
		die("%s: %s(): the fd of a %s lookup is %s near '%s'; nvabi does not follow this",
		    fn->f->rel, fn->name, node_str(node), why, fn->f->t[at].s);
}

/*
 * The calls of function name with their k-th argument traced in the caller.
 * Return: the payload fields found.
 */
static int fd_trace_callers(struct scanctx *sc, const struct fn *callee, int k, enum node node,
			    int depth, struct pvec *out)
{
	int fi, found = 0, calls = 0;

	for (fi = 0; fi < sc->nfiles; fi++) {
		struct tfile *f = &sc->files[fi];
		size_t at = 0, i;
		struct fn caller;

		while (next_fn(f, &at, &caller))
			for (i = caller.bb; i + 1 < caller.be; i++) {
				size_t ab[16], ae[16];
				int n;

				if (!is_ident(&f->t[i]) || !teq(&f->t[i], callee->name) ||
				    !teq(&f->t[i + 1], "("))
					continue;
				calls++;
				n = call_args(f, i + 1, ab, ae, 16);
				if (k < n)
					found += fd_trace(sc, &caller, ab[k], ae[k], node, depth + 1,
							  out);
				else
					fd_lost(&caller, i, node, "an argument the call lacks");
			}
	}
	if (!calls)
		fd_lost(callee, callee->pb, node, "a parameter of a function no file read calls");
	return found;
}

/*
 * "*p = expr;" in the body of function name, p its k-th parameter: trace expr.
 * Return: the payload fields found.
 */
static int fd_trace_store(struct scanctx *sc, const struct fn *from, size_t at, const char *name,
			  int k, enum node node, int depth, struct pvec *out)
{
	struct fn g;
	const char *p;
	size_t i;
	int found = 0, stores = 0;

	if (find_fn(sc, name, &g)) {
		fd_lost(from, at, node, "stored through by a function no file read defines");
		return 0;
	}
	p = param_name(&g, k);
	if (!p) {
		fd_lost(&g, g.pb, node, "stored through an unnamed parameter");
		return 0;
	}
	for (i = g.bb + 1; i + 3 < g.be; i++) {
		size_t j;

		if (!teq(&g.f->t[i], "*") || !teq(&g.f->t[i + 1], p) ||
		    !teq(&g.f->t[i + 2], "=") ||
		    !(teq(&g.f->t[i - 1], ";") || teq(&g.f->t[i - 1], "{") ||
		      teq(&g.f->t[i - 1], "}") || teq(&g.f->t[i - 1], ":")))
			continue;
		for (j = i + 3; j < g.be && !teq(&g.f->t[j], ";"); j++)
			;
		stores++;
		found += fd_trace(sc, &g, i + 3, j, node, depth + 1, out);
	}
	if (!stores)
		fd_lost(&g, g.bb, node, "stored through a pointer in a way");
	return found;
}

/* Strip casts and parentheses off the expression [*b, *e): "(NvS32)x", "(x)". */
static void fd_strip(const struct tfile *f, size_t *b, size_t *e)
{
	size_t i;

	while (*b < *e && teq(&f->t[*b], "(")) {
		size_t c = match(f, *b);

		if (c + 1 == *e) {
			(*b)++;
			(*e)--;
			continue;
		}
		for (i = *b + 1; i < c; i++)
			if (!is_ident(&f->t[i]) && f->t[i].kind != CXToken_Keyword &&
			    !teq(&f->t[i], "*"))
				break;
		if (i != c)
			break;
		*b = c + 1;
	}
}

/*
 * The local @v of @fn: trace what is assigned to it ("v = expr;") and what
 * a call stores through its address ("g(..., &v, ...)"). Return: the
 * payload fields found; *sources counts the places found.
 */
static int fd_trace_local(struct scanctx *sc, const struct fn *fn, const char *v,
			  enum node node, int depth, struct pvec *out, int *sources)
{
	const struct tfile *f = fn->f;
	size_t i;
	int found = 0;

	for (i = fn->bb + 1; i + 2 < fn->be; i++) {
		if (!teq(&f->t[i], v))
			continue;
		if (teq(&f->t[i + 1], "=") && !teq(&f->t[i - 1], "->") &&
		    !teq(&f->t[i - 1], ".")) {
			size_t j;

			for (j = i + 2; j < fn->be && !teq(&f->t[j], ";"); j++)
				;
			(*sources)++;
			found += fd_trace(sc, fn, i + 2, j, node, depth + 1, out);
		} else if (teq(&f->t[i - 1], "&")) {
			size_t o, ab[16], ae[16];
			int n, a;

			/* the '(' of the call whose argument this is */
			for (o = i - 1; o > fn->bb; o--)
				if (teq(&f->t[o], "(") && match(f, o) > i)
					break;
			if (o <= fn->bb || !is_ident(&f->t[o - 1]))
				continue;
			n = call_args(f, o, ab, ae, 16);
			for (a = 0; a < n; a++)
				if (ab[a] == i - 1 && ae[a] == i + 1) {
					(*sources)++;
					found += fd_trace_store(sc, fn, o - 1, f->t[o - 1].s, a,
								node, depth, out);
				}
		}
	}
	return found;
}

/*
 * Follow the value of the expression [b, e) in @fn back to payload fields
 * and record them with @node. Return: the payload fields found.
 */
static int fd_trace(struct scanctx *sc, const struct fn *fn, size_t b, size_t e, enum node node,
		    int depth, struct pvec *out)
{
	const struct tfile *f = fn->f;
	const char *v;
	int k, found, sources = 0;

	if (depth > FD_TRACE_DEPTH) {
		fd_lost(fn, b, node, "more calls deep than nvabi follows");
		return 0;
	}
	fd_strip(f, &b, &e);
	if (b >= e) {
		fd_lost(fn, e, node, "an empty expression");
		return 0;
	}
	if (e - b == 3 && is_ident(&f->t[b]) && is_ident(&f->t[b + 2]) &&
	    (teq(&f->t[b + 1], "->") || teq(&f->t[b + 1], "."))) {
		char *ty = decl_before(fn, b, f->t[b].s, teq(&f->t[b + 1], "->"));

		if (ty)
			fd_add(out, ty, f->t[b + 2].s, node);
		else {
			note("%s: %s(): no declaration of %s", f->rel, fn->name, f->t[b].s);
			fd_lost(fn, b, node, "a field of a variable not declared in scope");
		}
		free(ty);
		return ty != NULL;
	}
	/* "((TYPE *)p)->f" */
	if (e - b == 9 && teq(&f->t[b], "(") && match(f, b) == b + 6 &&
	    teq(&f->t[b + 1], "(") && is_ident(&f->t[b + 2]) && teq(&f->t[b + 3], "*") &&
	    teq(&f->t[b + 4], ")") && teq(&f->t[b + 7], "->") && is_ident(&f->t[b + 8])) {
		fd_add(out, f->t[b + 2].s, f->t[b + 8].s, node);
		return 1;
	}
	if (e - b != 1 || !is_ident(&f->t[b])) {
		fd_lost(fn, b, node, "an expression");
		return 0;
	}
	v = f->t[b].s;
	for (k = 0; param_name(fn, k); k++)
		if (!strcmp(param_name(fn, k), v))
			return fd_trace_callers(sc, fn, k, node, depth, out);
	/* a local: "v = expr;" and "g(..., &v, ...)" storing through the pointer */
	found = fd_trace_local(sc, fn, v, node, depth, out, &sources);
	if (!sources)
		fd_lost(fn, b, node, "a variable never assigned");
	return found;
}

/* The nvidia-caps and IMEX channel files: which of their fget()s is a lookup. */
static int fd_caps_file(const struct tfile *f)
{
	const char *base = strrchr(f->rel, '/');

	base = base ? base + 1 : f->rel;
	return !strcmp(base, "nv-caps.c") || !strcmp(base, "nv-caps-imex.c");
}

static void fd_sites(struct scanctx *sc, struct pvec *out)
{
	int fi;

	for (fi = 0; fi < sc->nfiles; fi++) {
		struct tfile *f = &sc->files[fi];
		int uvm = strstr(f->rel, "nvidia-uvm/") != NULL;
		int caps = fd_caps_file(f);
		size_t at = 0, i;
		struct fn fn;

		while (next_fn(f, &at, &fn))
			for (i = fn.bb; i + 1 < fn.be; i++) {
				size_t ab[4], ae[4];
				enum node node;
				int n;

				if (!is_ident(&f->t[i]) || !teq(&f->t[i + 1], "("))
					continue;
				if (teq(&f->t[i], "nv_get_file_private")) {
					n = call_args(f, i + 1, ab, ae, 4);
					if (n < 2)
						continue;
					node = NODE_ANY;
					if (ae[1] == ab[1] + 1 && teq(&f->t[ab[1]], "NV_TRUE"))
						node = NODE_CTL;
					else if (ae[1] == ab[1] + 1 && teq(&f->t[ab[1]], "NV_FALSE"))
						node = NODE_GPU;
				} else if (uvm && teq(&f->t[i], "fget")) {
					n = call_args(f, i + 1, ab, ae, 4);
					if (n != 1)
						continue;
					node = NODE_UVM;
				} else if (caps && teq(&f->t[i], "fget")) {
					/*
					 * nv_cap_close_fd() looks up the fd the driver
					 * duplicated itself (osRmCapRelease() of an
					 * object's dupedCapDescriptor), not a payload's.
					 */
					if (!strcmp(fn.name, "nv_cap_close_fd"))
						continue;
					if (!strcmp(fn.name, "nv_cap_validate_and_dup_fd"))
						node = NODE_CAP;
					else if (!strcmp(fn.name, "nv_caps_imex_channel_get"))
						node = NODE_IMEX;
					else
						die("%s: %s(): an fget() nvabi does not know", f->rel,
						    fn.name);
					if (call_args(f, i + 1, ab, ae, 4) != 1)
						die("%s: %s(): fget() without one argument", f->rel,
						    fn.name);
				} else {
					continue;
				}
				n = (int)out->n;
				if (!fd_trace(sc, &fn, ab[0], ae[0], node, 0, out) &&
				    fd_strict(node))
					die("%s: %s(): a %s lookup no payload field was followed to",
					    f->rel, fn.name, node_str(node));
				if ((int)out->n == n)
					note("%s: %s(): a lookup no payload field was followed to",
					     f->rel, fn.name);
			}
	}
}

static int fd_hit_cmp(const void *a, const void *b)
{
	const struct fd_hit *x = *(const struct fd_hit *const *)a;
	const struct fd_hit *y = *(const struct fd_hit *const *)b;
	int c = strcmp(x->type, y->type);

	return c ? c : strcmp(x->field, y->field);
}

/**
 * scan_fds() - the payload fields whose fd number the driver resolves
 * @root: the tree
 * @out: struct fd_hit, sorted by type and field
 */
/**
 * scan_uvm_unknown() - what the UVM driver answers a command it lacks
 * @root: the tree
 *
 * uvm_ioctl() (uvm.c) hands every command its switch does not name to
 * uvm_test_ioctl() (uvm_test.c), which returns an errno at once unless the
 * test entry points were enabled at load: that errno.
 *
 * Return: UVM_UNKNOWN_*; UVM_UNKNOWN_NONE when either step is not there.
 */
const char *const scan_uvm_files[] = {
	"kernel-open/nvidia-uvm/uvm.c",
	"kernel-open/nvidia-uvm/uvm_test.c",
	NULL,
};

int scan_uvm_unknown(const char *root)
{
	char *p = path_join(root, scan_uvm_files[0]);
	char *uvm = read_file(p, NULL), *test, *at, *ret;
	int u = UVM_UNKNOWN_NONE;

	free(p);
	p = path_join(root, scan_uvm_files[1]);
	test = read_file(p, NULL);
	free(p);
	if (uvm && test && strstr(uvm, "return uvm_test_ioctl(") &&
	    (at = strstr(test, "if (!uvm_enable_builtin_tests)")) &&
	    (ret = strstr(at, "return -E")) && ret - at < 400) {
		char name[16];

		if (sscanf(ret + 8, "%15[A-Z]", name) == 1)
			u = uvm_unknown_parse(name);
		if (u < 0)
			die("%s: uvm_test_ioctl() answers %s, which nvabi does not know", root,
			    name);
	}
	free(uvm);
	free(test);
	return u;
}

const char *const scan_fd_files[] = {
	"src/nvidia/arch/nvalloc/unix/src/escape.c",
	"src/nvidia/arch/nvalloc/unix/src/osapi.c",
	"src/nvidia/arch/nvalloc/unix/src/os.c",
	"kernel-open/nvidia/nv.c",
	"kernel-open/nvidia/nv-usermap.c",
	"kernel-open/nvidia-uvm/uvm.c",
	"kernel-open/nvidia-uvm/uvm_tools.c",
	"kernel-open/nvidia-uvm/uvm_ioctl.h",	/* typedef X_V2_PARAMS of X_PARAMS */
	/* nvidia-caps capability nodes and IMEX channels, from the lookup back */
	"kernel-open/nvidia/nv-caps.c",
	"kernel-open/nvidia/nv-caps-imex.c",		/* 560 on */
	"kernel-open/nvidia/os-interface.c",
	"kernel-open/nvidia/nvlink_caps.c",
	"src/nvidia/src/kernel/gpu/mig_mgr/gpu_instance_subscription.c",
	"src/nvidia/src/kernel/gpu/mig_mgr/compute_instance_subscription.c",
	"src/nvidia/src/kernel/gpu/mig_mgr/mig_config_session.c",
	"src/nvidia/src/kernel/gpu/mig_mgr/mig_monitor_session.c",
	"src/nvidia/src/kernel/compute/fm_session_api.c",
	"src/nvidia/src/kernel/compute/imex_session_api.c",	/* 550 on */
	"src/nvidia/src/kernel/rmapi/client_resource.c",
	NULL,
};

/* "typedef A B;" in the files read: the record a hit names through B is A. */
static void fd_typedefs(struct scanctx *sc, struct pvec *out)
{
	size_t h, i;
	int fi;

	for (h = 0; h < out->n; h++) {
		struct fd_hit *x = out->v[h];

		for (fi = 0; fi < sc->nfiles; fi++) {
			const struct tfile *f = &sc->files[fi];

			for (i = 0; i + 3 < f->n; i++)
				if (teq(&f->t[i], "typedef") &&
				    is_ident(&f->t[i + 1]) && teq(&f->t[i + 2], x->type) &&
				    teq(&f->t[i + 3], ";")) {
					free(x->type);
					x->type = xstrdup(f->t[i + 1].s);
				}
		}
	}
}

void scan_fds(const char *root, struct pvec *out)
{
	const char *const *files = scan_fd_files;
	struct scanctx sc = { 0 };
	size_t i, w;
	int k;

	memset(out, 0, sizeof(*out));
	sc.root = root;
	sc.idx = clang_createIndex(0, 0);
	for (k = 0; files[k]; k++) {
		if (sc.nfiles == (int)(sizeof(sc.files) / sizeof(sc.files[0])))
			die("scan_fds: more files than it holds");
		if (lex_file(&sc, files[k], &sc.files[sc.nfiles], NULL)) {
			if (k == 0)
				die("%s: cannot read %s", root, files[k]);
			tfile_free(&sc.files[sc.nfiles]);
			continue;
		}
		sc.nfiles++;
	}
	fd_sites(&sc, out);
	fd_typedefs(&sc, out);
	for (i = w = 0; i < out->n; i++) {
		struct fd_hit *h = out->v[i];

		if (h->node == NODE_NONE) {
			warnx("%s: %s.%s reaches lookups of different drivers; left out", root,
			      h->type, h->field);
			fd_hit_free(h);
			continue;
		}
		out->v[w++] = h;
	}
	out->n = w;
	qsort(out->v, out->n, sizeof(void *), fd_hit_cmp);
	for (k = 0; k < sc.nfiles; k++)
		tfile_free(&sc.files[k]);
	clang_disposeIndex(sc.idx);
}
