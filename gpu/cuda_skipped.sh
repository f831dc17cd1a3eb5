#!/bin/bash
# SPDX-License-Identifier: MIT
# Stands in for the CUDA-dependent targets of //gpu where the toolkit is absent,
# so the skip is visible in every test run instead of silent.
echo "gpu: SKIPPED (no $1/include/cupti.h): cupti_convert(_test), cupti_loader," \
	"libxperf_cupti.so, cuda_calls, collector_test, cuda_uprobe_test, cmd_gpu_test." \
	"Set XPERF_CUDA_PATH to a CUDA toolkit to build them."
