/* SPDX-License-Identifier: GPL-2.0 */
/* Module parameters: plain variables, set by the program (a test) alone. */
#ifndef NVM_KSHIM_MODULEPARAM_H
#define NVM_KSHIM_MODULEPARAM_H

#include "../kshim.h"

#define module_param(name, type, perm)
#define module_param_named(name, value, type, perm)
#define MODULE_PARM_DESC(name, desc)

#endif /* NVM_KSHIM_MODULEPARAM_H */
