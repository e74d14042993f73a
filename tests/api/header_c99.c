/* prnn.h must compile alone as strict C99 (built with -pedantic-errors
 * -Werror) and link against the shared library. */
#include "prnn.h"

int main(void)
{
    /* Reference a few symbols so the link is real. */
    if (prnnGetVersion() != PRNN_VERSION)
        return 1;
    return prnnGetErrorString(PRNN_STATUS_SUCCESS) ? 0 : 1;
}
