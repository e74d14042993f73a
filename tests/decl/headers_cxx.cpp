// headers.c, compiled as C++.
#include "headers.c"
