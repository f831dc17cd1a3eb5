#!/bin/bash
# SPDX-License-Identifier: MIT
# Stands in for the CUDA-dependent targets of //gpu where the toolkit is absent,
# so the skip is visible in every test run instead of silent.
echo "gpu: SKIPPED cupti_convert, libxperf_cupti.so, cuda_uprobe_test: no $1/include/cupti.h" \
	"(set XPERF_CUDA_PATH to a CUDA toolkit to build them)"
