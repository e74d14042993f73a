#include "embedded.h"

#include <string.h>

const prnn_embedded_file *prnn_embedded_find(const prnn_embedded_file *table, const char *name)
{
    for (; table->name; table++)
        if (strcmp(table->name, name) == 0)
            return table;
    return NULL;
}
