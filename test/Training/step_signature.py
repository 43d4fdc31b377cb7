"""The signature of a training step in MLIR text: its arguments and results,
with their shapes, element types and training markings. Standard library
only (shared by the PyTorch and the finite-difference checks)."""

import re
import struct


def split_top_level(text):
    """Splits `text` at commas outside (), [], {}, <> and strings."""
    parts, depth, current, quoted = [], 0, "", False
    for ch in text:
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch in "([{<":
            depth += 1
        elif not quoted and ch in ")]}>":
            depth -= 1
        if ch == "," and depth == 0 and not quoted:
            parts.append(current.strip())
            current = ""
        else:
            current += ch
    if current.strip():
        parts.append(current.strip())
    return parts


def matching_paren(text, start):
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    raise ValueError("unbalanced parentheses")


def parse_float(text):
    """An f64 attribute's value: decimal, or hexadecimal bits (as MLIR prints
    values that decimal would not round-trip)."""
    if text.startswith("0x"):
        return struct.unpack("<d", int(text, 16).to_bytes(8, "little"))[0]
    return float(text)


class Value:
    def __init__(self, text):
        m = re.search(r"tensor<([^>]*)>", text)
        dims = m.group(1).split("x")
        self.element = dims[-1]
        self.shape = [int(d) for d in dims[:-1]]
        m = re.search(r'dist\.name = "([^"]+)"', text)
        self.name = m.group(1) if m else None
        self.is_param = re.search(r"dist\.param\b", text) is not None
        m = re.search(r"dist\.state_of = (\d+)", text)
        self.state_of = int(m.group(1)) if m else None
        m = re.search(r"dist\.input_range = array<i64: (-?\d+), (-?\d+)>", text)
        self.input_range = (int(m.group(1)), int(m.group(2))) if m else None
        m = re.search(r"dist\.input_fill = (0x[0-9A-Fa-f]+|[-+0-9.eE]+)", text)
        self.input_fill = parse_float(m.group(1)) if m else None
        # Optimizer state that starts as its parameter (master weights).
        self.input_from_param = re.search(r"dist\.input_from_param\b", text) is not None
        # Packed optimizer state (dist-sharding ownership=whole): per member
        # its name, parameter, owner row, offset in the row and shape.
        self.pool_members = []
        m = re.search(r"dist\.state_pool = \[(.*?)\]\}?$", text)
        if m:
            for member in re.findall(r"\{([^{}]*)\}", m.group(1)):
                field = lambda key: re.search(key + r' = ("[^"]*"|-?\d+|array<i64[^>]*>)',
                                              member).group(1)
                shape = field("shape")
                self.pool_members.append({
                    "name": field("name").strip('"'),
                    "param": field("param").strip('"'),
                    "owner": int(field("owner")),
                    "offset": int(field("offset")),
                    "shape": [int(d) for d in re.findall(r"-?\d+", shape[len("array<i64"):])],
                    "from_param": re.search(r"\bfrom_param\b", member) is not None,
                })


def parse_signature(mlir, function):
    start = mlir.index("func.func @%s(" % function) + len("func.func @%s" % function)
    end = matching_paren(mlir, start)
    args = [Value(a) for a in split_top_level(mlir[start + 1:end])]
    rest = mlir[end:]
    results_start = rest.index("-> (") + 3
    results_end = matching_paren(rest, results_start)
    results = [Value(r) for r in split_top_level(rest[results_start + 1:results_end])]
    return args, results
