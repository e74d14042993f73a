/* prnn.h must compile alone as strict C99 (built with -pedantic-errors
 * -Werror) and link against the shared library. */
#include "prnn.h"

#include <stdio.h>

int main(void)
{
    /* Reference a few symbols so the link is real. */
    if (prnnGetVersion() != PRNN_VERSION)
        return 1;
    puts("api-header-c99: prnn.h alone compiles as strict C99 and links");
    return prnnGetErrorString(PRNN_STATUS_SUCCESS) ? 0 : 1;
}
