/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's red-black tree (lib/rbtree.c): the calls kmod/ranges.c
 * makes, with the kernel's meaning; the parent and the colour are kept in
 * fields of their own rather than packed in one word.
 */
#ifndef NVM_KSHIM_RBTREE_H
#define NVM_KSHIM_RBTREE_H

#include "../kshim.h"

struct rb_node {
	struct rb_node *rb_parent;
	bool rb_black;
	struct rb_node *rb_right;
	struct rb_node *rb_left;
};

struct rb_root {
	struct rb_node *rb_node;
};

#define RB_ROOT			(struct rb_root) { NULL, }
#define rb_entry(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

static inline void rb_link_node(struct rb_node *node, struct rb_node *parent,
				struct rb_node **rb_link)
{
	node->rb_parent = parent;
	node->rb_black = false;
	node->rb_left = node->rb_right = NULL;
	*rb_link = node;
}

/* Put @node where @old was, under @old's parent. */
static inline void kshim_rb_replace(struct rb_root *root, struct rb_node *old,
				    struct rb_node *node)
{
	struct rb_node *parent = old->rb_parent;

	node->rb_parent = parent;
	if (!parent)
		root->rb_node = node;
	else if (parent->rb_left == old)
		parent->rb_left = node;
	else
		parent->rb_right = node;
}

static inline void kshim_rb_rotate_left(struct rb_root *root, struct rb_node *x)
{
	struct rb_node *y = x->rb_right;

	x->rb_right = y->rb_left;
	if (y->rb_left)
		y->rb_left->rb_parent = x;
	kshim_rb_replace(root, x, y);
	y->rb_left = x;
	x->rb_parent = y;
}

static inline void kshim_rb_rotate_right(struct rb_root *root, struct rb_node *x)
{
	struct rb_node *y = x->rb_left;

	x->rb_left = y->rb_right;
	if (y->rb_right)
		y->rb_right->rb_parent = x;
	kshim_rb_replace(root, x, y);
	y->rb_right = x;
	x->rb_parent = y;
}

/* Rebalance after rb_link_node() put @node in the tree (red). */
static inline void rb_insert_color(struct rb_node *node, struct rb_root *root)
{
	struct rb_node *parent, *gparent, *uncle;

	while ((parent = node->rb_parent) && !parent->rb_black) {
		gparent = parent->rb_parent;	/* a red node is never the root */
		if (parent == gparent->rb_left) {
			uncle = gparent->rb_right;
			if (uncle && !uncle->rb_black) {
				parent->rb_black = uncle->rb_black = true;
				gparent->rb_black = false;
				node = gparent;
				continue;
			}
			if (node == parent->rb_right) {
				kshim_rb_rotate_left(root, parent);
				node = parent;
				parent = node->rb_parent;
			}
			parent->rb_black = true;
			gparent->rb_black = false;
			kshim_rb_rotate_right(root, gparent);
		} else {
			uncle = gparent->rb_left;
			if (uncle && !uncle->rb_black) {
				parent->rb_black = uncle->rb_black = true;
				gparent->rb_black = false;
				node = gparent;
				continue;
			}
			if (node == parent->rb_left) {
				kshim_rb_rotate_right(root, parent);
				node = parent;
				parent = node->rb_parent;
			}
			parent->rb_black = true;
			gparent->rb_black = false;
			kshim_rb_rotate_left(root, gparent);
		}
	}
	root->rb_node->rb_black = true;
}

static inline struct rb_node *rb_next(const struct rb_node *node)
{
	struct rb_node *parent;

	if (node->rb_right) {
		node = node->rb_right;
		while (node->rb_left)
			node = node->rb_left;
		return (struct rb_node *)node;
	}
	while ((parent = node->rb_parent) && node == parent->rb_right)
		node = parent;
	return parent;
}

static inline struct rb_node *rb_prev(const struct rb_node *node)
{
	struct rb_node *parent;

	if (node->rb_left) {
		node = node->rb_left;
		while (node->rb_right)
			node = node->rb_right;
		return (struct rb_node *)node;
	}
	while ((parent = node->rb_parent) && node == parent->rb_left)
		node = parent;
	return parent;
}

#endif /* NVM_KSHIM_RBTREE_H */
