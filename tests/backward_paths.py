"""The three backward paths tests run a behaviour through: the compiled interpreter, the
numpy reference interpreter, and the eager rules of create_graph=True."""

import jitgrad as paddle

PATHS = ["numba", "reference", "create_graph"]


def leaf(values, dtype="float32"):
    return paddle.to_tensor(values, dtype=dtype, stop_gradient=False)


def backward(loss, path, **kw):
    if path == "create_graph":
        loss.backward(create_graph=True, **kw)
    else:
        with paddle.vm.using(path):
            loss.backward(**kw)


def grad(outs, ins, path, **kw):
    if path == "create_graph":
        return paddle.grad(outs, ins, create_graph=True, **kw)
    with paddle.vm.using(path):
        return paddle.grad(outs, ins, **kw)
