// prnn.h must compile alone as C++ (extern "C", no C-only constructs) and
// link against the shared library.
#include "prnn.h"

#include <cstdio>
#include <cstring>

int main()
{
    prnnHandle_t handle = nullptr;
    prnnStatus_t s = prnnCreateWithBackend(&handle, PRNN_BACKEND_CPU_REFERENCE);
    if (s != PRNN_STATUS_SUCCESS)
        return 1;
    prnnDestroy(handle);
    std::puts("api-header-cxx: prnn.h alone compiles as C++ and links");
    return std::strcmp(prnnGetErrorString(PRNN_STATUS_BAD_PARAM),
                       "PRNN_STATUS_BAD_PARAM") == 0 ? 0 : 1;
}
