import time, statistics, torch, os
import prnn.torch as pt
dev = torch.device("cuda")
for dt in (torch.float32, torch.float16):
  for B in (1, 64):
    torch.manual_seed(0)
    theirs = torch.nn.LSTM(64, 64, 1).to(device=dev, dtype=dt)
    ours = pt.from_torch(theirs)
    x = torch.randn(1, B, 64, device=dev, dtype=dt).requires_grad_(True)
    dy = torch.randn(1, B, 64, device=dev, dtype=dt)
    out = []
    for name, m in (("prnn", ours), ("torch", theirs)):
        opt = torch.optim.SGD(m.parameters(), lr=1e-6)
        def step():
            opt.zero_grad(set_to_none=True)
            y, _ = m(x); y.backward(dy); opt.step()
        first = []
        for i in range(8):
            torch.cuda.synchronize(); t = time.perf_counter(); step(); torch.cuda.synchronize()
            first.append((time.perf_counter() - t) * 1e6)
        s = []
        for r in range(5):
            torch.cuda.synchronize(); t = time.perf_counter()
            for _ in range(200): step()
            torch.cuda.synchronize(); s.append((time.perf_counter() - t) / 200 * 1e6)
        out.append(f"{name}: calls 1-8 " + " ".join(f"{v:.0f}" for v in first) + f" | steady {statistics.median(s):.1f} us")
    print(f"CG={os.environ.get('PRNN_CALL_GRAPHS','1')} {dt} B{B}: " + " ;; ".join(out), flush=True)
