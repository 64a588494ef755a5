"""jitgrad.distributed on a real 2-process LocalCluster on loopback (issue 17).

DataParallel must equal a single-process run on the whole batch (parameters, losses and
optimizer state after 3 steps), its bytes_per_step must match what Dask's workers logged
receiving, and sweep must bring back every result: values, a worker's exception with its
traceback text, and the task of a worker killed mid-sweep (rerun by Dask)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import numpy as np
import pytest

pytestmark = pytest.mark.slow      # subprocesses (`-m 'not slow'` skips them)

distributed = pytest.importorskip("distributed")   # in the dev extra: runs in CI

import jitgrad as paddle  # noqa: E402
from jitgrad import nn  # noqa: E402
from jitgrad.distributed import DataParallel, sweep  # noqa: E402

ONE_THREAD = {k: "1" for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                               "JITGRAD_NUM_THREADS")}


@pytest.fixture(scope="module")
def client():
    import cloudpickle
    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # workers need not import us
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       host="127.0.0.1", dashboard_address=None,
                                       env=ONE_THREAD)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()
    cloudpickle.unregister_pickle_by_value(sys.modules[__name__])


@pytest.fixture
def two(client):
    """The client, once both workers are up (a test may have killed one)."""
    client.wait_for_workers(2, timeout=60)
    return client


def make_model():
    paddle.seed(7)
    return nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 3))


def mean_loss(model, x, y):
    return nn.functional.cross_entropy(model(x), y)


def sum_loss(model, x, y):
    return nn.functional.cross_entropy(model(x), y, reduction="sum")


OPTIMIZERS = {"sgd": lambda ps: paddle.optimizer.SGD(0.1, parameters=ps),
              "adam": lambda ps: paddle.optimizer.Adam(0.05, parameters=ps),
              "momentum": lambda ps: paddle.optimizer.Momentum(0.1, 0.9, parameters=ps)}


def batches(steps=3, rows=11):       # 11 rows: shards of 6 and 5, unequal weights
    rng = np.random.default_rng(0)
    return [(rng.standard_normal((rows, 8)).astype(np.float32),
             rng.integers(0, 3, rows).astype(np.int64)) for _ in range(steps)]


def single_process(opt_name, loss_fn, data):
    model = make_model()
    opt = OPTIMIZERS[opt_name](model.parameters())
    losses = []
    for x, y in data:
        loss = loss_fn(model, paddle.to_tensor(x), paddle.to_tensor(y))
        losses.append(float(loss))
        loss.backward()
        opt.step()
        opt.clear_grad()
    return losses, {k: v.numpy() for k, v in model.state_dict().items()}, opt.state_dict()


@pytest.mark.parametrize("opt_name,loss_fn,reduction", [
    ("sgd", mean_loss, "mean"), ("adam", mean_loss, "mean"), ("momentum", sum_loss, "sum")])
def test_data_parallel_equals_single_process(two, opt_name, loss_fn, reduction):
    data = batches()
    want_losses, want, want_opt = single_process(opt_name, loss_fn, data)
    with DataParallel(two, make_model, OPTIMIZERS[opt_name], loss_fn,
                      reduction=reduction) as trainer:
        assert len(trainer.workers) == 2
        losses = [trainer.step(*data[0])] + trainer.steps(data[1:])   # sync, pipelined
        replicas = [trainer.state_dict(i) for i in range(2)]
        opt_state = trainer.optimizer_state_dict()
    np.testing.assert_allclose(losses, want_losses, rtol=1e-5, atol=1e-6)
    start = {k: v.numpy() for k, v in make_model().state_dict().items()}
    for name, value in want.items():
        assert not np.allclose(value, start[name])          # the steps did move it
        for got in replicas:
            np.testing.assert_allclose(got[name], value, rtol=1e-5, atol=1e-6)
        np.testing.assert_array_equal(replicas[0][name], replicas[1][name])  # same update
    # accumulators in Paddle's order (kind by kind, parameters in order); the names'
    # counters differ between processes, the values must not
    want_acc = [v.numpy() for k, v in want_opt.items() if k != "LR_Scheduler"]
    got_acc = [v for k, v in opt_state.items() if k != "LR_Scheduler"]
    assert len(got_acc) == len(want_acc) == {"sgd": 0, "adam": 16, "momentum": 4}[opt_name]
    for got, value in zip(got_acc, want_acc):
        np.testing.assert_allclose(got, value, rtol=1e-5, atol=1e-6)


def test_bytes_per_step_is_what_the_workers_received(two):
    # payload: 8*16 + 16 + 16*3 + 3 = 195 gradient values, the loss and the row count,
    # float32
    (x, y), = batches(1, rows=10)
    with DataParallel(two, make_model, OPTIMIZERS["sgd"], mean_loss) as trainer:
        assert trainer.payload_bytes == 197 * 4
        trainer.step(x, y)
        trainer.step(x, y)
        assert trainer.bytes_per_step == {"shards": x.nbytes + y.nbytes,
                                          "gradients_gathered": 2 * 788,
                                          "total": x.nbytes + y.nbytes + 2 * 788}
        tid = trainer.tid

    def received(dask_worker):
        return {k: n for entry in dask_worker.transfer_incoming_log
                for k, n in entry["keys"].items() if tid in k}
    logs = two.run(received)
    moved = {k: n for log in logs.values() for k, n in log.items()}
    # per step, each worker fetches the other's payload once (the last step's at close())
    assert sorted(moved.values()) == [788] * 4
    assert sorted(k.split("-")[1] for k in moved) == ["grads"] * 4


STEP_DATA = batches()


def load_shard(index, rank, world):
    """A loader of step_from: this rank's rows of step `index`'s batch (on the worker)."""
    if index == "empty":
        return ()
    if index == "ragged":
        return np.zeros((3, 8), np.float32), np.zeros(2, np.int64)
    x, y = STEP_DATA[index]
    return np.array_split(x, world)[rank], np.array_split(y, world)[rank]


def three_steps(trainer, feed):
    """STEP_DATA's steps, the first synchronous, the others pipelined; the batches sent by
    the driver or loaded on the workers; the losses and both replicas' parameters."""
    if feed == "sent":
        losses = [trainer.step(*STEP_DATA[0])] + trainer.steps(STEP_DATA[1:])
    else:
        losses = [trainer.step_from(load_shard, 0)] + trainer.steps_from(load_shard, [1, 2])
    return losses, [trainer.state_dict(i) for i in range(2)]


def assert_single_process_values(losses, replicas, want_losses, want):
    np.testing.assert_allclose(losses, want_losses, rtol=1e-5, atol=1e-6)
    for name, value in want.items():
        np.testing.assert_allclose(replicas[0][name], value, rtol=1e-5, atol=1e-6)
        np.testing.assert_array_equal(replicas[0][name], replicas[1][name])


@pytest.mark.parametrize("opt_name,loss_fn,reduction", [
    ("adam", mean_loss, "mean"), ("momentum", sum_loss, "sum")])
def test_step_from_a_loader_on_the_workers_equals_single_process(two, opt_name, loss_fn,
                                                                  reduction):
    want_losses, want, _ = single_process(opt_name, loss_fn, STEP_DATA)
    with DataParallel(two, make_model, OPTIMIZERS[opt_name], loss_fn,
                      reduction=reduction) as trainer:
        losses, replicas = three_steps(trainer, "loaded")
        assert trainer.bytes_per_step == {"shards": 0, "gradients_gathered": 2 * 788,
                                          "total": 2 * 788}
    assert_single_process_values(losses, replicas, want_losses, want)


def test_step_from_errors_name_the_loader(two):
    with DataParallel(two, make_model, OPTIMIZERS["sgd"], mean_loss) as trainer:
        with pytest.raises(TypeError, match=r"loader\(index, rank, world\)"):
            trainer.step_from(STEP_DATA, 0)
        with pytest.raises(ValueError, match="shard for step 'empty' on rank [01] is empty"):
            trainer.step_from(load_shard, "empty")
        with pytest.raises(ValueError, match=r"shapes \[\(3, 8\), \(2,\)\]"):
            trainer.step_from(load_shard, "ragged")
        # a failed step leaves the replicas usable
        want_losses, _, _ = single_process("sgd", mean_loss, STEP_DATA[:1])
        assert trainer.step_from(load_shard, 0) == pytest.approx(want_losses[0], rel=1e-5)


@pytest.mark.parametrize("feed", ["sent", "loaded"])
def test_beyond_all_gather_max_workers_a_tree_sums_the_payloads(two, monkeypatch, feed):
    from jitgrad.distributed import data_parallel
    monkeypatch.setattr(data_parallel, "ALL_GATHER_MAX", 1)
    want_losses, want, _ = single_process("sgd", mean_loss, STEP_DATA)
    with DataParallel(two, make_model, OPTIMIZERS["sgd"], mean_loss) as trainer:
        losses, replicas = three_steps(trainer, feed)
        assert set(trainer.bytes_per_step) == {"shards", "gradients_up", "gradients_down",
                                               "total"}
    assert_single_process_values(losses, replicas, want_losses, want)


def test_one_worker_trainer_and_input_errors(two):
    data = batches(2)
    want_losses, want, _ = single_process("sgd", mean_loss, data)
    first = sorted(two.scheduler_info(n_workers=-1)["workers"])[0]
    with DataParallel(two, make_model, OPTIMIZERS["sgd"], mean_loss,
                      workers=[first]) as trainer:
        assert [trainer.step(x, y) for x, y in data] == pytest.approx(want_losses, rel=1e-6)
        assert trainer.bytes_per_step["gradients_gathered"] == 0
        for k, v in trainer.state_dict().items():
            np.testing.assert_allclose(v, want[k], rtol=1e-6, atol=1e-7)
    with pytest.raises(ValueError, match="reduction"):
        DataParallel(two, make_model, OPTIMIZERS["sgd"], mean_loss, reduction="max")
    with pytest.raises(TypeError, match="loss_fn"):
        DataParallel(two, make_model, OPTIMIZERS["sgd"], "cross_entropy")
    with pytest.raises(ValueError, match="not in the cluster"):
        DataParallel(two, make_model, OPTIMIZERS["sgd"], mean_loss, workers=["tcp://x:1"])
    with DataParallel(two, make_model, OPTIMIZERS["sgd"], lambda m, x: m(x)) as trainer:
        x, y = data[0]
        with pytest.raises(ValueError, match="at least 2 rows"):
            trainer.step(x[:1])
        with pytest.raises(ValueError, match="first axes differ"):
            trainer.step(x, y[:5])
        # (the two shards, 6 and 5 rows, fail on two workers: either error may come first)
        with pytest.raises(TypeError, match=r"scalar jitgrad Tensor .* shape \[[56], 3\]"):
            trainer.step(x)                                  # raised on a worker


def train_seed(config):
    """A sweep's unit of work: a few SGD steps from one seed; the final loss."""
    if config.get("fail"):
        raise ArithmeticError(f"seed {config['seed']} diverged")
    marker = config.get("kill_marker")
    if marker and not os.path.exists(marker):
        open(marker, "w").close()
        os._exit(1)                         # the worker process dies mid-task, once
    time.sleep(config.get("sleep", 0.0))
    paddle.seed(config["seed"])
    w = paddle.to_tensor(np.full(3, float(config["seed"]), np.float32), stop_gradient=False)
    for _ in range(config["steps"]):
        loss = paddle.sum(w * w)
        loss.backward()
        with paddle.no_grad():
            w.set_value(w.numpy() - config["lr"] * w.grad.numpy())
        w.clear_grad()
    return float(paddle.sum(w * w))


def expected(seed, lr, steps):
    return 3 * (seed * (1 - 2 * lr) ** steps) ** 2       # w <- (1 - 2 lr) w


def test_sweep_values_and_remote_traceback(two):
    configs = [{"seed": s, "lr": 0.25, "steps": 3} for s in range(4)]
    configs[2] = dict(configs[2], fail=True)
    results = sweep(two, train_seed, configs)
    assert [r.config for r in results] == configs
    assert [r.ok for r in results] == [True, True, False, True]
    for s in (0, 1, 3):
        assert results[s].value == pytest.approx(expected(s, 0.25, 3), rel=1e-6)
        assert results[s].error is None and results[s].traceback is None
    bad = results[2]
    assert bad.value is None and bad.error == "ArithmeticError: seed 2 diverged"
    assert "in train_seed" in bad.traceback and 'raise ArithmeticError' in bad.traceback
    with pytest.raises(TypeError, match="callable"):
        sweep(two, 42, configs)
    with pytest.raises(ValueError, match="retries"):
        sweep(two, train_seed, configs, retries=-1)


def test_a_client_connected_by_the_schedulers_address_trains_and_sweeps(two):
    # Client("tcp://host:port"), as for a cluster started with `dask scheduler` and
    # `dask worker tcp://host:port` on other machines
    address = two.scheduler.address
    assert address.startswith("tcp://")
    with distributed.Client(address) as by_address:
        want_losses, _, _ = single_process("sgd", mean_loss, STEP_DATA[:1])
        with DataParallel(by_address, make_model, OPTIMIZERS["sgd"], mean_loss) as trainer:
            assert len(trainer.workers) == 2
            assert trainer.step_from(load_shard, 0) == pytest.approx(want_losses[0], rel=1e-5)
        (r,) = sweep(by_address, train_seed, [{"seed": 2, "lr": 0.25, "steps": 3}])
        assert r.ok and r.value == pytest.approx(expected(2, 0.25, 3), rel=1e-6)


def test_sweep_retries_a_raising_config(two, tmp_path):
    marker = tmp_path / "flaky"

    def flaky(seed):
        if not marker.exists():
            marker.touch()
            raise ConnectionError("transient")
        return seed * 10
    assert [r.value for r in sweep(two, flaky, [4], retries=1)] == [40]
    marker.unlink()
    (r,) = sweep(two, flaky, [4])                         # no retries: the failure is kept
    assert not r.ok and r.error == "ConnectionError: transient" and "flaky" in r.traceback


def test_sweep_survives_a_worker_killed_mid_sweep(two, tmp_path):
    marker = str(tmp_path / "killed")
    configs = [{"seed": s, "lr": 0.1, "steps": 2, "sleep": 0.2} for s in range(6)]
    configs[3] = dict(configs[3], kill_marker=marker)
    before = set(two.scheduler_info(n_workers=-1)["workers"])
    results = sweep(two, train_seed, configs)
    assert os.path.exists(marker)                        # the kill did happen
    assert all(r.ok for r in results), [r.error for r in results]
    assert [r.value for r in results] == pytest.approx(
        [expected(s, 0.1, 2) for s in range(6)], rel=1e-6)
    two.wait_for_workers(2, timeout=60)                  # the nanny restarted the worker
    assert set(two.scheduler_info(n_workers=-1)["workers"]) != before


def test_import_jitgrad_does_not_import_dask_and_says_how_to_install():
    code = ("import sys, jitgrad, jitgrad.distributed as d\n"
            "assert 'dask' not in sys.modules and 'distributed' not in sys.modules\n"
            "sys.modules['distributed'] = None\n"
            "try:\n    d.sweep(None, print, [])\n"
            "except ImportError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert 'pip install "jitgrad[distributed]"' in out


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_a_replica_restores_glibcs_adaptive_mmap_threshold():
    # (Dask's nanny sets MALLOC_TRIM_THRESHOLD_, which pins it at 128 KB: every large
    # temporary array became a fresh mmap, a worker's step 1.35x slower)
    from jitgrad.distributed import replica
    assert replica.allocate_like_a_plain_process() is True


def test_a_float16_models_payload_is_float32_so_large_shards_neither_round_nor_overflow():
    # (a payload holds gradients times the shard's rows and the row count: in float16 a
    # count of 3001 rounds to 3000 and 3001 * 30 overflows)
    from jitgrad.distributed import replica
    model = nn.Linear(2, 1)
    model.to(dtype="float16")
    r = replica.Replica(model, None, lambda m, x: (m(x) * 30.0).mean(), mean=True)
    r.optimizer = paddle.optimizer.SGD(0.1, parameters=r.params)
    assert r.dtype == np.float32
    x = np.ones((3001, 2), np.float16)
    r.loss_fn(model, paddle.to_tensor(x)).backward()
    g = model.weight.grad.numpy().reshape(-1)          # ~30 (30 x), in float16
    model.clear_gradients()
    payload = replica._payload(r, [x])
    assert payload.dtype == np.float32 and payload[-1] == 3001
    np.testing.assert_array_equal(payload[:2], g.astype(np.float32) * np.float32(3001))
    assert np.isfinite(payload).all() and payload[0] > 65504     # (float16's largest)


def test_a_failed_step_leaves_no_gradient_behind_for_the_next():
    from jitgrad.distributed import replica
    model = nn.Linear(2, 1)
    r = replica.Replica(model, None, None, mean=False)
    r.optimizer = paddle.optimizer.SGD(0.1, parameters=r.params)
    x = np.ones((3, 2), np.float32)

    def backward_then_wrong_result(m, x):      # gradients accumulated, then the step fails
        m(x).sum().backward()
        return m(x)
    r.loss_fn = backward_then_wrong_result
    with pytest.raises(TypeError, match=r"scalar jitgrad Tensor .* shape \[3, 1\]"):
        replica._payload(r, [x])
    r.loss_fn = lambda m, x: m(x).sum()
    payload = replica._payload(r, [x])
    np.testing.assert_array_equal(payload[:3], [3.0, 3.0, 3.0])   # d sum(x w + b): 3, 3, 3
