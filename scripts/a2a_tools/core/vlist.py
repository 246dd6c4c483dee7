"""Value lists as in sweep files and `a2atune model` (harness/sweep/vlist.h), in Python.

    list  := item (',' item)*
    item  := expr | expr '..' expr [':' ('+'|'*') expr]
    expr  := term (('+'|'-') term)*      term := unary (('*'|'/') unary)*
    unary := '-' unary | atom
    atom  := number[suffix] | name | func '(' args ')' | '(' expr ')'

Suffixes K Ki KiB KB (2^10), M Mi MiB MB (2^20), G Gi GiB GB (2^30), B (1). Names P, Q,
N, world; a bare `sqrt` means sqrt(P). sqrt(x) is the nearest integer, log2(x) the
ceiling, '/' truncates toward zero. Expansion drops duplicates, keeping the first.
"""
import math
import re

from .common import A2AError

_SUFFIX = {"": 1, "B": 1}
for _s, _v in (("K", 1 << 10), ("M", 1 << 20), ("G", 1 << 30)):
    for _form in (_s, _s + "i", _s + "iB", _s + "B"):
        _SUFFIX[_form] = _v
_NAMES = ("P", "Q", "N", "world")
_FUNCS = {"sqrt": 1, "log2": 1, "min": 2, "max": 2}
_TOKEN = re.compile(r"\s*(?:(?P<num>\d+)(?P<suf>[A-Za-z]*)|(?P<name>[A-Za-z_]\w*)"
                    r"|(?P<op>\.\.|[-+*/(),:]))")
_INT64 = (1 << 63) - 1
_MAX_VALUES = 1000000


def _nearest_sqrt(x):
    r = math.isqrt(x)
    return r + (x - r * r > r)


def _ceil_log2(x):
    return (x - 1).bit_length()


class _Parser:
    def __init__(self, text):
        self.text = text
        self.tokens = []
        pos = 0
        while pos < len(text):
            if text[pos:].strip() == "":
                break
            m = _TOKEN.match(text, pos)
            if not m:
                raise A2AError("cannot read '%s' at column %d" % (text, pos + 1))
            if m.group("num") is not None:
                suf = m.group("suf")
                if suf not in _SUFFIX:
                    raise A2AError("bad number suffix '%s' in '%s' (use K, Ki, KiB, KB, M.., G.., B)"
                                   % (suf, text))
                value = int(m.group("num")) * _SUFFIX[suf]
                if value > _INT64:
                    raise A2AError("number beyond int64 in '%s'" % text)
                self.tokens.append(("num", value))
            elif m.group("name") is not None:
                self.tokens.append(("name", m.group("name")))
            else:
                self.tokens.append(("op", m.group("op")))
            pos = m.end()
        self.i = 0

    def peek(self):
        return self.tokens[self.i] if self.i < len(self.tokens) else ("end", None)

    def take(self, op=None):
        tok = self.peek()
        if op is not None and tok != ("op", op):
            raise A2AError("expected '%s' in '%s'" % (op, self.text))
        self.i += 1
        return tok

    def items(self):
        items = []
        while True:
            lo = self.expr()
            hi = step = None
            step_op = "+"
            if self.peek() == ("op", ".."):
                self.take()
                hi = self.expr()
                if self.peek() == ("op", ":"):
                    self.take()
                    kind, op = self.take()
                    if kind != "op" or op not in "+*":
                        raise A2AError("a range step is ':+k' or ':*k' in '%s'" % self.text)
                    step_op, step = op, self.expr()
            items.append((lo, hi, step_op, step))
            if self.peek() == ("end", None):
                return items
            self.take(",")

    def expr(self):
        node = self.term()
        while self.peek() in (("op", "+"), ("op", "-")):
            node = (self.take()[1], node, self.term())
        return node

    def term(self):
        node = self.unary()
        while self.peek() in (("op", "*"), ("op", "/")):
            node = (self.take()[1], node, self.unary())
        return node

    def unary(self):
        if self.peek() == ("op", "-"):
            self.take()
            return ("neg", self.unary())
        kind, value = self.take()
        if kind == "num":
            return ("num", value)
        if kind == "op" and value == "(":
            node = self.expr()
            self.take(")")
            return node
        if kind == "name":
            if value in _FUNCS:
                if self.peek() != ("op", "("):
                    if value == "sqrt":
                        return ("sqrt", ("var", "P"))
                    raise A2AError("%s needs arguments in '%s'" % (value, self.text))
                self.take("(")
                args = [self.expr()]
                while self.peek() == ("op", ","):
                    self.take()
                    args.append(self.expr())
                self.take(")")
                if len(args) != _FUNCS[value]:
                    raise A2AError("%s takes %d argument(s) in '%s'" % (value, _FUNCS[value], self.text))
                return (value,) + tuple(args)
            if value in _NAMES:
                return ("var", value)
            raise A2AError("unknown name '%s' in '%s' (known: P, Q, N, world, sqrt, log2, min, max)"
                           % (value, self.text))
        raise A2AError("unexpected %s in '%s'" % ("end" if kind == "end" else repr(value), self.text))


def _eval(node, env, text):
    kind = node[0]
    if kind == "num":
        return node[1]
    if kind == "var":
        if env is None or node[1] not in env:
            raise A2AError("'%s' cannot use %s here" % (text, node[1]))
        return env[node[1]]
    args = [_eval(a, env, text) for a in node[1:]]
    if kind == "neg":
        v = -args[0]
    elif kind == "+":
        v = args[0] + args[1]
    elif kind == "-":
        v = args[0] - args[1]
    elif kind == "*":
        v = args[0] * args[1]
    elif kind == "/":
        if args[1] == 0:
            raise A2AError("division by zero in '%s'" % text)
        q = abs(args[0]) // abs(args[1])
        v = q if (args[0] >= 0) == (args[1] >= 0) else -q
    elif kind == "sqrt":
        if args[0] < 0:
            raise A2AError("sqrt of negative value %d in '%s'" % (args[0], text))
        v = _nearest_sqrt(args[0])
    elif kind == "log2":
        if args[0] < 1:
            raise A2AError("log2 of %d (needs a value >= 1) in '%s'" % (args[0], text))
        v = _ceil_log2(args[0])
    elif kind == "min":
        v = min(args)
    else:
        v = max(args)
    if abs(v) > _INT64:
        raise A2AError("int64 overflow in '%s'" % text)
    return v


def parse(text, env=None):
    """Expands a value list to a list of ints (duplicates dropped, order kept).

    env maps the names P, Q, N, world to values; without it a list must not use them.
    Raises A2AError with a one-line message on any error."""
    text = str(text)
    if not text.strip():
        raise A2AError("empty value list")
    values, seen = [], set()
    for lo, hi, step_op, step in _Parser(text).items():
        lo_v = _eval(lo, env, text)
        if hi is None:
            expanded = [lo_v]
        else:
            hi_v = _eval(hi, env, text)
            k = 1 if step is None else _eval(step, env, text)
            expanded = []
            if step_op == "+":
                if k < 1:
                    raise A2AError("additive step must be >= 1, got %d in '%s'" % (k, text))
                if hi_v >= lo_v and (hi_v - lo_v) // k + 1 > _MAX_VALUES:
                    raise A2AError("more than %d values in '%s'" % (_MAX_VALUES, text))
                expanded = list(range(lo_v, hi_v + 1, k))
            else:
                if k < 2:
                    raise A2AError("geometric factor must be >= 2, got %d in '%s'" % (k, text))
                if lo_v <= hi_v:
                    if lo_v < 1:
                        raise A2AError("geometric range must start at >= 1, got %d in '%s'"
                                       % (lo_v, text))
                    v = lo_v
                    while v <= hi_v:
                        expanded.append(v)
                        v *= k
        for v in expanded:
            if v not in seen:
                seen.add(v)
                values.append(v)
        if len(values) > _MAX_VALUES:
            raise A2AError("more than %d values in '%s'" % (_MAX_VALUES, text))
    return values
