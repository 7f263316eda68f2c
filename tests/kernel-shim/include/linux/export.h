/* SPDX-License-Identifier: MIT */
/* Shim of linux/export.h: nothing is exported from a test binary. */
#ifndef KSH_LINUX_EXPORT_H
#define KSH_LINUX_EXPORT_H

/* A declaration that takes the statement's semicolon (C11, no code). */
#define EXPORT_SYMBOL_GPL(sym)	_Static_assert(1, #sym)
#define EXPORT_SYMBOL(sym)	_Static_assert(1, #sym)

#endif
