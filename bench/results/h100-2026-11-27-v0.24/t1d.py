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
    ts = []; ptrs=set()
    for i in range(60):
        torch.cuda.synchronize(); t = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        y, h = ours(x); y.backward(dy); opt.step()
        torch.cuda.synchronize(); ts.append((time.perf_counter() - t) * 1e6)
        ptrs.add((y.data_ptr(), x.grad.data_ptr()))
    print(f"CG={os.environ.get('PRNN_CALL_GRAPHS','1')} {mode} L{L} H{H} B{B} T{T} {dt}: distinct (y,dx) ptrs {len(ptrs)}; calls: " + " ".join(f"{v/1000:.1f}" for v in ts) + f" | median last 30 {statistics.median(ts[30:]):.0f} us", flush=True)
