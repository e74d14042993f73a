import torch, collections
import prnn.torch as pt
import prnn.torch._ops as ops
dev = torch.device("cuda")
seen = collections.defaultdict(list)
orig = ops.call
def spy(name, *args):
    if name.startswith("prnnRNN"):
        seen[name].append(tuple(a if isinstance(a, int) else None for a in args))
    return orig(name, *args)
ops.call = spy
for mode, L, H, B, T, dt in (("gru",1,1024,1,1,torch.float32), ("lstm",3,64,256,1,torch.float32)):
    seen.clear()
    torch.manual_seed(0)
    theirs = getattr(torch.nn, mode.upper())(H, H, L).to(device=dev, dtype=dt)
    ours = pt.from_torch(theirs)
    x = torch.randn(T, B, H, device=dev, dtype=dt).requires_grad_(True)
    dy = torch.randn(T, B, H, device=dev, dtype=dt)
    opt = torch.optim.SGD(ours.parameters(), lr=1e-6)
    for i in range(40):
        opt.zero_grad(set_to_none=True)
        y, h = ours(x); y.backward(dy); opt.step()
    torch.cuda.synchronize()
    print(mode, L, H, B, T, {k: len(v) for k, v in seen.items()})
    for name, calls in seen.items():
        calls = calls[10:]
        n = len(calls[0])
        varying = [i for i in range(n) if len(set(c[i] for c in calls)) > 1]
        print("  ", name, "distinct calls", len(set(calls)), "of", len(calls), "; varying args", {i: len(set(c[i] for c in calls)) for i in varying})
