#include <stdio.h>
#include <stdlib.h>
#include "kernel_variants.h"
int main(int argc,char**argv){
  /* argv: mode(2 lstm,3 gru) dtype(0 f32,1 f16) H B caller_rows tile */
  jit_persistent_variant p={"x",(prnnRNNMode_t)atoi(argv[1]),(prnnDataType_t)atoi(argv[2]),atoi(argv[3]),atoi(argv[4]),1,PRNN_PASS_FORWARD,0,0,argv[6],0,atoi(argv[5])};
  prnn_kernel_request r; jit_kernel_variant v; char why[256];
  if(jit_persistent_variant_build(&p,&r,&v,why,sizeof why)){printf("fail %s\n",why);return 1;}
  for(int i=0;v.defines[i];i++) printf(" -D%s",v.defines[i]); printf("\n");
}
