#include <stdio.h>
#include <stdlib.h>
#include "kernel_variants.h"
int main(int argc,char**argv){
  /* argv: mode(2 lstm,3 gru) dtype(0 f32,2 f16) H B caller_rows tile [layers] */
  jit_persistent_variant p={"x",(prnnRNNMode_t)atoi(argv[1]),(prnnDataType_t)atoi(argv[2]),atoi(argv[3]),atoi(argv[4]),1,argc>8&&atoi(argv[8])?PRNN_PASS_BACKWARD_DATA:PRNN_PASS_FORWARD,0,0,argv[6],0,atoi(argv[5]),argc>7?atoi(argv[7]):1};
  prnn_kernel_request r; jit_kernel_variant v; char why[256];
  if(jit_persistent_variant_build(&p,&r,&v,why,sizeof why)){fprintf(stderr,"fail %s\n",why);return 1;}
  for(int i=0;v.defines[i];i++) printf(" -D%s",v.defines[i]); printf("\n");
  return 0;
}
