// SPDX-License-Identifier: GPL-2.0
/*
 * nvproxyctl: read a CDI spec (JSON, or YAML in block style) into a tree,
 * build one, and print it as JSON.  Only what CDI specs hold is supported:
 * no anchors, tags, block scalars or multi-line plain scalars; a document
 * that uses them is refused with the line that does.
 */
#define _XOPEN_SOURCE 700

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "spec.h"

struct jval *jv_new(enum jtype t, const char *s)
{
	struct jval *v = calloc(1, sizeof(*v));

	if (!v)
		abort();
	v->t = t;
	if (s && !(v->s = strdup(s)))
		abort();
	return v;
}

struct jval *jv_str(const char *s)
{
	return jv_new(J_STR, s);
}

void jv_free(struct jval *v)
{
	while (v) {
		struct jval *next = v->next;

		jv_free(v->kids);
		free(v->s);
		free(v->key);
		free(v);
		v = next;
	}
}

struct jval *jv_push(struct jval *a, struct jval *v)
{
	struct jval **p = &a->kids;

	while (*p)
		p = &(*p)->next;
	*p = v;
	return v;
}

struct jval *jv_get(const struct jval *o, const char *key)
{
	struct jval *m;

	if (!o || o->t != J_OBJ)
		return NULL;
	for (m = o->kids; m; m = m->next)
		if (!strcmp(m->key, key))
			return m;
	return NULL;
}

const char *jv_gets(const struct jval *o, const char *key)
{
	struct jval *m = jv_get(o, key);

	return m && m->t == J_STR ? m->s : NULL;
}

void jv_del(struct jval *parent, struct jval *v)
{
	struct jval **p;

	for (p = &parent->kids; *p; p = &(*p)->next)
		if (*p == v) {
			*p = v->next;
			v->next = NULL;
			jv_free(v);
			return;
		}
}

/* A copy of @v alone (not its siblings), with its key. */
struct jval *jv_copy(const struct jval *v)
{
	struct jval *c = jv_new(v->t, v->s), *k;

	if (v->key && !(c->key = strdup(v->key)))
		abort();
	for (k = v->kids; k; k = k->next)
		jv_push(c, jv_copy(k));
	return c;
}

/* Set member @key of @o to @v, replacing one of that name in place. */
struct jval *jv_set(struct jval *o, const char *key, struct jval *v)
{
	struct jval *old = jv_get(o, key), **p;

	if (!(v->key = strdup(key)))
		abort();
	if (!old)
		return jv_push(o, v);
	for (p = &o->kids; *p != old; p = &(*p)->next)
		;
	v->next = old->next;
	*p = v;
	old->next = NULL;
	jv_free(old);
	return v;
}

/* ---- JSON ---------------------------------------------------------------- */

struct jp {
	const char *p;
	char *why;
	size_t whylen;
	int line;
};

static int jp_fail(struct jp *jp, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (jp->why[0])
		return -1;
	n = snprintf(jp->why, jp->whylen, "line %d: ", jp->line);
	va_start(ap, fmt);
	vsnprintf(jp->why + n, jp->whylen - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static void jp_ws(struct jp *jp)
{
	while (*jp->p == ' ' || *jp->p == '\t' || *jp->p == '\n' || *jp->p == '\r') {
		if (*jp->p == '\n')
			jp->line++;
		jp->p++;
	}
}

/* Append the UTF-8 encoding of @c to @out. */
static char *utf8(char *out, unsigned long c)
{
	if (c < 0x80) {
		*out++ = (char)c;
	} else if (c < 0x800) {
		*out++ = (char)(0xc0 | (c >> 6));
		*out++ = (char)(0x80 | (c & 0x3f));
	} else if (c < 0x10000) {
		*out++ = (char)(0xe0 | (c >> 12));
		*out++ = (char)(0x80 | ((c >> 6) & 0x3f));
		*out++ = (char)(0x80 | (c & 0x3f));
	} else {
		*out++ = (char)(0xf0 | (c >> 18));
		*out++ = (char)(0x80 | ((c >> 12) & 0x3f));
		*out++ = (char)(0x80 | ((c >> 6) & 0x3f));
		*out++ = (char)(0x80 | (c & 0x3f));
	}
	return out;
}

/*
 * A double-quoted string at *@pp (JSON escapes; YAML's are the same for
 * what specs hold); a malloc'ed copy, *@pp past the closing quote.
 */
static char *dq_string(const char **pp, const char **bad)
{
	const char *p = *pp + 1;
	char *out = malloc(strlen(p) * 2 + 8), *o = out;

	if (!out)
		abort();
	for (; *p && *p != '"' && *p != '\n'; p++) {
		if (*p != '\\') {
			*o++ = *p;
			continue;
		}
		switch (*++p) {
		case '"': case '\\': case '/': *o++ = *p; break;
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		case 't': *o++ = '\t'; break;
		case 'u': {
			char hex[5] = { 0 };
			unsigned long c;

			if (strlen(p + 1) < 4)
				goto bad;
			memcpy(hex, p + 1, 4);
			if (strspn(hex, "0123456789abcdefABCDEF") != 4)
				goto bad;
			c = strtoul(hex, NULL, 16);
			p += 4;
			if (c >= 0xd800 && c < 0xdc00 && p[1] == '\\' && p[2] == 'u') {
				memcpy(hex, p + 3, 4);
				if (strspn(hex, "0123456789abcdefABCDEF") == 4) {
					c = 0x10000 + ((c - 0xd800) << 10) +
					    (strtoul(hex, NULL, 16) - 0xdc00);
					p += 6;
				}
			}
			o = utf8(o, c);
			break;
		}
		default:
			goto bad;
		}
	}
	if (*p != '"')
		goto bad;
	*o = '\0';
	*pp = p + 1;
	return out;
bad:
	*bad = p;
	free(out);
	return NULL;
}

static struct jval *jp_value(struct jp *jp, int depth);

static struct jval *jp_container(struct jp *jp, int depth)
{
	char close = *jp->p == '{' ? '}' : ']';
	struct jval *v = jv_new(close == '}' ? J_OBJ : J_ARR, NULL);

	jp->p++;
	jp_ws(jp);
	if (*jp->p == close) {
		jp->p++;
		return v;
	}
	for (;;) {
		char *key = NULL;
		struct jval *m;

		jp_ws(jp);
		if (close == '}') {
			const char *bad = NULL;

			if (*jp->p != '"' || !(key = dq_string(&jp->p, &bad))) {
				jp_fail(jp, "expected a member name");
				goto err;
			}
			jp_ws(jp);
			if (*jp->p++ != ':') {
				free(key);
				jp_fail(jp, "expected ':'");
				goto err;
			}
		}
		m = jp_value(jp, depth + 1);
		if (!m) {
			free(key);
			goto err;
		}
		m->key = key;
		jv_push(v, m);
		jp_ws(jp);
		if (*jp->p == ',') {
			jp->p++;
			continue;
		}
		if (*jp->p == close) {
			jp->p++;
			return v;
		}
		jp_fail(jp, "expected ',' or '%c'", close);
		goto err;
	}
err:
	jv_free(v);
	return NULL;
}

static struct jval *jp_value(struct jp *jp, int depth)
{
	static const char *const words[] = { "true", "false", "null" };
	const char *bad = NULL, *s;
	unsigned int i;
	char *str;

	if (depth > 64) {
		jp_fail(jp, "nested too deeply");
		return NULL;
	}
	jp_ws(jp);
	if (*jp->p == '{' || *jp->p == '[')
		return jp_container(jp, depth);
	if (*jp->p == '"') {
		struct jval *v;

		str = dq_string(&jp->p, &bad);
		if (!str) {
			jp_fail(jp, "bad string");
			return NULL;
		}
		v = jv_str(str);
		free(str);
		return v;
	}
	for (i = 0; i < 3; i++)
		if (!strncmp(jp->p, words[i], strlen(words[i]))) {
			jp->p += strlen(words[i]);
			return jv_new(i < 2 ? J_BOOL : J_NULL, words[i]);
		}
	s = jp->p;
	if (*jp->p == '-')
		jp->p++;
	while (isdigit((unsigned char)*jp->p) || *jp->p == '.' || *jp->p == 'e' || *jp->p == 'E' ||
	       *jp->p == '+' || *jp->p == '-')
		jp->p++;
	if (jp->p == s || !isdigit((unsigned char)jp->p[-1])) {
		jp_fail(jp, "unexpected '%.10s'", s);
		return NULL;
	}
	str = strndup(s, (size_t)(jp->p - s));
	if (!str)
		abort();
	{
		struct jval *v = jv_new(J_NUM, str);

		free(str);
		return v;
	}
}

/* ---- YAML (block style) -------------------------------------------------- */

struct yline {
	int indent;	/* columns before the content */
	int no;		/* line number in the document */
	char *text;	/* the content, comments and trailing blanks removed */
};

struct yp {
	struct yline *l;
	int n, i;
	char *why;
	size_t whylen;
};

static int yp_fail(struct yp *yp, int no, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (yp->why[0])
		return -1;
	n = snprintf(yp->why, yp->whylen, "line %d: ", no);
	va_start(ap, fmt);
	vsnprintf(yp->why + n, yp->whylen - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

/* Cut a comment (' #' outside quotes) and trailing blanks off @s. */
static void y_trim(char *s)
{
	char q = 0, *p, *end;

	for (p = s; *p; p++) {
		if (q) {
			if (*p == q && !(q == '"' && p[-1] == '\\'))
				q = 0;
		} else if (*p == '"' || *p == '\'') {
			if (p == s || p[-1] == ' ' || p[-1] == '[' || p[-1] == ',' || p[-1] == ':')
				q = *p;
		} else if (*p == '#' && (p == s || p[-1] == ' ')) {
			*p = '\0';
			break;
		}
	}
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		*--end = '\0';
}

static int plain_int(const char *s)
{
	if (*s == '-' || *s == '+')
		s++;
	if (!*s)
		return 0;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'o'))
		return 0;	/* YAML 1.1 and 1.2 differ: keep as text */
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

/* A scalar as written after "key: " or "- "; NULL (and why) if unsupported. */
static struct jval *y_scalar(struct yp *yp, int no, const char *s)
{
	const char *bad = NULL, *p = s;
	struct jval *v;
	char *str;

	if (*s == '"') {
		str = dq_string(&p, &bad);
		if (!str || *p) {
			free(str);
			yp_fail(yp, no, "bad double-quoted string");
			return NULL;
		}
		v = jv_str(str);
		free(str);
		return v;
	}
	if (*s == '\'') {
		char *o;

		str = malloc(strlen(s) + 1);
		if (!str)
			abort();
		for (o = str, p = s + 1; *p; p++) {
			if (*p == '\'' && p[1] == '\'') {
				*o++ = '\'';
				p++;
			} else if (*p == '\'') {
				break;
			} else {
				*o++ = *p;
			}
		}
		*o = '\0';
		if (*p != '\'' || p[1]) {
			free(str);
			yp_fail(yp, no, "bad single-quoted string");
			return NULL;
		}
		v = jv_str(str);
		free(str);
		return v;
	}
	if (!strcmp(s, "[]"))
		return jv_new(J_ARR, NULL);
	if (!strcmp(s, "{}"))
		return jv_new(J_OBJ, NULL);
	if (strchr("[{|>&*!%@`", *s)) {
		yp_fail(yp, no, "'%c' (flow collections, block scalars, anchors, tags) is not supported",
			*s);
		return NULL;
	}
	if (!strcmp(s, "true") || !strcmp(s, "false"))
		return jv_new(J_BOOL, s);
	if (!strcmp(s, "null") || !strcmp(s, "~") || !*s)
		return jv_new(J_NULL, "null");
	if (plain_int(s))
		return jv_new(J_NUM, s[0] == '+' ? s + 1 : s);
	return jv_str(s);
}

/*
 * Where the key of "key: value" or "key:" ends in @s (the ':'), or NULL
 * when @s is not a mapping entry.
 */
static char *y_colon(char *s)
{
	char *p = s;

	if (*s == '"' || *s == '\'') {
		char q = *s;

		for (p = s + 1; *p && *p != q; p++)
			if (q == '"' && *p == '\\' && p[1])
				p++;
		if (!*p)
			return NULL;
		p++;
		return *p == ':' && (!p[1] || p[1] == ' ') ? p : NULL;
	}
	for (; *p; p++)
		if (*p == ':' && (!p[1] || p[1] == ' '))
			return p;
	return NULL;
}

static struct jval *y_node(struct yp *yp, int indent, int depth);

static struct jval *y_seq(struct yp *yp, int indent, int depth)
{
	struct jval *v = jv_new(J_ARR, NULL);

	while (yp->i < yp->n && yp->l[yp->i].indent == indent && yp->l[yp->i].text[0] == '-' &&
	       (!yp->l[yp->i].text[1] || yp->l[yp->i].text[1] == ' ')) {
		struct yline *l = &yp->l[yp->i];
		struct jval *item;
		char *rest = l->text + 1;
		int off = 1;

		while (*rest == ' ') {
			rest++;
			off++;
		}
		if (!*rest) {
			yp->i++;
			if (yp->i < yp->n && yp->l[yp->i].indent > indent)
				item = y_node(yp, yp->l[yp->i].indent, depth + 1);
			else
				item = jv_new(J_NULL, "null");
		} else if (rest[0] == '-' && (!rest[1] || rest[1] == ' ')) {
			/* "- - x": a sequence in a sequence, on the same line */
			l->indent += off;
			l->text = rest;
			item = y_node(yp, l->indent, depth + 1);
		} else if (y_colon(rest)) {
			/* "- key: v": a mapping whose first line this is */
			l->indent += off;
			l->text = rest;
			item = y_node(yp, l->indent, depth + 1);
		} else {
			item = y_scalar(yp, l->no, rest);
			yp->i++;
		}
		if (!item)
			goto err;
		jv_push(v, item);
	}
	return v;
err:
	jv_free(v);
	return NULL;
}

static struct jval *y_map(struct yp *yp, int indent, int depth)
{
	struct jval *v = jv_new(J_OBJ, NULL);

	while (yp->i < yp->n && yp->l[yp->i].indent == indent) {
		struct yline *l = &yp->l[yp->i];
		char *colon = y_colon(l->text), *val, *key;
		struct jval *m;

		if (!colon || (l->text[0] == '-' && (!l->text[1] || l->text[1] == ' '))) {
			yp_fail(yp, l->no, "expected 'key: value'");
			goto err;
		}
		*colon = '\0';
		val = colon + 1;
		while (*val == ' ')
			val++;
		if (l->text[0] == '"' || l->text[0] == '\'') {
			const char *bad = NULL, *p = l->text;

			if (l->text[0] == '"') {
				key = dq_string(&p, &bad);
			} else {
				key = strndup(l->text + 1, strlen(l->text) - 2);
				if (!key)
					abort();
			}
			if (!key) {
				yp_fail(yp, l->no, "bad key");
				goto err;
			}
		} else {
			key = strdup(l->text);
			if (!key)
				abort();
		}
		if (jv_get(v, key)) {
			yp_fail(yp, l->no, "'%s' twice in one mapping", key);
			free(key);
			goto err;
		}
		yp->i++;
		if (*val) {
			m = y_scalar(yp, l->no, val);
		} else if (yp->i < yp->n && yp->l[yp->i].indent > indent) {
			m = y_node(yp, yp->l[yp->i].indent, depth + 1);
		} else if (yp->i < yp->n && yp->l[yp->i].indent == indent &&
			   yp->l[yp->i].text[0] == '-' &&
			   (!yp->l[yp->i].text[1] || yp->l[yp->i].text[1] == ' ')) {
			/* "key:" then "- item" at the key's own indentation */
			m = y_seq(yp, indent, depth + 1);
		} else {
			m = jv_new(J_NULL, "null");
		}
		if (!m) {
			free(key);
			goto err;
		}
		m->key = key;
		jv_push(v, m);
	}
	return v;
err:
	jv_free(v);
	return NULL;
}

static struct jval *y_node(struct yp *yp, int indent, int depth)
{
	struct yline *l = &yp->l[yp->i];
	struct jval *v;

	if (depth > 64) {
		yp_fail(yp, l->no, "nested too deeply");
		return NULL;
	}
	if (l->text[0] == '-' && (!l->text[1] || l->text[1] == ' '))
		v = y_seq(yp, indent, depth);
	else if (y_colon(l->text))
		v = y_map(yp, indent, depth);
	else {
		v = y_scalar(yp, l->no, l->text);
		yp->i++;
	}
	if (v && yp->i < yp->n && yp->l[yp->i].indent > indent) {
		yp_fail(yp, yp->l[yp->i].no, "unexpected indentation");
		jv_free(v);
		return NULL;
	}
	return v;
}

static struct jval *y_parse(char *text, char *why, size_t whylen)
{
	struct yp yp = { .why = why, .whylen = whylen };
	struct jval *v = NULL;
	int no = 0, docs = 0;
	char *line, *save = NULL;

	yp.l = calloc(strlen(text) / 2 + 2, sizeof(*yp.l));
	if (!yp.l)
		abort();
	/* split by hand: strtok would merge the empty lines that count */
	for (line = text; line; line = save) {
		char *s;
		int ind = 0;

		save = strchr(line, '\n');
		if (save)
			*save++ = '\0';
		no++;
		for (s = line; *s == ' '; s++)
			ind++;
		if (*s == '\t') {
			yp_fail(&yp, no, "a tab in the indentation");
			goto out;
		}
		y_trim(s);
		if (!*s)
			continue;
		if (ind == 0 && (!strcmp(s, "---") || !strncmp(s, "--- ", 4))) {
			if (docs++ || yp.n) {
				if (yp.n) {
					yp_fail(&yp, no, "more than one document");
					goto out;
				}
			}
			continue;
		}
		if (ind == 0 && !strcmp(s, "...")) {
			break;
		}
		if (ind == 0 && s[0] == '%')
			continue;	/* a directive */
		yp.l[yp.n].indent = ind;
		yp.l[yp.n].no = no;
		yp.l[yp.n].text = s;
		yp.n++;
	}
	if (!yp.n) {
		snprintf(why, whylen, "an empty document");
		goto out;
	}
	v = y_node(&yp, yp.l[0].indent, 0);
	if (v && yp.i < yp.n) {
		yp_fail(&yp, yp.l[yp.i].no, "unexpected content");
		jv_free(v);
		v = NULL;
	}
out:
	free(yp.l);
	return v;
}

/**
 * jv_parse() - read a document: JSON when it starts with '{', else YAML
 * @text: the document (modified)
 * @why: where to say why it does not parse
 * @whylen: size of @why
 *
 * Return: the tree, or NULL with @why set.
 */
struct jval *jv_parse(const char *text, char *why, size_t whylen)
{
	const char *p = text;
	struct jval *v;
	char *copy;

	why[0] = '\0';
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	if (*p == '{') {
		struct jp jp = { .p = text, .why = why, .whylen = whylen, .line = 1 };

		v = jp_value(&jp, 0);
		if (v) {
			jp_ws(&jp);
			if (*jp.p) {
				jp_fail(&jp, "text after the document");
				jv_free(v);
				v = NULL;
			}
		}
		return v;
	}
	copy = strdup(text);
	if (!copy)
		abort();
	v = y_parse(copy, why, whylen);
	free(copy);
	return v;
}

/* ---- output -------------------------------------------------------------- */

static void put_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/*
 * A container whose members are scalars goes on one line; so does an
 * object whose members are scalars or such one-line arrays.
 */
static int flat(const struct jval *v)
{
	const struct jval *m;

	for (m = v->kids; m; m = m->next)
		if (m->t == J_OBJ || (m->t == J_ARR && (v->t == J_ARR || !flat(m))))
			return 0;
	return 1;
}

/**
 * jv_print() - print @v as JSON
 * @f: where
 * @v: the value
 * @indent: columns of the line @v starts on
 */
void jv_print(FILE *f, const struct jval *v, int indent)
{
	const struct jval *m;
	int one;

	switch (v->t) {
	case J_STR:
		put_str(f, v->s);
		return;
	case J_NULL:
	case J_BOOL:
	case J_NUM:
		fputs(v->s, f);
		return;
	case J_ARR:
	case J_OBJ:
		break;
	}
	if (!v->kids) {
		fputs(v->t == J_OBJ ? "{}" : "[]", f);
		return;
	}
	one = flat(v);
	fputc(v->t == J_OBJ ? '{' : '[', f);
	for (m = v->kids; m; m = m->next) {
		if (one)
			fputs(m == v->kids ? "" : " ", f);
		else
			fprintf(f, "\n%*s", indent + 2, "");
		if (v->t == J_OBJ) {
			put_str(f, m->key);
			fputs(": ", f);
		}
		jv_print(f, m, indent + 2);
		if (m->next)
			fputc(',', f);
	}
	if (!one)
		fprintf(f, "\n%*s", indent, "");
	fputc(v->t == J_OBJ ? '}' : ']', f);
}
