/* Version, the names of statuses and paths, and the error-log entry point. */
#include "error.h"

size_t prnnGetVersion(void)
{
    return PRNN_VERSION;
}

const char *prnnGetErrorString(prnnStatus_t status)
{
    switch (status) {
    case PRNN_STATUS_SUCCESS: return "PRNN_STATUS_SUCCESS";
    case PRNN_STATUS_NOT_INITIALIZED: return "PRNN_STATUS_NOT_INITIALIZED";
    case PRNN_STATUS_ALLOC_FAILED: return "PRNN_STATUS_ALLOC_FAILED";
    case PRNN_STATUS_BAD_PARAM: return "PRNN_STATUS_BAD_PARAM";
    case PRNN_STATUS_INTERNAL_ERROR: return "PRNN_STATUS_INTERNAL_ERROR";
    case PRNN_STATUS_INVALID_VALUE: return "PRNN_STATUS_INVALID_VALUE";
    case PRNN_STATUS_ARCH_MISMATCH: return "PRNN_STATUS_ARCH_MISMATCH";
    case PRNN_STATUS_MAPPING_ERROR: return "PRNN_STATUS_MAPPING_ERROR";
    case PRNN_STATUS_EXECUTION_FAILED: return "PRNN_STATUS_EXECUTION_FAILED";
    case PRNN_STATUS_NOT_SUPPORTED: return "PRNN_STATUS_NOT_SUPPORTED";
    case PRNN_STATUS_NO_DEVICE: return "PRNN_STATUS_NO_DEVICE";
    case PRNN_STATUS_RUNTIME_PREREQUISITE_MISSING:
        return "PRNN_STATUS_RUNTIME_PREREQUISITE_MISSING";
    case PRNN_STATUS_COMPILE_FAILED: return "PRNN_STATUS_COMPILE_FAILED";
    case PRNN_STATUS_CACHE_ERROR: return "PRNN_STATUS_CACHE_ERROR";
    case PRNN_STATUS_TUNING_DB_ERROR: return "PRNN_STATUS_TUNING_DB_ERROR";
    }
    return "PRNN_STATUS_UNKNOWN";
}

const char *prnnGetRNNPathString(prnnRNNPath_t path)
{
    switch (path) {
    case PRNN_PATH_CPU_REFERENCE: return "cpu-reference";
    case PRNN_PATH_PERSISTENT_RESIDENT: return "persistent-resident";
    case PRNN_PATH_PERSISTENT_STREAMED: return "persistent-streamed";
    case PRNN_PATH_STANDARD: return "standard";
    case PRNN_PATH_SRU_SCAN: return "sru-scan";
    case PRNN_PATH_SMALL_H: return "small-h";
    case PRNN_PATH_STEP: return "step";
    case PRNN_PATH_TINY_H: return "tiny-h";
    }
    return "unknown";
}

const char *prnnGetLastErrorLog(void)
{
    return prnn_log_get();
}
