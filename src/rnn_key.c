#include "rnn_key.h"

#include "descriptors.h"
#include "prnn_kernel_abi.h"
#include "rnn_cell_traits.h"

static int clip_code(const struct prnnRNNStruct *rnn)
{
    if (!prnn_cell_traits(rnn->mode)->clip || rnn->clip_mode != PRNN_RNN_CLIP_MINMAX)
        return PRNN_KCLIP_NONE;
    return rnn->clip_nan == PRNN_PROPAGATE_NAN ? PRNN_KCLIP_MINMAX_NAN : PRNN_KCLIP_MINMAX;
}

void prnn_rnn_key_of(const struct prnnRNNStruct *rnn, int mini_batch, prnn_rnn_key *key)
{
    key->mode = rnn->mode;
    key->dtype = rnn->dtype;
    key->math = rnn->math;
    key->algo = rnn->algo;
    key->input_mode = rnn->input_mode;
    key->hidden = rnn->hidden;
    key->layers = rnn->layers;
    key->dirs = prnn_rnn_dirs(rnn);
    key->mini_batch = mini_batch;
    key->clip = clip_code(rnn);
    key->proj = rnn->proj;
    key->caller_rows = 0;
}

int prnn_rnn_key_tf32_recurrence(const prnn_rnn_key *key)
{
    return key->dtype == PRNN_DATA_FLOAT && key->math == PRNN_TF32_RECURRENCE_MATH;
}

/* The fields in one order, for the equality test and the hash alike. */
enum { KEY_FIELDS = 12 };
static void fields(const prnn_rnn_key *k, long long out[KEY_FIELDS])
{
    out[0] = k->mode;
    out[1] = k->dtype;
    out[2] = k->math;
    out[3] = k->algo;
    out[4] = k->input_mode;
    out[5] = k->hidden;
    out[6] = k->layers;
    out[7] = k->dirs;
    out[8] = k->mini_batch;
    out[9] = k->clip;
    out[10] = k->proj;
    out[11] = k->caller_rows;
}

int prnn_rnn_key_equal(const prnn_rnn_key *a, const prnn_rnn_key *b)
{
    long long fa[KEY_FIELDS], fb[KEY_FIELDS];
    fields(a, fa);
    fields(b, fb);
    for (int i = 0; i < KEY_FIELDS; i++)
        if (fa[i] != fb[i])
            return 0;
    return 1;
}

uint64_t prnn_rnn_key_hash(const prnn_rnn_key *key)
{
    long long f[KEY_FIELDS];
    fields(key, f);
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < KEY_FIELDS; i++) {
        unsigned long long v = (unsigned long long)f[i];
        for (int byte = 0; byte < 8; byte++) {
            h ^= (v >> (8 * byte)) & 0xffu;
            h *= 1099511628211ull;
        }
    }
    return h;
}
