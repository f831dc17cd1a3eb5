/* SPDX-License-Identifier: MIT */
/*
 * check.h - the userspace unit tests' CHECK (lib/test_check.h) and their
 * exit status.
 */
#ifndef XPERF_USERSPACE_TESTING_CHECK_H
#define XPERF_USERSPACE_TESTING_CHECK_H

#include "lib/test_check.h"

#define CHECK_DONE() (test_failures ? 1 : 0)

#endif /* XPERF_USERSPACE_TESTING_CHECK_H */
