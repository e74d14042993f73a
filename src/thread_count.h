#ifndef PRNN_THREAD_COUNT_H
#define PRNN_THREAD_COUNT_H

/*
 * How many threads a piece of the library may use: the positive number in
 * the environment variable env_var if it holds one, else the CPUs the
 * process may run on (its affinity mask; the online CPUs where that cannot
 * be read); then at most most, and at least 1. Read at every call, so
 * that a test may change the variable between calls.
 */
int prnn_thread_count(const char *env_var, int most);

#endif
