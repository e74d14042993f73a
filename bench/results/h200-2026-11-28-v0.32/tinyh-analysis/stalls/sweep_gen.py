import itertools
G={0:1,1:1,2:4,3:3}
def bound(m,dt,H,rows):
    g=G[m]; inputs=4*((H+15)//16) if g==1 else H; words=2 if dt==1 else 1
    b=(64 if g==1 else 80)+(2*inputs+30*(rows-1))*words
    return min(b,255)
def per_sm(threads,regs):
    per_warp=(regs*32+255)//256*256; warps=(threads+31)//32; quarter=65536//4
    n=1
    while n<16 and n<32 and (n+1)*warps*32<=2048 and ((n+1)*warps+3)//4*per_warp<=quarter: n+=1
    return n
out=[]
for m in range(4):
  for dt in range(4):
    for H in (4,12,32,64):
      for rows in ((1,2) if dt==1 else (1,2,4,8)):
        for sk,tr in ((0,0),(1,0),(0,1)):
          ps=per_sm(4*H,bound(m,dt,H,rows))
          out.append(f"{m} {dt} {H} {rows} {ps} {sk} {tr}")
          if ps>1: out.append(f"{m} {dt} {H} {rows} 1 {sk} {tr}")
print("\n".join(out))
