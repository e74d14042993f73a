/* Removes a directory tree the test made (its scratch cache, DB or temp
 * directory), links not followed; shared by the suites' helpers. */
#ifndef PRNN_TEST_RMTREE_H
#define PRNN_TEST_RMTREE_H

#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>

static int test_rmtree_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static inline void test_rmtree(const char *path)
{
    nftw(path, test_rmtree_one, 16, FTW_DEPTH | FTW_PHYS);
}

#endif
