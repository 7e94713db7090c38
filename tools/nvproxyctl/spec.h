/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvproxyctl: a small document tree for CDI specs.  JSON is read whole;
 * YAML only in the block style CDI spec generators write (mappings,
 * sequences, plain and quoted scalars, `[]` and `{}`).  Output is JSON.
 */
#ifndef NVPROXYCTL_SPEC_H
#define NVPROXYCTL_SPEC_H

#include <stdio.h>

enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

/*
 * One value.  Scalars keep their text in @s (numbers and booleans as
 * written); arrays and objects chain their members through @kids/@next;
 * an object's member carries its name in @key.
 */
struct jval {
	enum jtype t;
	char *s;
	char *key;
	struct jval *kids, *next;
};

struct jval *jv_parse(const char *text, char *why, size_t whylen);
void jv_free(struct jval *v);
void jv_print(FILE *f, const struct jval *v, int indent);

struct jval *jv_new(enum jtype t, const char *s);
struct jval *jv_str(const char *s);
/* Append @v to array @a, or as member @key to object @a; returns @v. */
struct jval *jv_push(struct jval *a, struct jval *v);
struct jval *jv_set(struct jval *o, const char *key, struct jval *v);
struct jval *jv_get(const struct jval *o, const char *key);
const char *jv_gets(const struct jval *o, const char *key);
/* A deep copy of @v alone (its key kept, its siblings not). */
struct jval *jv_copy(const struct jval *v);
/* Unlink @v from @parent's members and free it. */
void jv_del(struct jval *parent, struct jval *v);

#endif
