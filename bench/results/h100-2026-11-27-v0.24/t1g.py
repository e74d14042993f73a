import torch, collections
import prnn.torch as pt
import prnn.torch._ops as ops
dev = torch.device("cuda")
state = {"ours": None}
delta = collections.defaultdict(lambda: [0, 0, 0])
orig = ops.call
import ctypes
from prnn import _capi
def counts(args):
    i = _capi.PlanInfo(); i.structSize = ctypes.sizeof(i)
    orig("prnnGetRNNPlanInfo", args[0], args[1], state["B"], state["dt"], ctypes.byref(i))
    return (i.callGraphsCaptured, i.callGraphReplays)
def spy(name, *args):
    if not name.startswith("prnnRNN") or state["ours"] is None:
        return orig(name, *args)
    a = counts(args); r = orig(name, *args); b = counts(args)
    d = delta[name]; d[0] += 1; d[1] += b[0] - a[0]; d[2] += b[1] - a[1]
    return r
ops.call = spy
for mode, L, H, B, T, dt in (("gru",1,1024,1,1,torch.float32), ("lstm",1,256,8,16,torch.float16)):
    delta.clear()
    torch.manual_seed(0)
    theirs = getattr(torch.nn, mode.upper())(H, H, L).to(device=dev, dtype=dt)
    ours = pt.from_torch(theirs); state["ours"] = ours; state["B"] = B; state["dt"] = _capi.DATA_FLOAT if dt == torch.float32 else _capi.DATA_HALF
    x = torch.randn(T, B, H, device=dev, dtype=dt).requires_grad_(True)
    dy = torch.randn(T, B, H, device=dev, dtype=dt)
    opt = torch.optim.SGD(ours.parameters(), lr=1e-6)
    for i in range(30):
        opt.zero_grad(set_to_none=True)
        y, h = ours(x); y.backward(dy); opt.step()
    torch.cuda.synchronize()
    print(mode, L, H, B, T, "calls / captured / replays per kind:", dict(delta))
    state["ours"] = None
