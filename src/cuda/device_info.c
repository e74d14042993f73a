#include "cuda/device_info.h"

#include <stdio.h>
#include <string.h>

#include "error.h"

typedef struct {
    CUdevice_attribute attr;
    size_t offset;
    int required;
    const char *name;
} attr_spec;

#define PRNN_ATTR(a, field, req)                                                                   \
    {                                                                                              \
        CU_DEVICE_ATTRIBUTE_##a, offsetof(prnn_device_info, field), req, #a                        \
    }

static const attr_spec attrs[] = {
    PRNN_ATTR(COMPUTE_CAPABILITY_MAJOR, cc_major, 1),
    PRNN_ATTR(COMPUTE_CAPABILITY_MINOR, cc_minor, 1),
    PRNN_ATTR(MULTIPROCESSOR_COUNT, sm_count, 1),
    PRNN_ATTR(MAX_REGISTERS_PER_MULTIPROCESSOR, regs_per_sm, 1),
    PRNN_ATTR(MAX_REGISTERS_PER_BLOCK, regs_per_block, 1),
    PRNN_ATTR(MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, smem_per_sm, 1),
    PRNN_ATTR(MAX_SHARED_MEMORY_PER_BLOCK, smem_per_block, 1),
    PRNN_ATTR(MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, smem_per_block_optin, 1),
    PRNN_ATTR(RESERVED_SHARED_MEMORY_PER_BLOCK, smem_reserved_per_block, 0),
    PRNN_ATTR(MAX_THREADS_PER_MULTIPROCESSOR, max_threads_per_sm, 1),
    PRNN_ATTR(MAX_THREADS_PER_BLOCK, max_threads_per_block, 1),
    PRNN_ATTR(MAX_BLOCKS_PER_MULTIPROCESSOR, max_blocks_per_sm, 1),
    PRNN_ATTR(WARP_SIZE, warp_size, 1),
    PRNN_ATTR(L2_CACHE_SIZE, l2_bytes, 1),
    PRNN_ATTR(MAX_PERSISTING_L2_CACHE_SIZE, persisting_l2_max_bytes, 0),
    PRNN_ATTR(COOPERATIVE_LAUNCH, cooperative_launch, 1),
    PRNN_ATTR(INTEGRATED, integrated, 0),
    PRNN_ATTR(CLOCK_RATE, clock_khz, 0),
    PRNN_ATTR(MEMORY_CLOCK_RATE, mem_clock_khz, 0),
    PRNN_ATTR(GLOBAL_MEMORY_BUS_WIDTH, mem_bus_bits, 0),
    PRNN_ATTR(PCI_DOMAIN_ID, pci_domain, 0),
    PRNN_ATTR(PCI_BUS_ID, pci_bus, 0),
    PRNN_ATTR(PCI_DEVICE_ID, pci_device, 0),
};

prnnStatus_t prnn_device_info_query(const prnn_cuda_driver *cu, CUdevice dev, prnn_device_info *out)
{
    prnn_device_info info;
    memset(&info, 0, sizeof(info));
    info.ordinal = (int)dev;
    info.driver_version = cu->driver_version;

    char what[160];
    CUresult r = cu->cuDeviceGetName(info.name, (int)sizeof(info.name) - 1, dev);
    if (r != CUDA_SUCCESS) {
        snprintf(what, sizeof(what), "cuDeviceGetName(device %d)", (int)dev);
        return prnn_cu_check(r, what);
    }
    for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
        int value = 0;
        r = cu->cuDeviceGetAttribute(&value, attrs[i].attr, dev);
        if (r != CUDA_SUCCESS) {
            if (!attrs[i].required)
                continue; /* stays 0: "not reported" */
            snprintf(what, sizeof(what), "cuDeviceGetAttribute(CU_DEVICE_ATTRIBUTE_%s, device %d)",
                     attrs[i].name, (int)dev);
            return prnn_cu_check(r, what);
        }
        memcpy((char *)&info + attrs[i].offset, &value, sizeof(value));
    }
    r = cu->cuDeviceTotalMem(&info.total_mem, dev);
    if (r != CUDA_SUCCESS) {
        snprintf(what, sizeof(what), "cuDeviceTotalMem(device %d)", (int)dev);
        return prnn_cu_check(r, what);
    }
    info.sm = info.cc_major * 10 + info.cc_minor;
    *out = info;
    return PRNN_STATUS_SUCCESS;
}

void prnn_device_info_describe(const prnn_device_info *info, char *buf, size_t size)
{
    if (!size)
        return;
    snprintf(buf, size, "%s sm_%d %dSM", info->name, info->sm, info->sm_count);
}
