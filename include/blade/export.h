/* SPDX-License-Identifier: MIT */
/**
 * @file export.h
 * @brief Symbol visibility for the gr-blade core library (libblade).
 */
#ifndef BLADE_EXPORT_H
#define BLADE_EXPORT_H

#if defined(_WIN32)
#define BLADE_CORE_API
#elif defined(BLADE_CORE_BUILDING)
#define BLADE_CORE_API __attribute__((visibility("default")))
#else
#define BLADE_CORE_API
#endif

#endif /* BLADE_EXPORT_H */
