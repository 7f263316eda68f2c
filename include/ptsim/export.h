/* SPDX-License-Identifier: MIT */
#ifndef PTSIM_EXPORT_H
#define PTSIM_EXPORT_H

/* Only symbols marked PTSIM_API leave the shared library (-fvisibility=hidden). */
#if defined(PTSIM_BUILDING_LIBRARY) && defined(__GNUC__)
#define PTSIM_API __attribute__((visibility("default")))
#else
#define PTSIM_API
#endif

#endif
