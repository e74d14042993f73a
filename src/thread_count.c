#include "thread_count.h"

#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

int prnn_thread_count(const char *env_var, int most)
{
    int n = 0;
    const char *env = env_var ? getenv(env_var) : NULL;
    if (env && env[0])
        n = atoi(env);
    if (n < 1) {
        cpu_set_t set;
        if (sched_getaffinity(0, sizeof(set), &set) == 0)
            n = CPU_COUNT(&set);
        if (n < 1) {
            long online = sysconf(_SC_NPROCESSORS_ONLN);
            n = online > 0 ? (int)online : 1;
        }
    }
    if (n > most)
        n = most;
    return n < 1 ? 1 : n;
}
