#!/usr/bin/python3
"""Checks a dist-gen training step against PyTorch autograd + torch.optim.

    check_against_torch.py --bin build/bin [--steps 3] [--passes "--dist-data-parallel"] \
        -- gpt --layers 2 ...

Generates the step with `dist-gen ... --return-gradients` (then applies
`dist-opt --passes` to it), draws initial
weights and a batch (torch.manual_seed), runs the step for --steps steps with
dist-run (serial and partitioned, which dist-run compares), and compares the
serial run's loss, every gradient, every updated parameter and every piece of
optimizer state after every step with the same model written in PyTorch
(functional, parameters as leaf tensors) trained by torch.optim on the same
weights and batch. Needs Debian's python3-torch (run with /usr/bin/python3).
No numpy: raw files go through the array module.

On a GPU machine without LLVM (the `device` machine) the same check runs
in two halves: here `--export DIR` generates the step, draws the inputs,
exports the partitioned run for one GPU (`dist-run --device=gpu
--export-ranks DIR/run`, the serial run made here) and bundles it
(scripts/device_bundle.sh); there `--from-export DIR` runs DIR/run on the
GPU (dist-step) and compares its every step with the same training in
PyTorch on that GPU (`--torch-device cuda`, the default there). Back here,
`dist-run --judge DIR/run` compares the GPU's results with the serial run's.
"""

import argparse
import array
import json
import math
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

import torch
import torch.nn.functional as F

from step_signature import parse_signature

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")

TORCH_DTYPES = {"f32": torch.float32, "f64": torch.float64, "bf16": torch.bfloat16,
                "f16": torch.float16, "fp16": torch.float16,
                "i32": torch.int32, "i64": torch.int64}
ARRAY_CODES = {torch.float32: "f", torch.float64: "d", torch.int32: "i", torch.int64: "q"}
# Allowed error relative to the largest magnitude of the reference value.
TOLERANCE = {"f64": 1e-10, "f32": 2e-5, "bf16": 3e-2, "fp16": 4e-3}
# Step state that is neither a parameter, optimizer state nor the batch.
STEP_STATE = ("step", "loss_scale", "loss_scale.growth_tracker")
SIXTEEN_BIT = (torch.bfloat16, torch.float16)


def write_raw(tensor, path):
    t = tensor.detach().contiguous().flatten()
    if t.dtype in SIXTEEN_BIT:
        data = array.array("h", t.view(torch.int16).tolist()).tobytes()
    else:
        data = array.array(ARRAY_CODES[t.dtype], t.tolist()).tobytes()
    with open(path, "wb") as f:
        f.write(data)


def read_raw(path, dtype, shape):
    with open(path, "rb") as f:
        data = bytearray(f.read())
    if dtype in SIXTEEN_BIT:
        return torch.frombuffer(data, dtype=torch.int16).view(dtype).reshape(shape)
    return torch.frombuffer(data, dtype=dtype).reshape(shape).clone()


def torch_library_path():
    """The directories of the CUDA libraries (cuBLAS, NCCL) PyTorch's wheels
    carry: dist's CUDA runtime library loads cuBLAS, its nccl backend NCCL."""
    dirs = []
    try:
        import nvidia  # noqa: F401  (the nvidia-* wheels)
    except ImportError:
        return dirs
    roots = list(getattr(nvidia, "__path__", [])) or [os.path.dirname(nvidia.__file__)]
    for root in roots:
        for path, _, files in os.walk(root):
            if any(f.startswith(("libcublas", "libnccl")) for f in files):
                dirs.append(path)
    return dirs


def copy_params_into_state(arg_values, inputs):
    """Master weights (dist.input_from_param) start as their parameter; in
    packed state, in their owner's row."""
    by_name = {v.name: t for v, t in zip(arg_values, inputs) if v.is_param}
    for i, value in enumerate(arg_values):
        if value.input_from_param:
            inputs[i] = inputs[value.state_of].to(value.dtype).reshape(value.shape)
        for m in value.pool_members:
            if m["from_param"]:
                param = by_name[m["param"]].to(value.dtype).flatten()
                inputs[i][m["owner"], m["offset"]:m["offset"] + param.numel()] = param


def initial_value(value, generator):
    """Weights: small random values (layernorm gains near 1); state: zeros."""
    if value.input_range is not None:
        low, high = value.input_range
        return torch.randint(low, high, value.shape, generator=generator, dtype=value.dtype)
    if value.state_of is not None or value.pool_members:
        return torch.zeros(value.shape, dtype=value.dtype)
    if value.input_fill is not None and not value.is_param:  # the loss scale
        return torch.full(value.shape, value.input_fill, dtype=value.dtype)
    noise = torch.randn(value.shape, generator=generator, dtype=torch.float64)
    if value.is_param and re.search(r"ln\w*\.weight$", value.name):
        return (1.0 + 0.1 * noise).to(value.dtype)
    if value.is_param:
        fan_in = value.shape[0] if len(value.shape) == 2 else 1
        return (noise / math.sqrt(fan_in) * (0.5 if len(value.shape) == 2 else 0.1)).to(value.dtype)
    return noise.to(value.dtype)  # a float input (an MLP's x)


class Compute:
    """How the PyTorch model computes: in a dtype PyTorch's CPU kernels have
    (f64, f32, bf16), or fp16 emulated: f32 kernels whose every result is
    rounded to fp16 (PyTorch 1.13 has no fp16 matmul on CPU). Rounding with
    .half().float() also rounds the gradient that flows back through it, so
    backward rounds at the same op boundaries as forward."""

    def __init__(self, dtype):
        self.emulated_half = dtype == torch.float16
        self.dtype = torch.float32 if self.emulated_half else dtype

    def cast(self, t):
        return self.r(t.to(self.dtype))

    def r(self, t):
        """An op's result, rounded as the compute type would store it."""
        return t.half().float() if self.emulated_half else t

    def loss_input(self, logits):
        """Cross-entropy is computed in f32 (as dist-gen's)."""
        return logits.float() if self.dtype in SIXTEEN_BIT else logits


# --- The models in PyTorch, written independently of dist-gen's backward. ---

def mlp_loss(p, batch, opts, c):
    layers = len(opts.widths.split(",")) - 1
    a = c.cast(batch["x"])
    for i in range(layers):
        z = c.r(c.r(a @ c.cast(p["fc%d.weight" % i])) + c.cast(p["fc%d.bias" % i]))
        a = c.r(torch.relu(z)) if i + 1 < layers else z
    return F.cross_entropy(c.loss_input(z), batch["labels"].long())


def gpt_loss(p, batch, opts, c):
    ids, labels = batch["ids"].long(), batch["labels"].long()
    B, S = ids.shape
    H, A = opts.hidden, opts.heads
    D = H // A
    r = c.r
    w = {k: c.cast(v) for k, v in p.items()}
    x = r(w["wte"][ids] + w["wpe"][:S])
    mask = torch.tril(torch.ones(S, S, dtype=torch.bool, device=ids.device))
    for l in range(opts.layers):
        pre = "h.%d." % l
        a = r(F.layer_norm(x, (H,), w[pre + "ln1.weight"], w[pre + "ln1.bias"], eps=1e-5))

        def heads(name):
            y = r(a @ w[pre + name + ".weight"])
            if pre + name + ".bias" in w:  # the key has none
                y = r(y + w[pre + name + ".bias"])
            return y.view(B, S, A, D).transpose(1, 2)
        q, k, v = heads("attn.q"), heads("attn.k"), heads("attn.v")
        att = r(r(q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(D)))
        att = r(torch.softmax(att.masked_fill(~mask, float("-inf")), dim=-1))
        y = r(att @ v).transpose(1, 2).reshape(B, S, H)
        x = r(x + r(r(y @ w[pre + "attn.proj.weight"]) + w[pre + "attn.proj.bias"]))
        m = r(F.layer_norm(x, (H,), w[pre + "ln2.weight"], w[pre + "ln2.bias"], eps=1e-5))
        h = r(F.gelu(r(r(m @ w[pre + "mlp.fc1.weight"]) + w[pre + "mlp.fc1.bias"]),
                     approximate="tanh"))
        x = r(x + r(r(h @ w[pre + "mlp.fc2.weight"]) + w[pre + "mlp.fc2.bias"]))
    f = r(F.layer_norm(x, (H,), w["lnf.weight"], w["lnf.bias"], eps=1e-5))
    logits = r(f @ (w["head.weight"] if "head.weight" in w else w["wte"].t()))
    logits = logits.reshape(B * S, -1)
    return F.cross_entropy(c.loss_input(logits), labels.reshape(-1))


def make_optimizer(opts, params):
    lr = opts.lr
    if opts.optimizer == "sgd":
        return torch.optim.SGD(params, lr=lr or 1e-2)
    if opts.optimizer == "momentum":
        return torch.optim.SGD(params, lr=lr or 1e-2, momentum=0.9)
    return torch.optim.Adam(params, lr=lr or 1e-3, betas=(0.9, 0.999), eps=1e-8)


STATE_KEYS = {"momentum_buffer": "momentum_buffer", "exp_avg": "exp_avg",
              "exp_avg_sq": "exp_avg_sq"}


def relative_error(actual, expected, floor):
    actual, expected = actual.double(), expected.double()
    if expected.numel() == 0:
        return 0.0
    scale = max(expected.abs().max().item(), floor, 1e-30)
    return (actual - expected).abs().max().item() / scale


def parse_model_options(gen_args):
    """The model's dist-gen options that the PyTorch model needs."""
    model_parser = argparse.ArgumentParser()
    model_parser.add_argument("model")
    for name in ("--widths", "--optimizer", "--dtype", "--parallel", "--mesh"):
        model_parser.add_argument(name, default=None)
    for name in ("--layers", "--hidden", "--heads", "--seq", "--vocab", "--batch"):
        model_parser.add_argument(name, type=int, default=None)
    model_parser.add_argument("--lr", type=float, default=0.0)
    model_parser.add_argument("--clip-grad-norm", type=float, default=None)
    model_parser.add_argument("--loss-scale", type=float, default=65536.0)
    model_parser.add_argument("--loss-scale-growth-interval", type=int, default=2000)
    model_parser.add_argument("--tied-head", action="store_true")
    opts, _ = model_parser.parse_known_args(gen_args)
    opts.optimizer = opts.optimizer or "adam"
    opts.dtype = opts.dtype or "f32"
    defaults = {"layers": 2, "hidden": 64, "heads": 4, "seq": 16, "vocab": 128}
    for key, value in defaults.items():
        if getattr(opts, key) is None:
            setattr(opts, key, value)
    return opts


def generate_step(args, gen_args, work):
    step_file = os.path.join(work, "step.mlir")
    subprocess.run([os.path.join(args.bin, "dist-gen")] + gen_args +
                   ["--return-gradients", "-o", step_file], check=True)
    if args.passes:
        generated = os.path.join(work, "generated.mlir")
        os.replace(step_file, generated)
        subprocess.run([os.path.join(args.bin, "dist-opt"), generated, "-o", step_file] +
                       shlex.split(args.passes), check=True)
    return step_file


def run_dist(args, step_file, input_files, work):
    """dist-run's serial and partitioned runs (which it compares); the serial
    run's result file of (result, step). With --export, the GPU run exported
    and bundled instead (None)."""
    run_dir = os.path.join(work, "run")
    shutil.rmtree(run_dir, ignore_errors=True)
    command = [os.path.join(args.bin, "dist-run"), step_file, "--steps", str(args.steps)]
    if args.export:
        command += ["--device=gpu", "--export-ranks", run_dir]
    else:
        command += ["--keep", "--work-dir", run_dir]
    command += args.dist_run_args.split()
    for i, path in enumerate(input_files):
        command += ["--input", "%d=%s" % (i, path)]
    env = dict(os.environ, PATH="/usr/local/cuda/bin:" + os.environ["PATH"])
    run = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         env=env)
    verdicts = [l for l in run.stdout.splitlines() if l.startswith(("PASS", "FAIL"))]
    if not args.export:
        print("dist-run (partitioned vs serial): " + (verdicts[-1] if verdicts else "no verdict"))
    if run.returncode != 0:
        print(run.stdout)
        print("FAIL: dist-run exited with %d" % run.returncode)
        return False
    if args.export:
        subprocess.run(["bash", os.path.join(ROOT, "scripts", "device_bundle.sh"), run_dir,
                        os.path.join(args.bin, "..")], check=True, stdout=subprocess.DEVNULL)
    return True


def run_exported(work):
    """--from-export: the bundled run on this machine's GPU (one rank)."""
    run_dir = os.path.join(work, "run")
    for name in os.listdir(run_dir):
        if re.match(r"result\d+\.step\d+\.rank\d+\.bin$", name):
            os.remove(os.path.join(run_dir, name))
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = ":".join(torch_library_path() +
                                      [p for p in [env.get("LD_LIBRARY_PATH")] if p])
    run = subprocess.run([os.path.join(run_dir, "run.sh"), "1"], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, env=env)
    if run.returncode != 0:
        print(run.stdout)
        print("FAIL: %s/run.sh 1 exited with %d" % (run_dir, run.returncode))
        return False
    print("dist-step on the GPU: %d step(s) ran" % len(open(os.path.join(
        run_dir, "times.rank0.txt")).read().split()))
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", help="directory of dist-gen and dist-run")
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dist-run-args", default="", help="extra dist-run options")
    parser.add_argument("--passes", default="",
                        help="dist-opt options applied to the step before dist-run, "
                             "split as a shell would (quote a pass with several "
                             "options: \"'--dist-sharding=stage=1 ownership=whole'\"), "
                             "e.g. --dist-data-parallel")
    parser.add_argument("--keep", help="keep the work files in this directory")
    parser.add_argument("--export", metavar="DIR",
                        help="prepare the check for a GPU machine in DIR (see above)")
    parser.add_argument("--from-export", metavar="DIR",
                        help="on the GPU machine: run DIR/run and compare with PyTorch")
    parser.add_argument("--torch-device", default=None,
                        help="where PyTorch trains (default: cuda with --from-export, else cpu)")
    parser.add_argument("--stepwise", action="store_true",
                        help="f32: judge each step from dist's own state before it, the "
                             "update with dist's own gradients (the default on a GPU; see "
                             "compare_with_torch)")
    parser.add_argument("gen", nargs=argparse.REMAINDER, help="-- dist-gen arguments")
    args = parser.parse_args()
    gen_args = args.gen[1:] if args.gen and args.gen[0] == "--" else args.gen
    device = args.torch_device or ("cuda" if args.from_export else "cpu")

    if args.from_export:
        work = args.from_export
        with open(os.path.join(work, "check.json")) as f:
            saved = json.load(f)
        gen_args, args.steps = saved["gen"], saved["steps"]
        step_file = os.path.join(work, "step.mlir")
    else:
        if not args.bin or not gen_args:
            parser.error("--bin and the dist-gen arguments are needed (or --from-export)")
        work = args.export or args.keep or tempfile.mkdtemp(prefix="dist-torch-")
        os.makedirs(work, exist_ok=True)
        step_file = generate_step(args, gen_args, work)
    opts = parse_model_options(gen_args)
    with open(step_file) as f:
        arg_values, result_values = parse_signature(f.read(), "train_step")
    for value in arg_values + result_values:
        value.dtype = TORCH_DTYPES[value.element]

    input_files = [os.path.join(work, "input%d.bin" % i) for i in range(len(arg_values))]
    if args.from_export:
        inputs = [read_raw(path, v.dtype, v.shape) for v, path in zip(arg_values, input_files)]
        if not run_exported(work):
            return 1
        run_name = "rank0"
    else:
        generator = torch.Generator().manual_seed(args.seed)
        inputs = [initial_value(v, generator) for v in arg_values]
        copy_params_into_state(arg_values, inputs)
        for value, path in zip(inputs, input_files):
            write_raw(value, path)
        if not run_dist(args, step_file, input_files, work):
            return 1
        if args.export:
            with open(os.path.join(work, "check.json"), "w") as f:
                json.dump({"gen": gen_args, "steps": args.steps}, f)
            print("exported %s: on the GPU machine `check_against_torch.py --from-export %s`, "
                  "then here `dist-run --judge %s/run`" % (work, work, work))
            return 0
        run_name = "serial"
    run_dir = os.path.join(work, "run")

    def result_of(index, value, step):
        return read_raw(os.path.join(run_dir, "result%d.step%d.%s.bin" % (index, step, run_name)),
                        value.dtype, value.shape)

    failures = compare_with_torch(opts, arg_values, result_values, inputs, args.steps,
                                  result_of, device, args.stepwise)
    if not args.keep and not args.export and not args.from_export:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


def compare_with_torch(opts, arg_values, result_values, inputs, steps, result_of, device,
                       stepwise=False):
    """Trains the model in PyTorch on `device` and compares every result of
    every step (`result_of(index, value, step)`); the number of failures."""
    # The same training in PyTorch; for bf16 and fp16 also in f64 (the truth
    # that both runs are judged against; it skips the steps fp16 skips).
    batch = {v.name: t for v, t in zip(arg_values, inputs)
             if not v.is_param and v.state_of is None and not v.pool_members
             and v.name not in STEP_STATE}
    initial = {v.name: t for v, t in zip(arg_values, inputs) if v.is_param}
    loss_fn = mlp_loss if opts.model == "mlp" else gpt_loss
    compute = TORCH_DTYPES[opts.dtype]
    peer = Trainer(opts, initial, batch, loss_fn, compute, device)
    # On a GPU the f32 steps are judged step by step, from dist's own
    # parameters and optimizer state before each: its loss and gradients
    # against PyTorch's (f32, and f64: the truth), its updated parameters
    # and state against torch.optim's f64 update with dist's gradients.
    # cuBLAS picks other kernels (other summation orders) for PyTorch's
    # shapes and layouts than for dist's, and Adam turns a gradient's last
    # bits into a whole update where the gradient is near zero (|g| ~ eps),
    # so neither two trajectories nor two updates of two f32 gradients can
    # be held to f32's precision; the update of the same gradient can.
    stepwise = compute == torch.float32 and (stepwise or device != "cpu")
    by_truth = compute in SIXTEEN_BIT or stepwise
    truth = Trainer(opts, initial, batch, loss_fn, torch.float64, device) if by_truth else None
    tolerance = TOLERANCE[opts.dtype]
    worst = {}
    failures = 0
    previous = {}  # stepwise: dist's parameters and state before the step
    for v, t in zip(arg_values, inputs):
        if v.is_param or v.state_of is not None:
            previous[v.name] = t
    for step in range(1, steps + 1):
        if stepwise:
            params = {v.name: previous[v.name] for v in arg_values if v.is_param}
            peer = Trainer(opts, params, batch, loss_fn, compute, device)
            truth = Trainer(opts, params, batch, loss_fn, torch.float64, device)
            for trainer in (peer, truth):
                trainer.load_state(arg_values, previous, step - 1)
        peer.step()
        if truth:
            truth.step(skip=peer.skipped)
        actuals = [result_of(i, value, step) for i, value in enumerate(result_values)]
        update = None
        if stepwise:
            update = Trainer(opts, params, batch, loss_fn, torch.float64, device)
            update.load_state(arg_values, previous, step - 1)
            update.apply({v.name[5:]: a for v, a in zip(result_values, actuals)
                          if v.name.startswith("grad.")})
        compared = []
        for value, actual in zip(result_values, actuals):
            if peer.skipped and value.name.startswith("grad."):
                continue  # not finite: the loss scale says the step was skipped
            if value.name in previous:
                previous[value.name] = actual
            kind, expected = peer.value_of(value, arg_values)
            reference = truth
            if update and kind in ("parameter", "state"):
                reference = update
                expected = update.value_of(value, arg_values)[1]  # judged alone
            compared.append((kind, value, actual, expected.cpu(),
                             reference.value_of(value, arg_values)[1].cpu()
                             if reference and kind != "loss scale" else None))
            if kind == "loss":
                dist_loss = actual.double().item()
        # A value whose exact result is (nearly) zero, as the key bias's
        # gradient would be, is judged against the magnitude of all values of
        # its kind.
        magnitude = {}
        for kind, _, _, expected, _ in compared:
            if expected.numel():
                magnitude[kind] = max(magnitude.get(kind, 0.0),
                                      expected.double().abs().max().item())
        for kind, value, actual, expected, true_value in compared:
            floor = 0.01 * magnitude.get(kind, 0.0)
            if kind == "loss scale":  # exactly GradScaler's
                error = (actual.double() - expected.double()).abs().max().item()
                allowed = 0.0
            elif true_value is None:
                error = relative_error(actual, expected, floor)
                allowed = tolerance
            else:
                # bf16 (f32 on a GPU): as close to the f64 truth as PyTorch's step, up
                # to a factor of 2 (or within the tolerance).
                error = relative_error(actual, true_value, floor)
                allowed = max(2 * relative_error(expected, true_value, floor), tolerance)
            if error > allowed or math.isnan(error):
                failures += 1
                print("FAIL: step %d %s %s: relative error %.3g > %.3g" %
                      (step, kind, value.name, error, allowed))
            worst[kind] = max(worst.get(kind, 0.0), error)
        print("step %d: loss dist-gen %.8g, torch %.8g%s%s" %
              (step, dist_loss, peer.loss.item(),
               ", torch f64 %.8g" % truth.loss.item() if truth else "",
               ", loss scale %g -> %g%s" % (peer.previous_scale, peer.scale,
                                            " (skipped: gradients not finite)"
                                            if peer.skipped else "")
               if peer.loss_scaling else ""))
    print("largest relative errors vs torch%s%s: " % (" f64" if truth else "",
                                                   ", step by step" if stepwise else "") +
          ", ".join("%s %.2e" % (k, worst[k]) for k in sorted(worst)) +
          " (allowed %.0e%s)" % (tolerance, " or twice torch %s's" % opts.dtype
                                 if truth else ""))
    if failures:
        print("FAIL: %d value(s) differ from PyTorch" % failures)
    else:
        print("PASS: loss, gradients, parameters and optimizer state equal PyTorch's for "
              "%d step(s)" % steps)
    return failures


class Trainer:
    """The model in PyTorch: parameters (leaf tensors), torch.optim, steps;
    in fp16 with dynamic loss scaling as torch.cuda.amp.GradScaler does it
    (scale, unscale_ with the found-inf check, step or skip, update), written
    out because GradScaler needs CUDA in PyTorch 1.13."""

    def __init__(self, opts, initial, batch, loss_fn, compute, device="cpu"):
        master = torch.float64 if compute == torch.float64 else torch.float32
        self.params = {name: t.to(device, master).clone().requires_grad_(True)
                       for name, t in initial.items()}
        self.batch = {name: (t.to(device, master) if t.is_floating_point() else t.to(device))
                      for name, t in batch.items()}
        self.opts, self.loss_fn, self.compute = opts, loss_fn, Compute(compute)
        self.optimizer = make_optimizer(opts, list(self.params.values()))
        self.steps = 0
        self.loss_scaling = compute == torch.float16
        self.scale = torch.tensor(opts.loss_scale, dtype=torch.float32)
        self.growth_tracker = 0
        self.skipped = False

    def step(self, skip=None):
        """One step; `skip` (the f64 truth): skip the update as fp16 did."""
        self.optimizer.zero_grad()
        self.loss = self.loss_fn(self.params, self.batch, self.opts, self.compute)
        if self.loss_scaling:
            (self.loss * self.scale).backward()
            inverse = self.scale.double().reciprocal().float()
            for p in self.params.values():
                p.grad.mul_(inverse)
            skip = not all(torch.isfinite(p.grad).all() for p in self.params.values())
        else:
            self.loss.backward()
        if self.opts.clip_grad_norm:
            torch.nn.utils.clip_grad_norm_(list(self.params.values()), self.opts.clip_grad_norm)
        self.grads = {name: p.grad.detach().clone() for name, p in self.params.items()}
        self.skipped = bool(skip)
        if not self.skipped:
            self.optimizer.step()
            self.steps += 1
        if self.loss_scaling:  # GradScaler.update
            self.previous_scale = self.scale.item()
            if self.skipped:
                self.scale = self.scale * 0.5
                self.growth_tracker = 0
            elif self.growth_tracker + 1 == self.opts.loss_scale_growth_interval:
                self.scale = self.scale * 2.0
                self.growth_tracker = 0
            else:
                self.growth_tracker += 1

    def apply(self, grads):
        """One optimizer step with the given gradients (by parameter name)."""
        self.optimizer.zero_grad()
        for name, p in self.params.items():
            p.grad = grads[name].to(p.device, p.dtype).reshape(p.shape)
        self.optimizer.step()
        self.steps += 1

    def load_state(self, arg_values, values, steps_done):
        """Starts from another run's optimizer state (`values`: by dist.name)
        after `steps_done` updates."""
        self.steps = steps_done
        if not steps_done:
            return  # zeros: torch.optim makes its own
        for value in arg_values:
            if value.state_of is None:
                continue
            param = self.params[arg_values[value.state_of].name]
            key = value.name[len(arg_values[value.state_of].name) + 1:]
            state = self.optimizer.state[param]
            state[STATE_KEYS[key]] = values[value.name].to(param.device, param.dtype).clone()
            if key.startswith("exp_avg"):
                state["step"] = torch.tensor(float(steps_done))

    def state_of(self, param_name, state_name, shape):
        """The optimizer's state `state_name` ("<param>.<key>") of a parameter."""
        key = state_name[len(param_name) + 1:]
        if key == "master":  # the f32 copy of a bf16/fp16 parameter
            return self.params[param_name].detach()
        state = self.optimizer.state[self.params[param_name]].get(STATE_KEYS[key])
        if state is None:  # every step so far was skipped
            state = torch.zeros(shape)
        return state

    def value_of(self, result, arg_values):
        """(kind, tensor) of the step's result `result` (by its dist.name)."""
        if result.name == "loss":
            return "loss", self.loss.detach().reshape([]).to(result.dtype)
        if result.name == "step":
            return "step", torch.tensor(self.steps, dtype=torch.int64)
        if result.name == "loss_scale":
            return "loss scale", self.scale.to(result.dtype)
        if result.name == "loss_scale.growth_tracker":
            return "loss scale", torch.tensor(self.growth_tracker, dtype=torch.int64)
        if result.name.startswith("grad."):
            return "gradient", self.grads[result.name[5:]].to(result.dtype)
        if result.state_of is not None:
            param_name = arg_values[result.state_of].name
            return "state", self.state_of(param_name, result.name, result.shape).to(result.dtype)
        pool = next((a.pool_members for a in arg_values if a.name == result.name), None)
        if pool:  # packed state: each member in its owner's row, zeros elsewhere
            packed = torch.zeros(result.shape, dtype=torch.float64)
            for m in pool:
                state = self.state_of(m["param"], m["name"], m["shape"]).double().flatten()
                packed[m["owner"], m["offset"]:m["offset"] + state.numel()] = state
            return "state", packed.to(result.dtype)
        return "parameter", self.params[result.name].detach().to(result.dtype)


if __name__ == "__main__":
    sys.exit(main())
