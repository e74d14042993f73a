#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    FILE *f = fopen(argv[2], "rb"); fseek(f, 0, SEEK_END); long n = ftell(f); rewind(f);
    char *src = malloc(n + 1); fread(src, 1, n, f); src[n] = 0; fclose(f);
    nvrtcProgram p;
    nvrtcCreateProgram(&p, src, "rnn_persistent.cu", 0, NULL, NULL);
    const char *opts[256]; int k = 0;
    opts[k++] = "-std=c++17"; opts[k++] = "-default-device"; opts[k++] = "--gpu-architecture=compute_90";
    for (int i = 3; i < argc; i++) opts[k++] = argv[i];
    nvrtcResult r = nvrtcCompileProgram(p, k, opts);
    if (r != NVRTC_SUCCESS) { size_t ls; nvrtcGetProgramLogSize(p, &ls); char *log = malloc(ls + 1); nvrtcGetProgramLog(p, log); fprintf(stderr, "%s\nfail\n", log); return 1; }
    size_t cs; nvrtcGetPTXSize(p, &cs); char *cub = malloc(cs); nvrtcGetPTX(p, cub);
    FILE *o = fopen(argv[1], "wb"); fwrite(cub, 1, cs - 1, o); fclose(o);
    return 0;
}
