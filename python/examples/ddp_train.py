"""Data-parallel training of a sequence model whose recurrent layers are
prnn.torch.LSTM, with PyTorch's DistributedDataParallel: one process per
GPU (NCCL), or per CPU process (gloo, prnn's CPU backend) to check the
logic without GPUs.

    torchrun --nproc_per_node=2 ddp_train.py [--steps 50] [--hidden 1024]
        [--batch 16] [--seq 256] [--dtype float16] [--save params.pt]
        [--compare other.pt] [--profile]

--batch is per process; the global batch is batch x world size. The model:
one-hot tokens -> Linear -> prnn LSTM (2 layers) -> Linear -> next-token
cross entropy, on a seeded synthetic corpus sharded by DistributedSampler.
No embedding (its backward uses atomics): every step is deterministic, so
the same seeds give the same parameters bit for bit, and a run on N
processes with batch B equals a run on one process with batch N*B after the
same steps, within float tolerance (DDP averages the ranks' gradients of
their mean losses: the gradient of the global batch's mean loss).

--save writes rank 0's parameters after the run (before --profile's
steps); --compare loads another run's and reports the largest relative difference (exit 1 above
--tolerance). --profile reports samples per second and how a step's time
splits between prnn (the LSTM's forward and backward), the all-reduce and
the rest, each timed alone with CUDA events on this rank.
"""

import argparse
import os
import sys
import time

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

import prnn.torch as pt

# NVLink multicast stays off (it can take a shared host's GPUs down);
# torchrun passes the environment on to every rank.
os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
os.environ.setdefault("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1")
os.environ.setdefault("NVSHMEM_DISABLE_NVLS", "1")

VOCAB = 32


def corpus(n_sequences, seq, seed):
    """Token sequences from a fixed random Markov chain: learnable, seeded."""
    g = torch.Generator().manual_seed(seed)
    transition = torch.softmax(torch.randn(VOCAB, VOCAB, generator=g) * 3, -1)
    tokens = torch.empty(n_sequences, seq + 1, dtype=torch.long)
    tokens[:, 0] = torch.randint(VOCAB, (n_sequences,), generator=g)
    for t in range(seq):
        tokens[:, t + 1] = torch.multinomial(transition[tokens[:, t]], 1, generator=g)[:, 0]
    return TensorDataset(tokens)


class SequenceModel(nn.Module):
    def __init__(self, hidden, layers, dtype):
        super().__init__()
        self.inp = nn.Linear(VOCAB, hidden)
        self.rnn = pt.LSTM(hidden, hidden, num_layers=layers, batch_first=True).to(dtype)
        self.out = nn.Linear(hidden, VOCAB)
        self.dtype = dtype

    def forward(self, tokens):
        x = self.inp(nn.functional.one_hot(tokens, VOCAB).float())
        y, _ = self.rnn(x.to(self.dtype))
        return self.out(y.float())


def loss_of(model, batch):
    logits = model(batch[:, :-1])
    return nn.functional.cross_entropy(logits.reshape(-1, VOCAB), batch[:, 1:].reshape(-1))


def cuda_ms(fn, device, repeats=5):
    if device.type != "cuda":
        t0 = time.perf_counter()
        for _ in range(repeats):
            fn()
        return (time.perf_counter() - t0) * 1e3 / repeats
    fn()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(repeats):
        fn()
    stop.record()
    stop.synchronize()
    return start.elapsed_time(stop) / repeats


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--hidden", type=int, default=1024)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--batch", type=int, default=16, help="per process")
    ap.add_argument("--seq", type=int, default=256)
    ap.add_argument("--dtype", default="float32", choices=["float32", "float16", "bfloat16"])
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu",
                    choices=["cuda", "cpu"])
    ap.add_argument("--save")
    ap.add_argument("--compare")
    ap.add_argument("--tolerance", type=float, default=1e-4)
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()

    cuda = args.device == "cuda"
    dist.init_process_group("nccl" if cuda else "gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    local = int(os.environ.get("LOCAL_RANK", 0))
    if cuda:
        torch.cuda.set_device(local)     # prnn's handle binds to this device
    device = torch.device("cuda", local) if cuda else torch.device("cpu")
    torch.use_deterministic_algorithms(True, warn_only=True)
    torch.manual_seed(args.seed)          # the same initial weights on every rank
    dtype = getattr(torch, args.dtype)
    model = SequenceModel(args.hidden, args.layers, dtype).to(device)
    ddp = DDP(model, device_ids=[local] if cuda else None)
    opt = torch.optim.SGD(ddp.parameters(), lr=args.lr)

    global_batch = args.batch * world
    data = corpus(global_batch * args.steps, args.seq, args.seed + 1)
    sampler = DistributedSampler(data, num_replicas=world, rank=rank, shuffle=True,
                                 seed=args.seed, drop_last=True)
    loader = DataLoader(data, batch_size=args.batch, sampler=sampler)

    if rank == 0:
        print(f"{world} process(es) on {args.device}, LSTM {args.layers}x{args.hidden} "
              f"{args.dtype}, batch {args.batch} per process ({global_batch} global), "
              f"T={args.seq}, {args.steps} steps")
    torch.cuda.synchronize() if cuda else None
    start = time.perf_counter()
    first_loss = None
    for step, (batch,) in enumerate(loader, 1):
        batch = batch.to(device, non_blocking=True)
        loss = loss_of(ddp, batch)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if first_loss is None:
            first_loss = loss.item()
        if rank == 0 and (step % 5 == 0 or step == args.steps):
            done = 30 * step // args.steps
            sys.stdout.write(f"\r[{'#' * done}{'.' * (30 - done)}] {step}/{args.steps} "
                             f"loss {loss.item():.3f}")
            sys.stdout.flush()
    torch.cuda.synchronize() if cuda else None
    elapsed = time.perf_counter() - start
    if rank == 0:
        rate = global_batch * args.steps / elapsed
        print(f"\nloss {first_loss:.3f} -> {loss.item():.3f}; {rate:.1f}"
              f" samples/s over the whole run (first steps plan and compile)")

    # Each rank's layer planned on its own device: prnn kept one Problem per
    # (thread, device, ...) it ran on, and the plan names the device.
    devices = model.rnn._problems.devices()
    assert devices == {device}, f"rank {rank}: prnn ran on {devices}, expected {device}"
    if cuda:
        for problem in model.rnn._problems.values():
            info = problem.plan_info()
            assert info.device.decode().startswith(torch.cuda.get_device_name(local))

    failed = False
    if rank == 0:
        params = {k: v.detach().float().cpu() for k, v in model.state_dict().items()}
        if args.save:
            torch.save(params, args.save)
        if args.compare:
            other = torch.load(args.compare)
            worst = max(((params[k] - other[k]).abs().max() /
                         other[k].abs().max().clamp_min(1e-6)).item() for k in params)
            same = all(torch.equal(params[k], other[k]) for k in params)
            print(f"compare with {args.compare}: largest relative difference {worst:.2e}"
                  f"{' (bit for bit equal)' if same else ''}")
            failed = worst > args.tolerance
    if args.profile:
        batch = next(iter(loader))[0].to(device)

        def step_fn():
            loss = loss_of(ddp, batch)
            opt.zero_grad(set_to_none=True)
            loss.backward()

        x = model.inp(nn.functional.one_hot(batch[:, :-1], VOCAB).float()).to(dtype).detach()
        x.requires_grad_(True)

        def prnn_fn():
            y, _ = model.rnn(x)
            y.backward(torch.ones_like(y))

        flat = torch.zeros(sum(p.numel() for p in model.parameters()), device=device)
        step_ms = cuda_ms(step_fn, device)
        prnn_ms = cuda_ms(prnn_fn, device)
        reduce_ms = cuda_ms(lambda: dist.all_reduce(flat), device)
        timed_steps = 5
        t0 = time.perf_counter()
        for _ in range(timed_steps):
            step_fn()
            opt.step()
        torch.cuda.synchronize() if cuda else None
        rate = global_batch * timed_steps / (time.perf_counter() - t0)
        if rank == 0:
            print(f"profile: {rate:.1f} samples/s (warm); a step {step_ms:.2f} ms: prnn (LSTM "
                  f"forward and backward) {prnn_ms:.2f} ms ({100 * prnn_ms / step_ms:.0f} %), "
                  f"all-reduce of every gradient {reduce_ms:.2f} ms "
                  f"({100 * reduce_ms / step_ms:.0f} %, overlapped with the backward by DDP), "
                  f"the rest {step_ms - prnn_ms:.2f} ms beside prnn")
    return 1 if failed else 0


if __name__ == "__main__":
    status = main()  # returned: its DDP wrapper no longer holds the process group
    dist.barrier()  # every rank done before any tears down
    dist.destroy_process_group()
    # Leave without the interpreter's and C++'s teardown: on the CPU (gloo) a
    # rank sometimes aborts there, after everything above has finished and
    # the atexit handlers have run ("terminate called without an active
    # exception": 2 of 30 runs on a 2-core machine, before and after the
    # barrier). Only Python's own streams are left to flush.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)
