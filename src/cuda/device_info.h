/*
 * What the planner, the heuristic and the tuning database key need to know
 * about a device, read once through the driver API.
 */
#ifndef PRNN_DEVICE_INFO_H
#define PRNN_DEVICE_INFO_H

#include <stddef.h>

#include "cuda/cuda_driver.h"

typedef struct {
    int ordinal; /* the CUdevice */
    char name[256];
    int cc_major, cc_minor;
    int sm; /* cc_major * 10 + cc_minor: 90 for sm_90 */
    int sm_count;
    int regs_per_sm; /* 32-bit registers */
    int regs_per_block;
    int smem_per_sm;             /* bytes */
    int smem_per_block;          /* default limit, bytes */
    int smem_per_block_optin;    /* with cuFuncSetAttribute, bytes */
    int smem_reserved_per_block; /* taken by the driver per block, bytes */
    int max_threads_per_sm;
    int max_threads_per_block;
    int max_blocks_per_sm;
    int warp_size;
    int l2_bytes;
    int persisting_l2_max_bytes; /* 0 when not supported */
    int cooperative_launch;      /* 1 when cuLaunchCooperativeKernel works */
    int integrated;              /* shares memory with the host */
    /* 0 when the driver no longer reports them. */
    int clock_khz;
    int mem_clock_khz;
    int mem_bus_bits;
    size_t total_mem;   /* bytes */
    int driver_version; /* cuDriverGetVersion, e.g. 13000 */
    int pci_domain, pci_bus, pci_device;
} prnn_device_info;

/* Fills *out for dev. Needs no context. Fails (with the CUDA error in the
 * log) only when a property every plan needs cannot be read; the "if
 * available" ones are 0 instead. */
prnnStatus_t prnn_device_info_query(const prnn_cuda_driver *cu, CUdevice dev,
                                    prnn_device_info *out);

/* "NVIDIA H100 80GB HBM3 sm_90 132SM" into buf (always NUL-terminated). */
void prnn_device_info_describe(const prnn_device_info *info, char *buf, size_t size);

#endif
