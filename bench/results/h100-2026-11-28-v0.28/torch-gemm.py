import torch, time
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
dev = 'cuda'
def t(fn, n=50):
    for _ in range(5): fn()
    torch.cuda.synchronize()
    e0 = torch.cuda.Event(enable_timing=True); e1 = torch.cuda.Event(enable_timing=True)
    e0.record()
    for _ in range(n): fn()
    e1.record(); torch.cuda.synchronize()
    return e0.elapsed_time(e1) * 1000 / n
for (M, N, K) in [(64, 4096, 1024), (64, 1024, 4096), (4096, 1024, 64), (64, 3072, 1024), (256, 4096, 1024)]:
    a = torch.randn(M, K, device=dev); b = torch.randn(K, N, device=dev)
    bt = torch.randn(N, K, device=dev)
    print(f"fp32 M={M} N={N} K={K}: a@b {t(lambda: a @ b):.1f} us  a@bt.T {t(lambda: a @ bt.t()):.1f} us")
a = torch.randn(64, 1024, device=dev); w = torch.randn(4096, 1024, device=dev); h = torch.randn(64, 1024, device=dev); r = torch.randn(4096, 1024, device=dev)
s1 = torch.cuda.Stream(); s2 = torch.cuda.Stream()
def two_streams():
    cur = torch.cuda.current_stream()
    s1.wait_stream(cur); s2.wait_stream(cur)
    with torch.cuda.stream(s1): x1 = a @ w.t()
    with torch.cuda.stream(s2): x2 = h @ r.t()
    cur.wait_stream(s1); cur.wait_stream(s2)
print(f"two GEMMs sequential {t(lambda: (a @ w.t(), h @ r.t())):.1f} us, on two streams {t(two_streams):.1f} us")
xh = torch.randn(64, 2048, device=dev); wr = torch.randn(4096, 2048, device=dev)
print(f"one GEMM K=2048 {t(lambda: xh @ wr.t()):.1f} us")
bm = torch.randn(2, 64, 1024, device=dev); bw = torch.randn(2, 4096, 1024, device=dev)
print(f"batched 2 GEMMs {t(lambda: torch.bmm(bm, bw.transpose(1, 2))):.1f} us")
lstm = torch.nn.LSTM(1024, 1024).to(dev)
x = torch.randn(1, 64, 1024, device=dev, requires_grad=True)
def step():
    y, _ = lstm(x); y.sum().backward()
print(f"torch.nn.LSTM f32 H1024 B64 T1 fwd+bwd {t(step, 20):.1f} us")
