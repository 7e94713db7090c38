/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvmediate: which call owns which page of a bounce area's slot, and the
 * pages' mappings a slot keeps (bounceslot.c).
 */
#ifndef NVM_BOUNCESLOT_H
#define NVM_BOUNCESLOT_H

#include "bouncearea.h"

void nvm_bounce_wake(struct nvm_bounce_slot *s);
void nvm_bounce_disown(struct nvm_bounce_slot *s, unsigned int i, unsigned int n);
int nvm_bounce_take(struct nvm_bounce *b, struct nvm_bounce_slot *s, unsigned int n,
		    unsigned int *first, unsigned long *clean);
bool nvm_bounce_take_mapped(struct nvm_bounce *b, struct nvm_bounce_slot *s,
			    unsigned int n, unsigned int *first);
bool nvm_bounce_may_take(struct nvm_bounce *b, struct nvm_bounce_slot *s, unsigned int n);
unsigned long nvm_bounce_insert(struct nvm_bounce *b, struct nvm_bounce_slot *s,
				struct vm_area_struct *vma, unsigned long want);
void nvm_bounce_clean(struct nvm_bounce *b, struct nvm_bounce_slot *s,
		      struct vm_area_struct *vma, unsigned long clean);

#endif /* NVM_BOUNCESLOT_H */
