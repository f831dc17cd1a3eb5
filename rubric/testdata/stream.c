#include <stdlib.h>
#include <stdio.h>
int main(int argc,char**argv){long n=atol(argv[1]);long*a=malloc(n*sizeof*a);long s=0;for(long i=0;i<n;i++)a[i]=i*7%13;for(long i=0;i<n;i++)if(a[i]&1)s+=a[i];printf("%ld\n",s);free(a);return 0;}
