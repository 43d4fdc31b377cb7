#!/usr/bin/env python3
"""Generates random annotated global programs for dist's differential tester.

One seed gives one program, the same on every Python >= 3.9: all random
choices go through `Rng`, which draws only from `random.Random.getrandbits`
(whose stream is fixed for an integer seed) and never from the helpers whose
algorithms have changed between versions.

A program is a module with one mesh (1-D 2/4/8, 2-D 2x2/2x4/4x2 or 3-D
2x2x2, axes `a`, `b`, `c`), a public `@main` and sometimes private helpers
that it calls. Its body is tensor-level MLIR: arith/math elementwise ops,
linalg named ops and generics (elementwise, transposed and broadcast operands,
`linalg.index`, reductions), matmul and batch_matmul, `linalg.reduce`,
transpose, broadcast, softmax, tensor slices, reshapes, concat, pad, sliding
windows (convolutions, on zero-padded inputs: stencils with halos), gathers
whose indices are arguments with a `dist.input_range`, `tensor.extract` plus
`tensor.splat`, `scf.for` and `scf.while` accumulators, `scf.if`,
`scf.index_switch` (on an index argument with a `dist.input_range`, a cast
integer argument or a constant) and `func.call`, on f32, f64 or i32.
Arguments and results get random `dist.sharding`s and values get random
`dist.annotate` reshards, with partial states of every kind and halos and
overlaps on split dims.

The generator keeps every program valid (types, divisibility of sharded dims)
and numerically meaningful when run by `dist-run` (inputs uniform in [-1, 1)
for floats, [-8, 8) for i32):

- each float value carries a bound on its magnitude; a value whose bound
  exceeds 8 is scaled by a power of two (exactly), and `math.exp` only takes
  values bounded by 2;
- float reductions and contractions are short (at most 16 terms);
- a product reduction takes `1 + x / 8`, values near 1;
- comparisons (`cmpf`/`cmpi` feeding `select`, the condition of an `scf.if`)
  only read values that both runs compute exactly (arguments and exact
  elementwise or data-movement ops on them), so that rounding differences in
  reductions cannot flip a branch;
- i32 values stay below 2^24 in magnitude (a larger one is masked to 8 bits);
- nothing divides.

Usage:
  gen_programs.py SEED                 # print the program of SEED
  gen_programs.py SEED -o FILE         # write it to FILE
  gen_programs.py --info SEED          # ranks=N (the mesh's devices), mesh, features
  gen_programs.py --sample 20          # 20 seeds of 1-300 that cover every feature
"""

import argparse
import random
import sys

MESHES = [(2,), (4,), (8,), (2, 2), (2, 4), (4, 2), (2, 2, 2)]
AXIS_NAMES = ["a", "b", "c"]
DIMS = [2, 4, 8, 16]
FLOAT_KINDS = ["sum", "max", "min", "prod", "avg"]
INT_KINDS = ["sum", "max", "min", "prod"]
MAX_ELEMS = 512
MAX_ARGS = 10
F_BOUND = 8.0  # float values above this bound are rescaled
I_BOUND = 1 << 24  # i32 values above this bound are masked


class Rng:
    """Version-stable random choices built on getrandbits only."""

    def __init__(self, seed):
        self._r = random.Random(seed)

    def below(self, n):
        """Uniform integer in [0, n)."""
        assert n > 0
        k = n.bit_length()
        while True:
            x = self._r.getrandbits(k)
            if x < n:
                return x

    def chance(self, p):
        return self.below(1 << 20) < int(p * (1 << 20))

    def pick(self, seq):
        return seq[self.below(len(seq))]

    def weighted(self, pairs):
        """pairs: [(weight, item)] with integer weights."""
        total = sum(w for w, _ in pairs)
        x = self.below(total)
        for w, item in pairs:
            if x < w:
                return item
            x -= w
        raise AssertionError

    def shuffled(self, seq):
        out = list(seq)
        for i in range(len(out) - 1, 0, -1):
            j = self.below(i + 1)
            out[i], out[j] = out[j], out[i]
        return out

    def subset(self, seq, k):
        return self.shuffled(seq)[:k]


def prod(xs):
    r = 1
    for x in xs:
        r *= x
    return r


def ttype(shape, elem):
    if not shape:
        return "tensor<%s>" % elem
    return "tensor<%sx%s>" % ("x".join(str(d) for d in shape), elem)


def is_float(elem):
    return elem in ("f32", "f64")


def fconst(x, elem):
    """A float literal that MLIR parses exactly."""
    return repr(float(x))


def identity_literal(kind, elem):
    if is_float(elem):
        if kind == "sum":
            return "0.0"
        if kind == "prod":
            return "1.0"
        if kind == "max":
            return "0xFF800000" if elem == "f32" else "0xFFF0000000000000"
        if kind == "min":
            return "0x7F800000" if elem == "f32" else "0x7FF0000000000000"
    else:
        return {"sum": "0", "prod": "1", "max": "-2147483648", "min": "2147483647"}[kind]
    raise AssertionError(kind)


def emit_generic(f, v, maps, iterators, inputs, init, block_args, body):
    """Emits `v = linalg.generic` over `inputs` ((name, type) pairs) into
    `init` (an SSA name of v's type): its indexing `maps`, its `iterators`
    ("parallel"/"reduction"), the block arguments and the body's lines
    (with its linalg.yield)."""
    f.emit("%s = linalg.generic {indexing_maps = [%s], iterator_types = [%s]} "
           "ins(%s : %s) outs(%s : %s) {" %
           (v.name, ", ".join(maps), ", ".join('"%s"' % i for i in iterators),
            ", ".join(n for n, _ in inputs), ", ".join(t for _, t in inputs), init, v.type))
    f.emit("^bb0(%s):" % ", ".join(block_args))
    for line in body:
        f.emit("  " + line)
    f.emit("} -> %s" % v.type)


def combiner(kind, elem):
    if is_float(elem):
        return {"sum": "arith.addf", "prod": "arith.mulf", "max": "arith.maximumf",
                "min": "arith.minimumf"}[kind]
    return {"sum": "arith.addi", "prod": "arith.muli", "max": "arith.maxsi",
            "min": "arith.minsi"}[kind]


class Value:
    """An SSA value the generator may use.

    shape is None for a scalar. bound bounds the magnitude of every element
    (floats) or of every integer. exact: both runs compute it bit for bit.
    """

    def __init__(self, name, shape, elem, bound, exact, depth):
        self.name = name
        self.shape = shape
        self.elem = elem
        self.bound = bound
        self.exact = exact
        self.depth = depth  # region depth where it is defined
        self.uses = 0

    @property
    def type(self):
        return self.elem if self.shape is None else ttype(self.shape, self.elem)

    @property
    def is_tensor(self):
        return self.shape is not None


class Func:
    def __init__(self, gen, name, public):
        self.gen = gen
        self.name = name
        self.public = public
        self.args = []  # (Value, attrs)
        self.lines = []
        self.pool = []
        self.depth = 0
        self.indent = 1
        self.loop_ivs = []  # (iv name, trip count bound) of enclosing loops
        self.can_add_args = True
        self.max_args = MAX_ARGS

    # -- emission ----------------------------------------------------------
    def emit(self, text):
        self.lines.append("  " * self.indent + text)

    def fresh(self, prefix="v"):
        return self.gen.fresh(prefix)

    def define(self, shape, elem, bound, exact, prefix="v"):
        v = Value(self.fresh(prefix), shape, elem, bound, exact, self.depth)
        self.pool.append(v)
        return v

    def use(self, *vals):
        for v in vals:
            v.uses += 1

    # -- arguments -----------------------------------------------------------
    def new_arg(self, shape, elem, rng_lo=None, rng_hi=None, allow_sharding=True):
        if not self.can_add_args or len(self.args) >= self.max_args:
            return None
        rng = self.gen.rng
        name = "%%arg%d" % len(self.args)
        attrs = []
        bound = 1.0
        if not is_float(elem):
            lo, hi = (rng_lo, rng_hi) if rng_lo is not None else (-8, 8)
            attrs.append("dist.input_range = array<i64: %d, %d>" % (lo, hi))
            bound = max(abs(lo), abs(hi))
        if shape is not None and allow_sharding and rng.chance(0.6):
            s = self.gen.random_sharding(shape, elem, partial_p=0.3)
            attrs.append("dist.sharding = #dist.sharding<%s>" % s)
        v = Value(name, shape, elem, bound, True, 0)
        self.args.append((v, attrs))
        if rng_lo is None:
            self.pool.append(v)
        return v

    # -- lookups -------------------------------------------------------------
    def visible(self, pred):
        return [v for v in self.pool if pred(v)]

    def find(self, shape, elem, exact=False, prefer_new=0.25):
        """A value of this type: from the pool, else a new argument."""
        cands = self.visible(lambda v: v.shape == shape and v.elem == elem and
                             (v.exact or not exact))
        rng = self.gen.rng
        if cands and not (rng.chance(prefer_new) and self.can_add_args and
                          len(self.args) < self.max_args):
            return self.pick_value(cands)
        v = self.new_arg(shape, elem)
        if v is None and cands:
            return self.pick_value(cands)
        return v

    def pick_value(self, cands):
        """Prefer recent and unused values, so that most work reaches a result."""
        rng = self.gen.rng
        unused = [v for v in cands if v.uses == 0]
        if unused and rng.chance(0.6):
            cands = unused
        if rng.chance(0.5):
            return cands[-1 - rng.below(min(3, len(cands)))]
        return rng.pick(cands)

    def any_tensor(self, elem, pred=lambda v: True):
        cands = self.visible(lambda v: v.is_tensor and v.elem == elem and pred(v))
        if not cands:
            shape = self.gen.random_shape()
            v = self.new_arg(shape, elem)
            return v if v is not None and pred(v) else None
        return self.pick_value(cands)


class Generator:
    def __init__(self, seed, steps=False):
        self.seed = seed
        # As a training step: results feed back into arguments of their type
        # (dist.updates); the same program otherwise (no random draws).
        self.steps = steps
        self.rng = Rng(seed)
        self.counter = 0
        rng = self.rng
        self.mesh = rng.pick(MESHES)
        self.axes = AXIS_NAMES[:len(self.mesh)]
        self.elem = rng.weighted([(2, "f32"), (1, "f64"), (1, "i32")])
        self.helpers = []  # Func, each with result_values
        self.features = set()  # what the program exercises (--info, --sample)

    def fresh(self, prefix):
        self.counter += 1
        return "%%%s%d" % (prefix, self.counter)

    # -- shapes and shardings ------------------------------------------------
    def random_shape(self, rank=None):
        rng = self.rng
        if rank is None:
            rank = rng.weighted([(1, 1), (5, 2), (3, 3)])
        while True:
            shape = tuple(rng.pick(DIMS) for _ in range(rank))
            if prod(shape) <= MAX_ELEMS:
                return shape

    def axis_size(self, axis):
        return self.mesh[self.axes.index(axis)]

    def random_sharding(self, shape, elem, partial_p=0.25, halo_p=0.0):
        """A valid sharding of a tensor of this shape, written without prefix.
        With `halo_p`, a split dim sometimes gets a halo or an overlap (and
        the sharding is then not partial)."""
        rng = self.rng
        free = rng.shuffled(self.axes)
        dims = []
        haloed = False
        for d in shape:
            axes = []
            if free and rng.chance(0.45):
                want = 1 if rng.chance(0.75) else 2
                for ax in list(free):
                    if len(axes) >= want:
                        break
                    f = prod(self.axis_size(x) for x in axes) * self.axis_size(ax)
                    if d % f == 0:
                        axes.append(ax)
                        free.remove(ax)
            text = "{%s}" % ", ".join(axes)
            if axes and halo_p and rng.chance(halo_p):
                extra = self.random_halo(d, prod(self.axis_size(x) for x in axes))
                text += extra
                haloed = haloed or bool(extra)
            dims.append(text)
        text = "@mesh, [%s]" % ", ".join(dims)
        if haloed:
            self.features.add("halo")
            return text
        if free and rng.chance(partial_p):
            k = 1 if len(free) == 1 or rng.chance(0.7) else 2
            kinds = FLOAT_KINDS if is_float(elem) else INT_KINDS
            kind = rng.pick(kinds)
            self.features.add("partial-" + kind)
            text += ", partial = %s{%s}" % (kind, ", ".join(free[:k]))
        return text

    def random_halo(self, size, blocks):
        """` halo [lo, hi]` or ` overlap e` for a dim of `size` split into
        `blocks`, or "" when none fits (blocks must be even, a halo at most a
        block)."""
        rng = self.rng
        if rng.chance(0.5):
            block = size // blocks
            lo, hi = rng.below(3), rng.below(3)
            if (lo or hi) and lo <= block and hi <= block:
                return " halo [%d, %d]" % (lo, hi)
            return ""
        e = rng.pick([1, 2, 3])
        if size - e >= blocks and (size - e) % blocks == 0:
            return " overlap %d" % e
        return ""

    # -- program -------------------------------------------------------------
    def generate(self):
        rng = self.rng
        main = Func(self, "main", True)
        n_helpers = rng.weighted([(3, 0), (2, 1), (1, 2)])
        for i in range(n_helpers):
            self.make_helper(i)
        self.body(main, rng.below(10) + 8)
        results = self.pick_results(main, rng.below(3) + 1)
        self.finish(main, results, result_shardings=True)
        out = []
        out.append("// Generated by test/Fuzz/gen_programs.py %d: mesh %s, %s." %
                   (self.seed, "x".join(str(s) for s in self.mesh), self.elem))
        out.append("// Reproduce: build/bin/dist-run FILE --ranks %d --seed %d" %
                   (prod(self.mesh), self.seed))
        out.append("")
        out.append("dist.mesh @mesh [%s]" % ", ".join(
            "%s = %d" % (a, s) for a, s in zip(self.axes, self.mesh)))
        out.append("")
        for h in self.helpers:
            out.extend(h.text)
            out.append("")
        out.extend(main.text)
        return "\n".join(out) + "\n"

    def make_helper(self, index):
        rng = self.rng
        f = Func(self, "helper%d" % index, False)
        f.max_args = 3
        n = rng.below(2) + 1
        for _ in range(n):
            elem = self.elem
            f.new_arg(self.random_shape(), elem)
        f.can_add_args = False
        self.body(f, rng.below(4) + 2, allow_calls=False)
        results = self.pick_results(f, 1 if rng.chance(0.7) else 2)
        self.finish(f, results, result_shardings=True)
        self.helpers.append(f)

    def pick_results(self, f, n):
        cands = [v for v in f.pool if v.is_tensor and v.depth == 0]
        unused = [v for v in cands if v.uses == 0 and not v.name.startswith("%arg")]
        out = []
        for v in reversed(unused):
            if len(out) < n:
                out.append(v)
        if not out:
            out.append(cands[-1] if cands else None)
        return [v for v in out if v is not None]

    @staticmethod
    def pick_updates(f, results):
        """Result index -> the first argument of its type that no other result
        updates (not an index argument: a fed-back value may leave its range)."""
        updates, claimed = {}, set()
        for i, v in enumerate(results):
            for a, (arg, attrs) in enumerate(f.args):
                if (a not in claimed and arg.type == v.type and
                        not any("input_range" in attr for attr in attrs)):
                    updates[i] = a
                    claimed.add(a)
                    break
        return updates

    def finish(self, f, results, result_shardings):
        rng = self.rng
        args = []
        for v, attrs in f.args:
            if attrs:
                args.append("%s: %s {%s}" % (v.name, v.type, ", ".join(attrs)))
            else:
                args.append("%s: %s" % (v.name, v.type))
        updates = self.pick_updates(f, results) if self.steps and f.public else {}
        rtypes = []
        for i, v in enumerate(results):
            attrs = []
            if result_shardings and rng.chance(0.6):
                s = self.random_sharding(v.shape, v.elem, partial_p=0.25)
                attrs.append("dist.sharding = #dist.sharding<%s>" % s)
            if i in updates:
                attrs.append("dist.updates = %d : i64" % updates[i])
            rtypes.append("%s {%s}" % (v.type, ", ".join(attrs)) if attrs else v.type)
        vis = "" if f.public else "private "
        head = "func.func %s@%s(" % (vis, f.name)
        text = [head + ("\n    " if f.public else "") +
                (",\n    " if f.public else ", ").join(args) + ")"]
        text[0] += ("\n    -> (%s) {" % ", ".join(rtypes))
        text.extend(f.lines)
        text.append("  return %s : %s" % (", ".join(v.name for v in results),
                                          ", ".join(v.type for v in results)))
        text.append("}")
        f.text = text
        f.result_values = results

    # -- bodies ----------------------------------------------------------------
    def body(self, f, n_ops, allow_calls=True):
        rng = self.rng
        for _ in range(n_ops):
            for _attempt in range(8):
                op = self.pick_op(f, allow_calls)
                if op(f):
                    self.features.add(op.__name__[3:])
                    break

    def pick_op(self, f, allow_calls):
        rng = self.rng
        flt = is_float(self.elem)
        ops = [
            (6, self.op_elementwise),
            (3, self.op_unary),
            (3, self.op_linalg_named),
            (3, self.op_generic),
            (2, self.op_generic_reduction),
            (4, self.op_matmul),
            (2, self.op_batch_matmul),
            (3, self.op_reduce),
            (2, self.op_transpose),
            (2, self.op_broadcast),
            (3, self.op_extract_slice),
            (2, self.op_insert_slice),
            (2, self.op_reshape),
            (2, self.op_concat),
            (2, self.op_pad),
            (2, self.op_stencil),
            (2, self.op_gather),
            (1, self.op_splat),
            (2, self.op_select),
            (5, self.op_annotate),
        ]
        if flt:
            ops.append((2, self.op_softmax))
            ops.append((1, self.op_from_int))
        if f.depth < 2:
            ops.append((2, self.op_for))
            ops.append((2, self.op_if))
        if allow_calls and self.helpers and f.depth == 0:
            ops.append((3, self.op_call))
        if f.depth < 2:
            # Last, with weights that keep every total below 64: a draw that
            # picked another op before still picks it.
            ops.append((1, self.op_while))
            ops.append((1, self.op_switch))
        return rng.weighted(ops)

    # Helpers that emit common pieces.
    def empty(self, f, shape, elem):
        name = self.fresh("e")
        f.emit("%s = tensor.empty() : %s" % (name, ttype(shape, elem)))
        return name

    def filled(self, f, shape, elem, literal):
        e = self.empty(f, shape, elem)
        c = self.fresh("c")
        f.emit("%s = arith.constant %s : %s" % (c, literal, elem))
        z = self.fresh("z")
        f.emit("%s = linalg.fill ins(%s : %s) outs(%s : %s) -> %s" %
               (z, c, elem, e, ttype(shape, elem), ttype(shape, elem)))
        return z

    def splat_const(self, f, shape, elem, literal):
        c = self.fresh("c")
        f.emit("%s = arith.constant dense<%s> : %s" % (c, literal, ttype(shape, elem)))
        return c

    def index_const(self, f, n):
        c = self.fresh("c")
        f.emit("%s = arith.constant %d : index" % (c, n))
        return c

    def normalize(self, f, v):
        """Keeps a value's bound small: scale floats by 2^-k, mask big ints."""
        if v.shape is None:
            return v
        if is_float(v.elem):
            if v.bound <= F_BOUND:
                return v
            k = 0
            b = v.bound
            while b > 2.0:
                b /= 2.0
                k += 1
            c = self.splat_const(f, v.shape, v.elem, fconst(2.0 ** -k, v.elem))
            n = f.define(v.shape, v.elem, v.bound / 2.0 ** k, v.exact)
            f.emit("%s = arith.mulf %s, %s : %s" % (n.name, v.name, c, v.type))
            f.use(v)
            return n
        if v.bound <= I_BOUND:
            return v
        c = self.splat_const(f, v.shape, v.elem, "255")
        n = f.define(v.shape, v.elem, 255, v.exact)
        f.emit("%s = arith.andi %s, %s : %s" % (n.name, v.name, c, v.type))
        f.use(v)
        return n

    def scale_to(self, f, v, limit):
        """v scaled by a power of two to a bound of at most limit (floats;
        a helper's bounds assume arguments bounded by 1)."""
        if not is_float(v.elem) or v.bound <= limit:
            return v
        k = 0
        while v.bound / 2.0 ** k > limit:
            k += 1
        c = self.splat_const(f, v.shape, v.elem, fconst(2.0 ** -k, v.elem))
        n = f.define(v.shape, v.elem, v.bound / 2.0 ** k, v.exact)
        f.emit("%s = arith.mulf %s, %s : %s" % (n.name, v.name, c, v.type))
        f.use(v)
        return n

    def near_one(self, f, v):
        """1 + v / 8 (floats): values near 1 for products."""
        c8 = self.splat_const(f, v.shape, v.elem, "0.125")
        c1 = self.splat_const(f, v.shape, v.elem, "1.0")
        t = self.fresh("t")
        f.emit("%s = arith.mulf %s, %s : %s" % (t, v.name, c8, v.type))
        n = f.define(v.shape, v.elem, 1.0 + v.bound / 8.0, False)
        f.emit("%s = arith.addf %s, %s : %s" % (n.name, t, c1, v.type))
        f.use(v)
        return n

    # -- ops -------------------------------------------------------------------
    def op_elementwise(self, f):
        rng = self.rng
        elem = self.elem
        a = f.any_tensor(elem)
        if a is None:
            return False
        b = f.find(a.shape, elem)
        if b is None:
            return False
        if is_float(elem):
            op = rng.pick(["addf", "subf", "mulf", "maximumf", "minimumf"])
        else:
            op = rng.pick(["addi", "subi", "muli", "maxsi", "minsi"])
        if op in ("addf", "subf", "addi", "subi"):
            bound = a.bound + b.bound
        elif op in ("mulf", "muli"):
            bound = a.bound * b.bound
        else:
            bound = max(a.bound, b.bound)
        v = f.define(a.shape, elem, bound, a.exact and b.exact)
        f.emit("%s = arith.%s %s, %s : %s" % (v.name, op, a.name, b.name, a.type))
        f.use(a, b)
        self.normalize(f, v)
        return True

    def op_unary(self, f):
        rng = self.rng
        elem = self.elem
        a = f.any_tensor(elem)
        if a is None:
            return False
        if is_float(elem):
            choices = [("arith.negf", a.bound, a.exact), ("math.absf", a.bound, a.exact),
                       ("math.tanh", 1.0, False)]
            if a.bound <= 2.0:
                choices.append(("math.exp", 7.4, False))
            op, bound, exact = rng.pick(choices)
        else:
            op, bound, exact = ("math.absi", a.bound, a.exact)
        v = f.define(a.shape, elem, bound, exact)
        f.emit("%s = %s %s : %s" % (v.name, op, a.name, a.type))
        f.use(a)
        return True

    def op_linalg_named(self, f):
        rng = self.rng
        elem = self.elem
        a = f.any_tensor(elem)
        if a is None:
            return False
        if rng.chance(0.3):
            # linalg.map with a unary body.
            if is_float(elem):
                body, bound, exact = rng.pick([("math.tanh", 1.0, False),
                                               ("math.absf", a.bound, a.exact),
                                               ("arith.negf", a.bound, a.exact)])
            else:
                body, bound, exact = ("math.absi", a.bound, a.exact)
            e = self.empty(f, a.shape, elem)
            v = f.define(a.shape, elem, bound, exact)
            f.emit("%s = linalg.map { %s } ins(%s : %s) outs(%s : %s)" %
                   (v.name, body, a.name, a.type, e, a.type))
            f.use(a)
            return True
        b = f.find(a.shape, elem)
        if b is None:
            return False
        op = rng.pick(["add", "sub", "mul", "max", "min"])
        bound = {"add": a.bound + b.bound, "sub": a.bound + b.bound,
                 "mul": a.bound * b.bound}.get(op, max(a.bound, b.bound))
        e = self.empty(f, a.shape, elem)
        v = f.define(a.shape, elem, bound, a.exact and b.exact)
        f.emit("%s = linalg.%s ins(%s, %s : %s, %s) outs(%s : %s) -> %s" %
               (v.name, op, a.name, b.name, a.type, b.type, e, a.type, a.type))
        f.use(a, b)
        self.normalize(f, v)
        return True

    def op_generic(self, f):
        """An elementwise linalg.generic whose second operand is permuted or
        broadcast, sometimes reading linalg.index."""
        rng = self.rng
        elem = self.elem
        a = f.any_tensor(elem, lambda v: len(v.shape) >= 1)
        if a is None:
            return False
        r = len(a.shape)
        ds = ["d%d" % i for i in range(r)]
        idmap = "affine_map<(%s) -> (%s)>" % (", ".join(ds), ", ".join(ds))
        # Second operand: a permutation or a subset of the loops.
        if rng.chance(0.5):
            perm = rng.shuffled(range(r))
        else:
            keep = sorted(rng.subset(range(r), rng.below(r) + 1))
            perm = keep if rng.chance(0.6) else rng.shuffled(keep)
        bshape = tuple(a.shape[i] for i in perm)
        b = f.find(bshape, elem)
        if b is None:
            return False
        bmap = "affine_map<(%s) -> (%s)>" % (", ".join(ds), ", ".join(ds[i] for i in perm))
        use_index = rng.chance(0.35)
        e = self.empty(f, a.shape, elem)
        flt = is_float(elem)
        op = rng.pick(["add", "sub", "mul", "max"])
        name = {"add": "addf", "sub": "subf", "mul": "mulf", "max": "maximumf"}[op]
        if not flt:
            name = {"add": "addi", "sub": "subi", "mul": "muli", "max": "maxsi"}[op]
        bound = a.bound * b.bound if op == "mul" else a.bound + b.bound
        exact = a.exact and b.exact
        lines = ["^bb0(%%in0: %s, %%in1: %s, %%out: %s):" % (elem, elem, elem),
                 "  %%t = arith.%s %%in0, %%in1 : %s" % (name, elem)]
        res = "%t"
        if use_index:
            d = rng.below(r)
            lines.append("  %%p = linalg.index %d : index" % d)
            lines.append("  %pi = arith.index_cast %p : index to i64")
            if flt:
                lines.append("  %%pf = arith.sitofp %%pi : i64 to %s" % elem)
                lines.append("  %%ps = arith.constant 0.125 : %s" % elem)
                lines.append("  %%pq = arith.mulf %%pf, %%ps : %s" % elem)
                lines.append("  %%u = arith.addf %%t, %%pq : %s" % elem)
                bound += a.shape[d] * 0.125
            else:
                lines.append("  %%pf = arith.trunci %%pi : i64 to %s" % elem)
                lines.append("  %%u = arith.addi %%t, %%pf : %s" % elem)
                bound += a.shape[d]
            res = "%u"
        lines.append("  linalg.yield %s : %s" % (res, elem))
        v = f.define(a.shape, elem, bound, exact)
        f.emit("%s = linalg.generic {indexing_maps = [%s, %s, %s], iterator_types = [%s]} "
               "ins(%s, %s : %s, %s) outs(%s : %s) {" %
               (v.name, idmap, bmap, idmap, ", ".join(['"parallel"'] * r),
                a.name, b.name, a.type, b.type, e, a.type))
        for l in lines:
            f.emit("  " + l)
        f.emit("} -> %s" % a.type)
        f.use(a, b)
        self.normalize(f, v)
        return True

    def op_generic_reduction(self, f):
        """A linalg.generic that reduces one loop (sum or max), with its result
        permuted and sometimes a product of two operands in the body."""
        rng = self.rng
        elem = self.elem
        a = f.any_tensor(elem, lambda v: len(v.shape) >= 2 and
                         min(v.shape) >= 2)
        if a is None:
            return False
        r = len(a.shape)
        red = rng.below(r)
        if a.shape[red] > 16:
            return False
        kind = rng.pick(["sum", "max"] if rng.chance(0.7) else ["min", "sum"])
        ds = ["d%d" % i for i in range(r)]
        par = [i for i in range(r) if i != red]
        outperm = rng.shuffled(par) if rng.chance(0.4) else par
        oshape = tuple(a.shape[i] for i in outperm)
        idmap = "affine_map<(%s) -> (%s)>" % (", ".join(ds), ", ".join(ds))
        omap = "affine_map<(%s) -> (%s)>" % (", ".join(ds), ", ".join(ds[i] for i in outperm))
        iters = ["reduction" if i == red else "parallel" for i in range(r)]
        two = kind == "sum" and rng.chance(0.5)
        b = None
        if two:
            b = f.find(a.shape, elem)
            if b is None:
                two = False
        init = self.filled(f, oshape, elem, identity_literal(kind, elem))
        comb = combiner(kind, elem)
        v_bound = a.bound * (b.bound if two else 1.0)
        if kind == "sum":
            v_bound *= a.shape[red]
        v = f.define(oshape, elem, v_bound, False)
        yield_line = "linalg.yield %%t : %s" % elem
        if two:
            mul = "arith.mulf" if is_float(elem) else "arith.muli"
            emit_generic(f, v, [idmap, idmap, omap], iters,
                         [(a.name, a.type), (b.name, b.type)], init,
                         ["%%in0: %s" % elem, "%%in1: %s" % elem, "%%acc: %s" % elem],
                         ["%%m = %s %%in0, %%in1 : %s" % (mul, elem),
                          "%%t = %s %%acc, %%m : %s" % (comb, elem), yield_line])
            f.use(b)
        else:
            emit_generic(f, v, [idmap, omap], iters, [(a.name, a.type)], init,
                         ["%%in0: %s" % elem, "%%acc: %s" % elem],
                         ["%%t = %s %%acc, %%in0 : %s" % (comb, elem), yield_line])
        f.use(a)
        self.normalize(f, v)
        return True

    def op_matmul(self, f):
        rng = self.rng
        elem = self.elem
        a = f.any_tensor(elem, lambda v: len(v.shape) == 2 and v.shape[1] <= 16)
        if a is None:
            return False
        m, k = a.shape
        n = rng.pick(DIMS)
        transpose_b = rng.chance(0.25)
        bshape = (n, k) if transpose_b else (k, n)
        b = f.find(bshape, elem)
        if b is None:
            return False
        if rng.chance(0.25):
            init = f.find((m, n), elem)  # accumulate into an existing value
            if init is None:
                return False
            f.use(init)
            init_name, init_bound = init.name, init.bound
        else:
            init_name = self.filled(f, (m, n), elem, identity_literal("sum", elem))
            init_bound = 0.0
        v = f.define((m, n), elem, init_bound + k * a.bound * b.bound, False)
        maps = ""
        if transpose_b:
            maps = ("indexing_maps = [affine_map<(m, n, k) -> (m, k)>, "
                    "affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ")
        f.emit("%s = linalg.matmul %sins(%s, %s : %s, %s) outs(%s : %s) -> %s" %
               (v.name, maps, a.name, b.name, a.type, b.type, init_name, v.type, v.type))
        f.use(a, b)
        self.normalize(f, v)
        return True

    def op_batch_matmul(self, f):
        rng = self.rng
        elem = self.elem
        a = f.any_tensor(elem, lambda v: len(v.shape) == 3 and v.shape[2] <= 16)
        if a is None:
            return False
        bt, m, k = a.shape
        n = rng.pick(DIMS[:3])
        b = f.find((bt, k, n), elem)
        if b is None:
            return False
        init = self.filled(f, (bt, m, n), elem, identity_literal("sum", elem))
        v = f.define((bt, m, n), elem, k * a.bound * b.bound, False)
        f.emit("%s = linalg.batch_matmul ins(%s, %s : %s, %s) outs(%s : %s) -> %s" %
               (v.name, a.name, b.name, a.type, b.type, init, v.type, v.type))
        f.use(a, b)
        self.normalize(f, v)
        return True

    def op_reduce(self, f):
        rng = self.rng
        elem = self.elem
        a = f.any_tensor(elem, lambda v: len(v.shape) >= 1)
        if a is None:
            return False
        r = len(a.shape)
        dims = sorted(rng.subset(range(r), 1 if r == 1 or rng.chance(0.7) else 2))
        count = prod(a.shape[d] for d in dims)
        kind = rng.pick(INT_KINDS)
        if is_float(elem) and kind in ("sum", "prod") and count > 16:
            kind = rng.pick(["max", "min"])
        if not is_float(elem) and kind == "prod" and count > 8:
            kind = "max"
        oshape = tuple(a.shape[i] for i in range(r) if i not in dims)
        src = a
        if kind == "prod" and is_float(elem):
            src = self.near_one(f, a)
        # Sometimes accumulate into an existing tensor (an accumulator
        # `outs`); its value takes part in the reduction.
        acc = None
        if kind != "prod" and oshape and rng.chance(0.25):
            acc = f.find(oshape, elem)
        if acc is not None:
            init = acc.name
            f.use(acc)
            base = acc.bound
        else:
            init = self.filled(f, oshape, elem, identity_literal(kind, elem))
            base = 0.0
        if kind == "sum":
            bound = base + count * src.bound
        elif kind == "prod":
            bound = src.bound ** count
        else:
            bound = max(base, src.bound)
        v = f.define(oshape, elem, bound, False if is_float(elem) else src.exact)
        f.emit("%s = linalg.reduce ins(%s : %s) outs(%s : %s) dimensions = [%s]" %
               (v.name, src.name, src.type, init, v.type, ", ".join(str(d) for d in dims)))
        f.emit("  (%%in: %s, %%init: %s) {" % (elem, elem))
        f.emit("    %%r = %s %%in, %%init : %s" % (combiner(kind, elem), elem))
        f.emit("    linalg.yield %%r : %s" % elem)
        f.emit("  }")
        f.use(src)
        self.features.add("reduce-" + kind)
        self.normalize(f, v)
        return True

    def op_transpose(self, f):
        rng = self.rng
        a = f.any_tensor(self.elem, lambda v: len(v.shape) >= 2)
        if a is None:
            return False
        r = len(a.shape)
        perm = rng.shuffled(range(r))
        if perm == list(range(r)):
            perm = perm[1:] + perm[:1]
        shape = tuple(a.shape[p] for p in perm)
        e = self.empty(f, shape, a.elem)
        v = f.define(shape, a.elem, a.bound, a.exact)
        f.emit("%s = linalg.transpose ins(%s : %s) outs(%s : %s) permutation = [%s]" %
               (v.name, a.name, a.type, e, v.type, ", ".join(str(p) for p in perm)))
        f.use(a)
        return True

    def op_broadcast(self, f):
        rng = self.rng
        a = f.any_tensor(self.elem, lambda v: len(v.shape) <= 2 and prod(v.shape) <= 128)
        if a is None:
            return False
        r = len(a.shape) + 1
        d = rng.below(r)
        shape = list(a.shape)
        shape.insert(d, rng.pick(DIMS[:3]))
        shape = tuple(shape)
        e = self.empty(f, shape, a.elem)
        v = f.define(shape, a.elem, a.bound, a.exact)
        f.emit("%s = linalg.broadcast ins(%s : %s) outs(%s : %s) dimensions = [%d]" %
               (v.name, a.name, a.type, e, v.type, d))
        f.use(a)
        return True

    def random_window(self, shape, allow_stride=True):
        rng = self.rng
        offs, sizes, strides = [], [], []
        for d in shape:
            if rng.chance(0.4):
                offs.append(0), sizes.append(d), strides.append(1)
                continue
            stride = 2 if allow_stride and d >= 4 and rng.chance(0.15) else 1
            size = rng.pick([s for s in (1, 2, 4, 8) if (s - 1) * stride + 1 <= d])
            off = rng.below(d - (size - 1) * stride)
            offs.append(off), sizes.append(size), strides.append(stride)
        return offs, sizes, strides

    def op_extract_slice(self, f):
        rng = self.rng
        a = f.any_tensor(self.elem)
        if a is None:
            return False
        offs, sizes, strides = self.random_window(a.shape)
        rshape = list(sizes)
        if 1 in sizes and rng.chance(0.5) and len(sizes) > 1 and set(strides) == {1}:
            # Rank-reducing: drop one unit dim. Not with strides: MLIR 22's
            # expand-strided-metadata runs out of memory on a rank-reducing
            # strided memref.subview (memref::SubViewOp::getDroppedDims).
            rshape.pop(sizes.index(1))
        v = f.define(tuple(rshape), a.elem, a.bound, a.exact)
        f.emit("%s = tensor.extract_slice %s[%s] [%s] [%s] : %s to %s" %
               (v.name, a.name, ", ".join(map(str, offs)), ", ".join(map(str, sizes)),
                ", ".join(map(str, strides)), a.type, v.type))
        f.use(a)
        return True

    def op_insert_slice(self, f):
        rng = self.rng
        dest = f.any_tensor(self.elem)
        if dest is None:
            return False
        offs, sizes, strides = self.random_window(dest.shape)
        sshape = tuple(sizes)
        src = f.find(sshape, dest.elem)
        if src is None:
            return False
        v = f.define(dest.shape, dest.elem, max(dest.bound, src.bound),
                     dest.exact and src.exact)
        f.emit("%s = tensor.insert_slice %s into %s[%s] [%s] [%s] : %s into %s" %
               (v.name, src.name, dest.name, ", ".join(map(str, offs)),
                ", ".join(map(str, sizes)), ", ".join(map(str, strides)), src.type,
                dest.type))
        f.use(src, dest)
        return True

    def op_reshape(self, f):
        rng = self.rng
        a = f.any_tensor(self.elem)
        if a is None:
            return False
        r = len(a.shape)
        if r >= 2 and (r >= 3 or rng.chance(0.5)):
            i = rng.below(r - 1)
            groups = []
            j = 0
            while j < r:
                if j == i:
                    groups.append([j, j + 1])
                    j += 2
                else:
                    groups.append([j])
                    j += 1
            shape = tuple(prod(a.shape[k] for k in g) for g in groups)
            v = f.define(shape, a.elem, a.bound, a.exact)
            f.emit("%s = tensor.collapse_shape %s [%s] : %s into %s" %
                   (v.name, a.name, ", ".join("[%s]" % ", ".join(map(str, g)) for g in groups),
                    a.type, v.type))
        else:
            def factors(n):
                return [x for x in (2, 4) if n % x == 0 and n > x]
            splittable = [k for k in range(r) if factors(a.shape[k])]
            if not splittable or r >= 4:
                return False
            i = rng.pick(splittable)
            p = rng.pick(factors(a.shape[i]))
            shape = list(a.shape)
            shape[i:i + 1] = [p, a.shape[i] // p] if rng.chance(0.5) else [a.shape[i] // p, p]
            groups = []
            k = 0
            for j in range(r):
                if j == i:
                    groups.append([k, k + 1])
                    k += 2
                else:
                    groups.append([k])
                    k += 1
            v = f.define(tuple(shape), a.elem, a.bound, a.exact)
            f.emit("%s = tensor.expand_shape %s [%s] output_shape [%s] : %s into %s" %
                   (v.name, a.name, ", ".join("[%s]" % ", ".join(map(str, g)) for g in groups),
                    ", ".join(map(str, shape)), a.type, v.type))
        f.use(a)
        return True

    def op_concat(self, f):
        rng = self.rng
        a = f.any_tensor(self.elem, lambda v: len(v.shape) >= 1 and prod(v.shape) <= 512)
        if a is None:
            return False
        d = rng.below(len(a.shape))
        bshape = list(a.shape)
        bshape[d] = rng.pick([x for x in DIMS if x <= 8])
        b = f.find(tuple(bshape), a.elem)
        if b is None:
            return False
        shape = list(a.shape)
        shape[d] += b.shape[d]
        v = f.define(tuple(shape), a.elem, max(a.bound, b.bound), a.exact and b.exact)
        f.emit("%s = tensor.concat dim(%d) %s, %s : (%s, %s) -> %s" %
               (v.name, d, a.name, b.name, a.type, b.type, v.type))
        f.use(a, b)
        return True

    def op_pad(self, f):
        rng = self.rng
        a = f.any_tensor(self.elem, lambda v: len(v.shape) >= 1 and prod(v.shape) <= 256)
        if a is None:
            return False
        lows, highs = [], []
        for d in a.shape:
            if rng.chance(0.5):
                lows.append(rng.pick([0, 1, 2, 4]))
                highs.append(rng.pick([0, 2, 4]))
            else:
                lows.append(0)
                highs.append(0)
        if not any(lows) and not any(highs):
            highs[-1] = 4
        shape = tuple(d + l + h for d, l, h in zip(a.shape, lows, highs))
        padv = rng.pick(["0.0", "1.0", "-0.5"]) if is_float(a.elem) else rng.pick(["0", "1", "-3"])
        c = self.fresh("c")
        f.emit("%s = arith.constant %s : %s" % (c, padv, a.elem))
        v = f.define(shape, a.elem, max(a.bound, 1.0), a.exact)
        f.emit("%s = tensor.pad %s low[%s] high[%s] {" %
               (v.name, a.name, ", ".join(map(str, lows)), ", ".join(map(str, highs))))
        f.emit("^bb0(%s):" % ", ".join("%%i%d: index" % i for i in range(len(a.shape))))
        f.emit("  tensor.yield %s : %s" % (c, a.elem))
        f.emit("} : %s to %s" % (a.type, v.type))
        f.use(a)
        return True

    def op_stencil(self, f):
        """A sliding window along one dim (a convolution: out[.., i, ..] =
        sum_k w[k] * in[.., i + k, ..]), half the time on the input padded
        with zeros so that the output keeps its shape (a "same" stencil,
        which partitions with a halo exchange)."""
        rng = self.rng
        elem = self.elem
        a = f.any_tensor(elem, lambda v: len(v.shape) >= 1 and max(v.shape) >= 4
                         and prod(v.shape) <= 512)
        if a is None:
            return False
        d = rng.pick([i for i, n in enumerate(a.shape) if n >= 4])
        window = rng.pick([2, 3, 5])
        flt = is_float(elem)
        src = a
        if rng.chance(0.5):
            lo = rng.below(window)
            shape = list(a.shape)
            shape[d] += window - 1
            lows = ["0"] * len(shape)
            highs = ["0"] * len(shape)
            lows[d], highs[d] = str(lo), str(window - 1 - lo)
            c = self.fresh("c")
            f.emit("%s = arith.constant %s : %s" % (c, "0.0" if flt else "0", elem))
            src = f.define(tuple(shape), elem, a.bound, a.exact)
            f.emit("%s = tensor.pad %s low[%s] high[%s] {" %
                   (src.name, a.name, ", ".join(lows), ", ".join(highs)))
            f.emit("^bb0(%s):" % ", ".join("%%i%d: index" % i for i in range(len(shape))))
            f.emit("  tensor.yield %s : %s" % (c, elem))
            f.emit("} : %s to %s" % (a.type, src.type))
        elif a.shape[d] < window:
            return False
        out = list(src.shape)
        out[d] -= window - 1
        weights = [rng.pick([-2, -1, 1, 2]) for _ in range(window)]
        literal = ", ".join(("%d.0" if flt else "%d") % w for w in weights)
        wname = self.fresh("w")
        f.emit("%s = arith.constant dense<[%s]> : %s" % (wname, literal, ttype((window,), elem)))
        init = self.filled(f, tuple(out), elem, "0.0" if flt else "0")
        r = len(out)
        loops = ["d%d" % i for i in range(r + 1)]
        inputs = [("d%d + d%d" % (i, r)) if i == d else "d%d" % i for i in range(r)]
        imap = "affine_map<(%s) -> (%s)>" % (", ".join(loops), ", ".join(inputs))
        wmap = "affine_map<(%s) -> (d%d)>" % (", ".join(loops), r)
        omap = "affine_map<(%s) -> (%s)>" % (", ".join(loops), ", ".join(loops[:r]))
        mul, add = ("mulf", "addf") if flt else ("muli", "addi")
        v = f.define(tuple(out), elem, src.bound * 2 * window, src.exact)
        emit_generic(f, v, [imap, wmap, omap], ["parallel"] * r + ["reduction"],
                     [(src.name, src.type), (wname, ttype((window,), elem))], init,
                     ["%%in: %s" % elem, "%%w: %s" % elem, "%%out: %s" % elem],
                     ["%%t = arith.%s %%in, %%w : %s" % (mul, elem),
                      "%%s = arith.%s %%out, %%t : %s" % (add, elem),
                      "linalg.yield %%s : %s" % elem])
        f.use(a)
        self.normalize(f, v)
        return True

    def op_gather(self, f):
        """An embedding lookup: rows of a table at indices from an argument
        with an input range."""
        rng = self.rng
        table = f.any_tensor(self.elem, lambda v: len(v.shape) in (2, 3) and v.shape[0] >= 4)
        if table is None:
            return False
        if not f.can_add_args or len(f.args) >= f.max_args:
            return False
        n = rng.pick([2, 4, 8])
        ids = f.new_arg((n, 1), "i32", 0, table.shape[0],
                        allow_sharding=rng.chance(0.5))
        if ids is None:
            return False
        shape = (n,) + tuple(table.shape[1:])
        v = f.define(shape, table.elem, table.bound, table.exact)
        f.emit("%s = tensor.gather %s[%s] gather_dims([0]) : (%s, %s) -> %s" %
               (v.name, table.name, ids.name, table.type, ttype((n, 1), "i32"), v.type))
        f.use(table)
        return True

    def op_splat(self, f):
        """tensor.extract of one element, then tensor.splat to a new shape."""
        rng = self.rng
        a = f.any_tensor(self.elem)
        if a is None:
            return False
        idx = [self.index_const(f, rng.below(d)) for d in a.shape]
        s = self.fresh("s")
        f.emit("%s = tensor.extract %s[%s] : %s" % (s, a.name, ", ".join(idx), a.type))
        shape = self.random_shape()
        v = f.define(shape, a.elem, a.bound, a.exact)
        f.emit("%s = tensor.splat %s : %s" % (v.name, s, v.type))
        f.use(a)
        return True

    def op_select(self, f):
        """arith.select on an elementwise comparison of exact values."""
        rng = self.rng
        elem = self.elem
        x = f.any_tensor(elem, lambda v: v.exact)
        if x is None:
            return False
        y = f.find(x.shape, elem, exact=True)
        if y is None or not y.exact:
            return False
        a = f.find(x.shape, elem)
        b = f.find(x.shape, elem)
        if a is None or b is None:
            return False
        m = self.fresh("m")
        i1 = ttype(x.shape, "i1")
        if is_float(elem):
            f.emit("%s = arith.cmpf %s, %s, %s : %s" % (m, rng.pick(["olt", "ogt", "oge"]),
                                                        x.name, y.name, x.type))
        else:
            f.emit("%s = arith.cmpi %s, %s, %s : %s" % (m, rng.pick(["slt", "sgt", "sge"]),
                                                        x.name, y.name, x.type))
        v = f.define(x.shape, elem, max(a.bound, b.bound), a.exact and b.exact)
        f.emit("%s = arith.select %s, %s, %s : %s, %s" % (v.name, m, a.name, b.name, i1, a.type))
        f.use(x, y, a, b)
        return True

    def op_softmax(self, f):
        rng = self.rng
        a = f.any_tensor(self.elem, lambda v: len(v.shape) >= 1)
        if a is None:
            return False
        if a.bound > 8.0:
            return False
        d = rng.below(len(a.shape))
        e = self.empty(f, a.shape, a.elem)
        v = f.define(a.shape, a.elem, 1.0, False)
        f.emit("%s = linalg.softmax dimension(%d) ins(%s : %s) outs(%s : %s) -> %s" %
               (v.name, d, a.name, a.type, e, a.type, a.type))
        f.use(a)
        return True

    def op_from_int(self, f):
        """An i32 argument converted to the program's float type."""
        shape = self.random_shape()
        a = f.find(shape, "i32")
        if a is None:
            return False
        v = f.define(shape, self.elem, 8.0, a.exact)
        f.emit("%s = arith.sitofp %s : %s to %s" % (v.name, a.name, a.type, v.type))
        f.use(a)
        return True

    def op_annotate(self, f):
        rng = self.rng
        a = f.any_tensor(self.elem, lambda v: len(v.shape) >= 1 or rng.chance(0.2))
        if a is None:
            return False
        s = self.random_sharding(a.shape, a.elem, partial_p=0.3, halo_p=0.3)
        exact = a.exact and "partial = sum" not in s and "partial = avg" not in s
        v = f.define(a.shape, a.elem, a.bound, exact)
        f.emit("%s = dist.annotate %s as <%s> : %s" % (v.name, a.name, s, a.type))
        f.use(a)
        return True

    def region_body(self, f, n_ops):
        """Emits n_ops random ops one level deeper; returns the values they
        defined, which go out of scope afterwards."""
        f.depth += 1
        f.indent += 1
        mark = len(f.pool)
        self.body(f, n_ops, allow_calls=False)
        inner = f.pool[mark:]
        return mark, inner

    def close_region(self, f, mark):
        del f.pool[mark:]
        f.depth -= 1
        f.indent -= 1

    def row_accumulator(self, f, mode, matmul_mode, src, row_shape, elem):
        """The accumulator of a loop that combines rows of `src`: for
        `matmul_mode`, row @ weight (micro-batches: partial accumulators), or
        "add" when no weight fits; for "insert", rows put back into `src`'s
        shape; otherwise the row shape. Returns (mode, weight, shape)."""
        weight = None
        if mode == matmul_mode:
            if len(row_shape) == 2 and row_shape[1] <= 16:
                weight = f.find((row_shape[1], self.rng.pick(DIMS[:3])), elem)
            if weight is None:
                mode = "add"
        if mode == "insert":
            return mode, weight, src.shape
        if mode == matmul_mode:
            return mode, weight, (row_shape[0], weight.shape[1])
        return mode, weight, row_shape

    def op_for(self, f):
        """scf.for with a tensor accumulator; the body slices a loop-indexed
        row of a tensor and combines it into the accumulator."""
        rng = self.rng
        elem = self.elem
        # The sliced tensor: its dim 0 is the trip count (at most 4 iterations).
        src = f.any_tensor(elem, lambda v: len(v.shape) >= 2 and 2 <= v.shape[0] <= 8)
        if src is None:
            return False
        trips = src.shape[0]
        row_shape = tuple(src.shape[1:])
        dyn = None
        if f.can_add_args and len(f.args) < f.max_args and rng.chance(0.25):
            dyn = f.new_arg(None, "index", 1, trips + 1)
        c0 = self.index_const(f, 0)
        c1 = self.index_const(f, 1)
        ub = dyn.name if dyn is not None else self.index_const(f, trips)
        # Accumulator: the row shape (combine) or the source shape (insert rows).
        mode = rng.pick(["add", "max", "mul", "tanh_add", "insert", "matmul"])
        if is_float(elem) is False and mode in ("tanh_add",):
            mode = "add"
        mode, weight, acc_shape = self.row_accumulator(f, mode, "matmul", src,
                                                       row_shape, elem)
        if rng.chance(0.5):
            init = self.filled(f, acc_shape, elem,
                               identity_literal("prod" if mode == "mul" else "sum", elem))
            init_bound = 1.0
        else:
            iv = f.find(acc_shape, elem)
            if iv is None:
                return False
            init, init_bound = iv.name, iv.bound
            f.use(iv)
        res = f.define(acc_shape, elem, 0.0, False)
        f.pool.pop()  # defined after the body
        i = self.fresh("i")
        acc = self.fresh("acc")
        f.emit("%s = scf.for %s = %s to %s step %s iter_args(%s = %s) -> (%s) {" %
               (res.name, i, c0, ub, c1, acc, init, res.type))
        f.depth += 1
        f.indent += 1
        mark = len(f.pool)
        row = f.define(row_shape, elem, src.bound, src.exact, prefix="s")
        sizes = [1] + list(row_shape)
        zeros = ", ".join(["0"] * (len(row_shape)))
        f.emit("%s = tensor.extract_slice %s[%s, %s] [%s] [%s] : %s to %s" %
               (row.name, src.name, i, zeros, ", ".join(map(str, sizes)),
                ", ".join(["1"] * len(sizes)), src.type, row.type))
        f.use(src)
        accv = Value(acc, acc_shape, elem, init_bound, False, f.depth)
        self.body(f, rng.below(3) + 1, allow_calls=False)
        # Combine: something of the row shape with the accumulator.
        mine = [v for v in f.pool[mark:] if v.shape == row_shape and v.elem == elem]
        t = mine[-1] if mine and rng.chance(0.8) else row
        f.use(t)
        nxt = self.fresh("n")
        t_bound = t.bound
        if mode == "matmul":
            z = self.filled(f, acc_shape, elem, identity_literal("sum", elem))
            mm = self.fresh("mm")
            f.emit("%s = linalg.matmul ins(%s, %s : %s, %s) outs(%s : %s) -> %s" %
                   (mm, t.name, weight.name, t.type, weight.type, z, res.type, res.type))
            op = "arith.addf" if is_float(elem) else "arith.addi"
            f.emit("%s = %s %s, %s : %s" % (nxt, op, acc, mm, res.type))
            f.use(weight)
            bound = init_bound + trips * row_shape[1] * t_bound * weight.bound
        elif mode == "insert":
            f.emit("%s = tensor.insert_slice %s into %s[%s, %s] [%s] [%s] : %s into %s" %
                   (nxt, t.name, acc, i, zeros, ", ".join(map(str, sizes)),
                    ", ".join(["1"] * len(sizes)), t.type, res.type))
            bound = max(init_bound, t_bound)
        elif mode == "add":
            op = "arith.addf" if is_float(elem) else "arith.addi"
            f.emit("%s = %s %s, %s : %s" % (nxt, op, acc, t.name, res.type))
            bound = init_bound + trips * t_bound
        elif mode == "max":
            op = "arith.maximumf" if is_float(elem) else "arith.maxsi"
            f.emit("%s = %s %s, %s : %s" % (nxt, op, acc, t.name, res.type))
            bound = max(init_bound, t_bound)
        elif mode == "mul":
            if is_float(elem):
                # acc * tanh(t): stays bounded by the init's bound.
                th = self.fresh("th")
                f.emit("%s = math.tanh %s : %s" % (th, t.name, res.type))
                f.emit("%s = arith.mulf %s, %s : %s" % (nxt, acc, th, res.type))
                bound = init_bound
            else:
                c = self.splat_const(f, acc_shape, elem, "3")
                m = self.fresh("mk")
                f.emit("%s = arith.andi %s, %s : %s" % (m, t.name, c, res.type))
                f.emit("%s = arith.muli %s, %s : %s" % (nxt, acc, m, res.type))
                bound = init_bound * 3 ** trips
        else:  # tanh_add
            th = self.fresh("th")
            f.emit("%s = math.tanh %s : %s" % (th, acc, res.type))
            f.emit("%s = arith.addf %s, %s : %s" % (nxt, th, t.name, res.type))
            bound = 1.0 + t_bound
        if rng.chance(0.25):
            s = self.random_sharding(acc_shape, elem, partial_p=0.3)
            ann = self.fresh("y")
            f.emit("%s = dist.annotate %s as <%s> : %s" % (ann, nxt, s, res.type))
            nxt = ann
        f.emit("scf.yield %s : %s" % (nxt, res.type))
        self.close_region(f, mark)
        f.emit("}")
        res.bound = bound
        res.exact = not is_float(elem) and src.exact
        f.pool.append(res)
        self.features.add("for-" + mode)
        self.normalize(f, res)
        return True

    def condition(self, f):
        """An i1 from exact scalars: an argument compared with 0, or an
        element of an exact tensor."""
        rng = self.rng
        elem = self.elem
        if rng.chance(0.6):
            s = f.find(None, elem, exact=True)
            if s is None:
                return None
            sname = s.name
        else:
            t = f.any_tensor(elem, lambda v: v.exact)
            if t is None:
                return None
            idx = [self.index_const(f, rng.below(d)) for d in t.shape]
            sname = self.fresh("s")
            f.emit("%s = tensor.extract %s[%s] : %s" % (sname, t.name, ", ".join(idx), t.type))
            s = t
        f.use(s)
        zero = self.fresh("c")
        cond = self.fresh("cond")
        if is_float(elem):
            f.emit("%s = arith.constant 0.0 : %s" % (zero, elem))
            f.emit("%s = arith.cmpf ogt, %s, %s : %s" % (cond, sname, zero, elem))
        else:
            f.emit("%s = arith.constant 0 : %s" % (zero, elem))
            f.emit("%s = arith.cmpi slt, %s, %s : %s" % (cond, sname, zero, elem))
        return cond

    def branch_regions(self, f, res, target, elem, openers, closers):
        """The regions of a branch op (scf.if, scf.index_switch): each region
        computes values of its own and yields one of `res`'s type; the first
        yields what it computed (or `target`) and so fixes the shape. Each
        region is preceded by its opener line and followed by its closer (None:
        no line). Returns the yields' bounds and whether all are exact."""
        rng = self.rng
        bounds = []
        exact = True
        for r, (opener, closer) in enumerate(zip(openers, closers)):
            if opener:
                f.emit(opener)
            mark, inner = self.region_body(f, rng.below(3) + 1)
            if r == 0:
                # Yield what the region computed, most of the time.
                mine = [v for v in inner if v.is_tensor and v.elem == elem]
                if mine and rng.chance(0.8):
                    target = mine[-1]
                y = target
                res.shape = target.shape
            else:
                mine = [v for v in inner if v.shape == res.shape and v.elem == elem]
                if mine and rng.chance(0.8):
                    y = mine[-1]
                else:
                    # The other regions' values are out of scope here.
                    y = f.find(res.shape, elem, prefer_new=0.0)
                    if y is None:
                        z = self.filled(f, res.shape, elem, "1" if elem == "i32" else "0.5")
                        y = Value(z, res.shape, elem, 1.0, True, f.depth)
            f.use(y)
            bounds.append(y.bound)
            exact = exact and y.exact
            name = y.name
            if rng.chance(0.25):
                s = self.random_sharding(y.shape, elem, partial_p=0.3)
                name = self.fresh("y")
                f.emit("%s = dist.annotate %s as <%s> : %s" % (name, y.name, s, y.type))
                if "partial = sum" in s or "partial = avg" in s:
                    exact = False
            f.emit("scf.yield %s : %s" % (name, y.type))
            self.close_region(f, mark)
            if closer:
                f.emit(closer)
        return bounds, exact

    def op_if(self, f):
        rng = self.rng
        elem = self.elem
        target = f.any_tensor(elem)
        if target is None:
            return False
        cond = self.condition(f)
        if cond is None:
            return False
        res = Value(self.fresh("v"), None, elem, 0.0, False, f.depth)
        head = len(f.lines)
        f.emit("")  # the scf.if line, once its type is known
        bounds, exact = self.branch_regions(f, res, target, elem,
                                            [None, "} else {"], [None, "}"])
        f.lines[head] = "  " * f.indent + "%s = scf.if %s -> (%s) {" % (res.name, cond, res.type)
        res.bound = max(bounds)
        res.exact = exact
        f.pool.append(res)
        return True

    def op_while(self, f):
        """scf.while with an index counter (a constant trip count of 1 to 4)
        and one or two tensors carried. The `after` region works like
        op_for's body: it slices a loop-indexed row of a tensor and combines
        it into the first tensor, or adds a matmul to it (micro-batches:
        partial accumulators); the second tensor, when there is one, is
        carried unchanged or accumulates a value of its shape. The `before`
        region computes the condition from the counter alone, in one of a few
        ways, and sometimes transforms the first tensor before forwarding it
        (the loop's result is then that transform of the last value)."""
        rng = self.rng
        elem = self.elem
        flt = is_float(elem)
        mode = rng.pick(["add", "max", "tanh_add", "insert", "matmul", "matmul_row"])
        if not flt and mode == "tanh_add":
            mode = "add"
        src = weight = None
        if mode == "matmul":
            # Every iteration adds t @ b, t of a's shape (a, or a value the
            # body computed from it).
            src = f.any_tensor(elem, lambda v: len(v.shape) == 2 and v.shape[1] <= 16)
            if src is None:
                return False
            weight = f.find((src.shape[1], rng.pick(DIMS[:3])), elem)
            if weight is None:
                return False
            trips = rng.below(4) + 1
            row_shape = src.shape
            acc_shape = (src.shape[0], weight.shape[1])
        else:
            src = f.any_tensor(elem, lambda v: len(v.shape) >= 2 and v.shape[0] >= 2)
            if src is None:
                return False
            trips = rng.below(min(4, src.shape[0])) + 1
            row_shape = tuple(src.shape[1:])
            mode, weight, acc_shape = self.row_accumulator(
                f, mode, "matmul_row", src, row_shape, elem)
        sliced = mode != "matmul"
        # The first carried tensor.
        if rng.chance(0.5):
            init = self.filled(f, acc_shape, elem, identity_literal("sum", elem))
            init_bound, init_exact = 1.0, True
        else:
            iv = f.find(acc_shape, elem)
            if iv is None:
                return False
            init, init_bound, init_exact = iv.name, iv.bound, iv.exact
            f.use(iv)
        # The second one, sometimes.
        second = None
        if rng.chance(0.4):
            v2 = f.any_tensor(elem)
            if v2 is not None:
                second = (v2, rng.pick(["keep", "add", "max"]))
                f.use(v2)
        down = rng.chance(0.35)
        c0 = self.index_const(f, 0)
        c1 = self.index_const(f, 1)
        cn = self.index_const(f, trips)
        counter_last = rng.chance(0.3)
        # Before-region transform of the first tensor.
        pre = None
        if rng.chance(0.25):
            pre = rng.pick(["negf", "tanh", "annotate"] if flt else ["annotate"])
        acc_type = ttype(acc_shape, elem)
        i = self.fresh("i")
        acc = self.fresh("acc")
        before = [(i, "index", cn if down else c0), (acc, acc_type, init)]
        if second is not None:
            acc2 = self.fresh("acc")
            before.append((acc2, second[0].type, second[0].name))
        if counter_last:
            before = before[1:] + before[:1]
        res_i = self.fresh("wi")
        res = f.define(acc_shape, elem, 0.0, False, prefix="w")
        f.pool.pop()  # defined after the loop
        res2 = None
        if second is not None:
            res2 = f.define(second[0].shape, elem, 0.0, False, prefix="w")
            f.pool.pop()
        results = {i: res_i, acc: res.name}
        if second is not None:
            results[acc2] = res2.name
        types = ", ".join(t for _, t, _ in before)
        f.emit("%s = scf.while (%s) : (%s) -> (%s) {" %
               (", ".join(results[n] for n, _, _ in before),
                ", ".join("%s = %s" % (n, v) for n, _, v in before), types, types))
        f.indent += 1
        # The condition, from the counter alone.
        go = self.fresh("go")
        how = rng.below(3)
        if not down:
            if how == 0:
                f.emit("%s = arith.cmpi slt, %s, %s : index" % (go, i, cn))
            elif how == 1:
                i1 = self.fresh("i")
                f.emit("%s = arith.addi %s, %s : index" % (i1, i, c1))
                f.emit("%s = arith.cmpi sle, %s, %s : index" % (go, i1, cn))
            else:
                ii = self.fresh("i")
                n64 = self.fresh("c")
                f.emit("%s = arith.index_cast %s : index to i64" % (ii, i))
                f.emit("%s = arith.constant %d : i64" % (n64, trips))
                f.emit("%s = arith.cmpi sgt, %s, %s : i64" % (go, n64, ii))
        else:
            if how == 0:
                f.emit("%s = arith.cmpi sgt, %s, %s : index" % (go, i, c0))
            elif how == 1:
                f.emit("%s = arith.cmpi ne, %s, %s : index" % (go, i, c0))
            else:
                ii = self.fresh("i")
                one = self.fresh("c")
                f.emit("%s = arith.index_cast %s : index to i32" % (ii, i))
                f.emit("%s = arith.constant 1 : i32" % one)
                f.emit("%s = arith.cmpi sge, %s, %s : i32" % (go, ii, one))
        fwd = acc
        pre_partial = False
        if pre is not None:
            fwd = self.fresh("p")
            if pre == "negf":
                f.emit("%s = arith.negf %s : %s" % (fwd, acc, acc_type))
            elif pre == "tanh":
                f.emit("%s = math.tanh %s : %s" % (fwd, acc, acc_type))
            else:
                s = self.random_sharding(acc_shape, elem, partial_p=0.3)
                pre_partial = "partial = sum" in s or "partial = avg" in s
                f.emit("%s = dist.annotate %s as <%s> : %s" % (fwd, acc, s, acc_type))
        fwd_names = {i: i, acc: fwd}
        if second is not None:
            fwd_names[acc2] = acc2
        f.emit("scf.condition(%s) %s : %s" %
               (go, ", ".join(fwd_names[n] for n, _, _ in before), types))
        f.indent -= 1
        f.emit("} do {")
        # The after region.
        j = self.fresh("j")
        cur = self.fresh("cur")
        cur2 = self.fresh("cur") if second is not None else None
        after_names = {i: j, acc: cur}
        if second is not None:
            after_names[acc2] = cur2
        f.emit("^bb0(%s):" % ", ".join("%s: %s" % (after_names[n], t) for n, t, _ in before))
        f.depth += 1
        f.indent += 1
        mark = len(f.pool)
        if down:
            k = self.fresh("k")
            f.emit("%s = arith.subi %s, %s : index" % (k, j, c1))
        else:
            k = j
        if sliced:
            row = f.define(row_shape, elem, src.bound, src.exact, prefix="s")
            sizes = [1] + list(row_shape)
            zeros = ", ".join(["0"] * len(row_shape))
            f.emit("%s = tensor.extract_slice %s[%s, %s] [%s] [%s] : %s to %s" %
                   (row.name, src.name, k, zeros, ", ".join(map(str, sizes)),
                    ", ".join(["1"] * len(sizes)), src.type, row.type))
        else:
            row = src
        f.use(src)
        self.body(f, rng.below(3) + 1, allow_calls=False)
        mine = [v for v in f.pool[mark:] if v.shape == row_shape and v.elem == elem]
        t = mine[-1] if mine and rng.chance(0.8) else row
        f.use(t)
        nxt = self.fresh("n")
        add = "arith.addf" if flt else "arith.addi"
        if mode in ("matmul", "matmul_row"):
            z = self.filled(f, acc_shape, elem, identity_literal("sum", elem))
            mm = self.fresh("mm")
            f.emit("%s = linalg.matmul ins(%s, %s : %s, %s) outs(%s : %s) -> %s" %
                   (mm, t.name, weight.name, t.type, weight.type, z, acc_type, acc_type))
            f.emit("%s = %s %s, %s : %s" % (nxt, add, cur, mm, acc_type))
            f.use(weight)
            bound = init_bound + trips * t.shape[1] * t.bound * weight.bound
        elif mode == "insert":
            f.emit("%s = tensor.insert_slice %s into %s[%s, %s] [%s] [%s] : %s into %s" %
                   (nxt, t.name, cur, k, zeros, ", ".join(map(str, sizes)),
                    ", ".join(["1"] * len(sizes)), t.type, acc_type))
            bound = max(init_bound, t.bound)
        elif mode == "add":
            f.emit("%s = %s %s, %s : %s" % (nxt, add, cur, t.name, acc_type))
            bound = init_bound + trips * t.bound
        elif mode == "max":
            op = "arith.maximumf" if flt else "arith.maxsi"
            f.emit("%s = %s %s, %s : %s" % (nxt, op, cur, t.name, acc_type))
            bound = max(init_bound, t.bound)
        else:  # tanh_add
            th = self.fresh("th")
            f.emit("%s = math.tanh %s : %s" % (th, cur, acc_type))
            f.emit("%s = arith.addf %s, %s : %s" % (nxt, th, t.name, acc_type))
            bound = max(init_bound, 1.0 + t.bound)
        exact = not flt and src.exact and init_exact and t.exact and \
            (weight is None or weight.exact)
        if rng.chance(0.25):
            s = self.random_sharding(acc_shape, elem, partial_p=0.3)
            ann = self.fresh("y")
            f.emit("%s = dist.annotate %s as <%s> : %s" % (ann, nxt, s, acc_type))
            nxt = ann
        if pre == "tanh":
            bound = 1.0
        elif pre == "annotate" and pre_partial:
            exact = False
        nxt_names = {i: k if down else self.fresh("i"), acc: nxt}
        if not down:
            f.emit("%s = arith.addi %s, %s : index" % (nxt_names[i], j, c1))
        if second is not None:
            v2, how2 = second
            if how2 == "keep":
                nxt_names[acc2] = cur2
                bound2, exact2 = v2.bound, v2.exact
            else:
                cands = [v for v in f.pool[mark:] if v.shape == v2.shape and v.elem == elem]
                u = cands[-1] if cands and rng.chance(0.8) else f.find(v2.shape, elem)
                if u is None:
                    nxt_names[acc2] = cur2
                    bound2, exact2 = v2.bound, v2.exact
                else:
                    f.use(u)
                    n2 = self.fresh("n")
                    if how2 == "add":
                        f.emit("%s = %s %s, %s : %s" % (n2, add, cur2, u.name, v2.type))
                        bound2 = v2.bound + trips * u.bound
                    else:
                        op = "arith.maximumf" if flt else "arith.maxsi"
                        f.emit("%s = %s %s, %s : %s" % (n2, op, cur2, u.name, v2.type))
                        bound2 = max(v2.bound, u.bound)
                    exact2 = v2.exact and u.exact and (not flt or how2 == "max")
                    nxt_names[acc2] = n2
            res2.bound, res2.exact = bound2, exact2
        f.emit("scf.yield %s : %s" % (", ".join(nxt_names[n] for n, _, _ in before), types))
        self.close_region(f, mark)
        f.emit("}")
        res.bound = bound
        res.exact = exact
        f.pool.append(res)
        if res2 is not None:
            f.pool.append(res2)
        self.features.add("while-" + mode)
        if second is not None:
            self.features.add("while-2")
        if pre is not None:
            self.features.add("while-before")
        self.normalize(f, res)
        if res2 is not None:
            self.normalize(f, res2)
        return True

    def switch_index(self, f, hi):
        """An index for scf.index_switch: an index argument, or an i32 or i64
        argument cast to index (each with a `dist.input_range` of [0, hi) or
        [-1, hi): -1 takes the default), or a constant. Returns (name, kind)."""
        rng = self.rng
        kind = rng.pick(["index", "int", "int", "const"])
        if kind != "const" and f.can_add_args and len(f.args) < f.max_args:
            lo = -1 if kind == "int" and rng.chance(0.3) else 0
            if kind == "index":
                a = f.new_arg(None, "index", lo, hi)
                return a.name, kind
            a = f.new_arg(None, rng.pick(["i32", "i64"]), lo, hi)
            k = self.fresh("k")
            f.emit("%s = arith.index_cast %s : %s to index" % (k, a.name, a.elem))
            return k, kind
        return self.index_const(f, rng.below(hi)), "const"

    def op_switch(self, f):
        """scf.index_switch with 1 to 3 cases and a default, each yielding a
        tensor of one shape, computed differently (like op_if's branches)."""
        rng = self.rng
        elem = self.elem
        target = f.any_tensor(elem)
        if target is None:
            return False
        cases = sorted(rng.subset(range(4), rng.below(3) + 1))
        sel, kind = self.switch_index(f, cases[-1] + 2)
        res = Value(self.fresh("v"), None, elem, 0.0, False, f.depth)
        head = len(f.lines)
        f.emit("")  # the scf.index_switch line, once its type is known
        labels = ["case %d {" % c for c in cases] + ["default {"]
        bounds, exact = self.branch_regions(f, res, target, elem, labels,
                                            ["}"] * len(labels))
        f.lines[head] = "  " * f.indent + "%s = scf.index_switch %s -> %s" % (
            res.name, sel, res.type)
        res.bound = max(bounds)
        res.exact = exact
        f.pool.append(res)
        self.features.add("switch-" + kind)
        return True

    def op_call(self, f):
        rng = self.rng
        h = rng.pick(self.helpers)
        operands = []
        for v, _attrs in h.args:
            o = f.find(v.shape, v.elem)
            if o is None:
                return False
            operands.append(self.scale_to(f, o, 1.0))
        results = []
        for r in h.result_values:
            results.append(f.define(r.shape, r.elem, r.bound, False))
        lhs = ", ".join(r.name for r in results)
        f.emit("%s = func.call @%s(%s) : (%s) -> %s" %
               (lhs, h.name, ", ".join(o.name for o in operands),
                ", ".join(o.type for o in operands),
                results[0].type if len(results) == 1 else
                "(%s)" % ", ".join(r.type for r in results)))
        f.use(*operands)
        for r in results:
            self.normalize(f, r)
        return True


def generate(seed, steps=False):
    g = Generator(seed, steps)
    text = g.generate()
    return text, g


def pick_sample(n, seeds):
    """n seeds from seeds that together cover every mesh, element type and
    feature the candidates do (greedy, smaller programs first on ties), then
    filled up with the meshes least represented so far."""
    info = {}
    for seed in seeds:
        text, g = generate(seed)
        tags = set(g.features) | {"mesh=" + "x".join(map(str, g.mesh)), "elem=" + g.elem}
        info[seed] = (tags, len(text), g.mesh)
    chosen, covered = [], set()
    while len(chosen) < n:
        best = max((s for s in info if s not in chosen),
                   key=lambda s: (len(info[s][0] - covered), -info[s][1], -s))
        if not info[best][0] - covered:
            break
        chosen.append(best)
        covered |= info[best][0]
    for seed in seeds:
        if len(chosen) >= n:
            break
        if seed in chosen:
            continue
        meshes = [info[s][2] for s in chosen]
        if meshes.count(info[seed][2]) <= min(meshes.count(m) for m in MESHES):
            chosen.append(seed)
    return sorted(chosen), sorted(set().union(*(info[s][0] for s in info)) - covered)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("seed", type=int, nargs="?")
    p.add_argument("-o", "--output", help="write the program here (default: stdout)")
    p.add_argument("--steps", action="store_true",
                   help="mark results as next values of arguments of their type "
                   "(dist.updates), for dist-run --steps")
    p.add_argument("--info", action="store_true",
                   help="print ranks=N (the mesh's devices), the mesh, the element "
                   "type and the features the program exercises")
    p.add_argument("--sample", type=int, metavar="N",
                   help="print N seeds of --from that cover every mesh, element type "
                   "and feature (the CI sample of test/Fuzz/sample.test)")
    p.add_argument("--from", dest="seed_range", default="1-300", metavar="A-B",
                   help="candidates for --sample (default 1-300)")
    args = p.parse_args(argv)
    if args.sample:
        lo, hi = map(int, args.seed_range.split("-"))
        chosen, missed = pick_sample(args.sample, list(range(lo, hi + 1)))
        print(",".join(map(str, chosen)))
        if missed:
            print("not covered: " + ", ".join(missed), file=sys.stderr)
        return 0
    if args.seed is None:
        p.error("a seed is needed")
    text, g = generate(args.seed, args.steps)
    if args.info:
        print("ranks=%d mesh=%s elem=%s features=%s" % (
            prod(g.mesh), "x".join(map(str, g.mesh)), g.elem, ",".join(sorted(g.features))))
        return 0
    if args.output:
        with open(args.output, "w") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
