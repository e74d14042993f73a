// The tiny-h kernels' split of a one-gate cell's inputs (RELU, TANH) over
// the four lanes of a unit's quad (rnn_tiny.cu forwards, rnn_tiny_backward.cu
// backwards): lane q takes chunks of four adjacent inputs, its chunk c at
// 16 c + 4 q. A quad then reads 16 adjacent words of shared memory at once
// (a 16-byte load a lane), the same words for every quad of the warp: no
// bank conflict, one broadcast. Contiguous quarters (lane q from q H / 4)
// put two of the quad's reads in one bank at H = 64. With several gates
// each lane takes every input, in order.
#pragma once

// inputs a lane covers: all H with a gate per lane; with one gate a
// quarter, rounded up to whole chunks (inputs past H are skipped)
__host__ __device__ constexpr int tiny_inputs_per_lane(int gates, int hidden)
{
    return gates == 1 ? 4 * ((hidden + 15) / 16) : hidden;
}

// whether every input a lane covers is below H (no bound check needed)
__host__ __device__ constexpr bool tiny_inputs_whole(int gates, int hidden)
{
    return gates > 1 || hidden % 16 == 0;
}

// the input index of lane q's k-th input
template <int GATES>
__device__ __forceinline__ int tiny_input(int q, int k)
{
    return GATES == 1 ? 16 * (k / 4) + 4 * q + k % 4 : k;
}
