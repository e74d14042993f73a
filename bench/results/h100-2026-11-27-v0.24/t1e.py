import time, statistics, torch, os
import prnn.torch as pt
dev = torch.device("cuda")
for mode, L, H, B, T, dt in (("gru",1,1024,1,1,torch.float32), ("gru",1,64,256,16,torch.float16), ("lstm",3,64,256,1,torch.float32)):
    torch.manual_seed(0)
    theirs = getattr(torch.nn, mode.upper())(H, H, L).to(device=dev, dtype=dt)
    ours = pt.from_torch(theirs)
    x = torch.randn(T, B, H, device=dev, dtype=dt).requires_grad_(True)
    dy = torch.randn(T, B, H, device=dev, dtype=dt)
    opt = torch.optim.SGD(ours.parameters(), lr=1e-6)
    ts = []; hs=[]
    for i in range(150):
        torch.cuda.synchronize(); t = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        y, h = ours(x)
        t1 = time.perf_counter()
        y.backward(dy); opt.step()
        t2 = time.perf_counter()
        torch.cuda.synchronize(); ts.append((time.perf_counter() - t) * 1e6); hs.append(((t1-t)*1e6,(t2-t1)*1e6))
    info = []
    for p in ours._problems.entries.values():
        if hasattr(p, "plan_info"):
            i = p.plan_info(); info.append((i.callGraphs, i.callGraphsCaptured, i.callGraphReplays))
        else: info.append(type(p).__name__)
    print(f"CG={os.environ.get('PRNN_CALL_GRAPHS','1')} {mode} L{L} H{H} B{B} T{T} {str(dt)[6:]}: median last 100 {statistics.median(ts[50:]):.0f} us, host fwd {statistics.median(h[0] for h in hs[50:]):.0f} bwd+opt {statistics.median(h[1] for h in hs[50:]):.0f}; plans {info}", flush=True)
