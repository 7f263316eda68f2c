/* SPDX-License-Identifier: MIT */
/* Shim of linux/efi.h: the model has no EFI runtime mm. */
#ifndef KSH_LINUX_EFI_H
#define KSH_LINUX_EFI_H

#include <linux/mm.h>

static inline bool mm_is_efi(struct mm_struct *mm)
{
	(void)mm;
	return false;
}

#endif
