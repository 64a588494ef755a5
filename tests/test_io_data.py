"""paddle.io: datasets, samplers, default collation and the DataLoader, each pinned to what
Paddle 3.3.1 returns for the same calls (measured; a probe printed both libraries' batches
and they were identical)."""

import numpy as np
import pytest

import jitgrad as paddle
from jitgrad.io import (BatchSampler, ChainDataset, ComposeDataset, ConcatDataset, DataLoader,
                        IterableDataset, RandomSampler, Subset, SubsetRandomSampler,
                        TensorDataset, WeightedRandomSampler, default_collate_fn, random_split)
from io_helpers import Items


class Stream(IterableDataset):
    def __iter__(self):
        return iter([np.array([i], "float32") for i in range(5)])


def describe(batch):
    if isinstance(batch, paddle.Tensor):
        return (batch.dtype.name, batch.shape, batch.numpy().tolist())
    if isinstance(batch, dict):
        return {k: describe(v) for k, v in batch.items()}
    if isinstance(batch, (list, tuple)):
        return (type(batch).__name__, [describe(v) for v in batch])
    return batch


def batches(items, **kw):
    return [describe(b) for b in DataLoader(Items(items), **kw)]


def test_tuples_of_arrays_batch_into_lists_of_stacked_tensors():
    items = [(np.array([1.0, 2.0], "float32"), np.array([i])) for i in range(3)]
    out = batches(items, batch_size=2)
    assert out[0] == ("list", [("float32", [2, 2], [[1.0, 2.0], [1.0, 2.0]]),
                               ("int64", [2, 1], [[0], [1]])])
    assert out[1][1][1] == ("int64", [1, 1], [[2]])


@pytest.mark.parametrize("items, dtype", [
    ([1.5, 2.5, 3.5], "float64"), ([1, 2, 3], "int64"), ([True, False, True], "bool"),
    ([np.int32(3)] * 3, "int32"), ([np.array(1.0, "float32")] * 3, "float32")])
def test_numbers_batch_into_one_dimensional_tensors(items, dtype):
    """Measured: Python floats give float64 (numpy's rule), not the default float32."""
    first = batches(items, batch_size=2)[0]
    assert first[0] == dtype and first[1] == [2]


def test_dicts_batch_key_by_key_and_strings_stay_lists():
    items = [{"x": np.ones(2, "float32"), "y": i, "s": "a"} for i in range(3)]
    first = batches(items, batch_size=2)[0]
    assert first == {"x": ("float32", [2, 2], [[1.0, 1.0], [1.0, 1.0]]),
                     "y": ("int64", [2], [0, 1]), "s": ("list", ["a", "a"])}


def test_tensors_stack_and_nested_lists_batch_field_by_field():
    ts = [paddle.to_tensor([1.0, 2.0]), paddle.to_tensor([3.0, 4.0]), paddle.to_tensor([5.0, 6.0])]
    assert batches(ts, batch_size=2)[0] == ("float32", [2, 2], [[1.0, 2.0], [3.0, 4.0]])
    nested = batches([[np.ones(1, "float32"), [1, 2]]] * 3, batch_size=2)[0]
    assert nested[1][1] == ("list", [("int64", [2], [1, 1]), ("int64", [2], [2, 2])])


def test_a_batch_without_arrays_is_still_yielded():
    """Paddle 3.3.1 yields no batch at all here (an empty loop)."""
    assert batches(["a", "b", "c"], batch_size=2) == [("list", ["a", "b"]), ("list", ["c"])]
    assert batches([1, 2, 3], batch_size=2, collate_fn=lambda b: b) == [("list", [1, 2]),
                                                                        ("list", [3])]


def test_collate_fn_output_is_converted_like_the_default():
    out = batches([1, 2, 3], batch_size=2, collate_fn=lambda b: {"a": np.array(b), "n": len(b)})
    assert out == [{"a": ("int64", [2], [1, 2]), "n": 2}, {"a": ("int64", [1], [3]), "n": 1}]


def test_uneven_fields_raise():
    with pytest.raises(RuntimeError, match="fields number not same"):
        default_collate_fn([[1, 2], [1]])
    with pytest.raises(TypeError, match="but got object"):
        default_collate_fn([object()])


def test_drop_last_batch_sampler_and_len():
    loader = DataLoader(Items(list(range(5))), batch_size=2, drop_last=True)
    assert len(loader) == 2 and [b.numpy().tolist() for b in loader] == [[0, 1], [2, 3]]
    bs = BatchSampler(Items(list(range(5))), batch_size=3)
    loader = DataLoader(Items(list(range(5))), batch_sampler=bs)
    assert len(loader) == 2 and [b.numpy().tolist() for b in loader()] == [[0, 1, 2], [3, 4]]
    with pytest.raises(ValueError, match="should not be set when batch_sampler"):
        DataLoader(Items([1]), batch_sampler=bs, batch_size=2)


def test_batch_size_none_yields_samples_unbatched():
    out = batches([np.ones(2), np.ones(2)], batch_size=None)
    assert out == [("float64", [2], [1.0, 1.0])] * 2


def test_shuffle_follows_numpy_seed_as_in_paddle():
    """Measured: np.random.seed(3) gives this order in Paddle 3.3.1 too."""
    np.random.seed(3)
    order = [b.numpy().tolist() for b in DataLoader(Items(list(range(6))), batch_size=6,
                                                   shuffle=True)]
    assert order == [np.random.RandomState(3).choice(np.arange(6), 6, replace=False).tolist()]
    assert sorted(order[0]) == list(range(6))


def test_iterable_datasets_batch_in_order_and_have_no_len():
    out = [describe(b) for b in DataLoader(Stream(), batch_size=2)]
    assert [b[1] for b in out] == [[2, 1], [2, 1], [1, 1]]
    assert len(list(DataLoader(Stream(), batch_size=2, drop_last=True))) == 2
    with pytest.raises(ValueError, match="not support shuffle"):
        DataLoader(Stream(), batch_size=2, shuffle=True)
    with pytest.raises(ValueError, match="length of IterableDataset not supported"):
        len(DataLoader(Stream(), batch_size=2))
    with pytest.raises(RuntimeError, match="should not be called"):
        len(Stream())


def test_tensor_dataset_indexes_every_tensor():
    td = TensorDataset([paddle.arange(6).reshape([3, 2]).astype("float32"),
                        paddle.to_tensor([0, 1, 2])])
    x, y = td[1]
    assert len(td) == 3 and x.numpy().tolist() == [2.0, 3.0] and y.shape == [] and y.item() == 1
    with pytest.raises(ValueError, match="share their first dimension"):
        TensorDataset([paddle.ones([3]), paddle.ones([4])])
    with pytest.raises(TypeError, match="list of Tensors"):
        TensorDataset([[1.0, 2.0, 3.0]])


def test_random_split_sizes_and_fractions():
    paddle.seed(0)
    a, b = random_split(Items(list(range(10))), [7, 3])
    assert isinstance(a, Subset) and (len(a), len(b)) == (7, 3)
    assert sorted(list(a.indices) + list(b.indices)) == list(range(10))
    assert [len(s) for s in random_split(Items(list(range(10))), [0.34, 0.33, 0.33])] == \
        [4, 3, 3]
    with pytest.raises(ValueError, match="sum to 11"):
        random_split(Items(list(range(10))), [7, 4])


def test_random_split_follows_paddle_seed_or_its_generator():
    """Paddle 3.3.1 ignores generator; its docs say it is used."""
    paddle.seed(5)
    first = random_split(Items(list(range(8))), [4, 4])[0].indices
    paddle.seed(5)
    assert random_split(Items(list(range(8))), [4, 4])[0].indices == first
    by_seed = random_split(Items(list(range(8))), [4, 4], generator=7)[0].indices
    assert by_seed == np.random.default_rng(7).permutation(8)[:4].tolist()
    with pytest.raises(TypeError, match="generator must be"):
        random_split(Items([1, 2]), [1, 1], generator="x")


def test_samplers():
    np.random.seed(0)
    assert sorted(RandomSampler(Items(list(range(5))))) == list(range(5))
    assert len(list(RandomSampler(Items([1, 2]), replacement=True, num_samples=7))) == 7
    assert list(RandomSampler(Items([1, 2, 3]), generator=iter([2, 0, 1]))) == [2, 0, 1]
    with pytest.raises(ValueError, match="must not exceed"):
        RandomSampler(Items([1]), num_samples=3)
    assert sorted(SubsetRandomSampler([5, 7, 9])) == [5, 7, 9]
    w = WeightedRandomSampler([0.0, 1.0, 0.0], 4)
    assert list(w) == [1, 1, 1, 1] and len(w) == 4
    assert list(BatchSampler(sampler=[3, 1, 2], batch_size=2)) == [[3, 1], [2]]
    with pytest.raises(ValueError, match="batch_size should be a positive integer"):
        BatchSampler(Items([1]), batch_size=0)


def test_concat_compose_and_chain():
    cat = ConcatDataset([Items([1, 2]), Items([3])])
    assert len(cat) == 3 and [cat[i] for i in range(3)] == [1, 2, 3] and cat[-1] == 3
    comp = ComposeDataset([Items([(1, 2)]), Items([3])])
    assert comp[0] == (1, 2, 3)
    assert [int(x[0]) for x in ChainDataset([Stream(), Stream()])] == list(range(5)) * 2
    with pytest.raises(TypeError, match="does not support IterableDataset"):
        ConcatDataset([Stream()])


# ---- DistributedBatchSampler: batches measured on Paddle 3.3.1 -------------------------------

class _Len:
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n


def _ranks(n, bs, R, **kw):
    return [list(paddle.io.DistributedBatchSampler(_Len(n), bs, num_replicas=R, rank=r, **kw))
            for r in range(R)]


def test_distributed_batch_sampler_deals_runs_of_a_batch_to_each_rank():
    assert _ranks(10, 3, 2) == [[[0, 1, 2], [6, 7]], [[3, 4, 5], [8, 9]]]
    # padded cyclically to a multiple of the ranks; the short last round split evenly
    assert _ranks(5, 8, 2) == [[[0, 1, 2]], [[3, 4, 0]]]
    assert _ranks(7, 2, 4, drop_last=True) == [[[0, 1]], [[2, 3]], [[4, 5]], [[6, 0]]]
    s = paddle.io.DistributedBatchSampler(_Len(10), 3, num_replicas=2, rank=1)
    assert len(s) == 2 and s.num_samples == 5


def test_distributed_batch_sampler_shuffles_by_epoch_as_paddle():
    # np.random.RandomState(epoch).shuffle of the padded indices (Paddle 3.3.1's values)
    assert _ranks(10, 3, 3, shuffle=True) == \
        [[[6, 1, 4], [3]], [[0, 2, 8], [0]], [[1, 7, 9], [5]]]
    s = paddle.io.DistributedBatchSampler(_Len(9), 2, num_replicas=2, rank=1, shuffle=True)
    s.set_epoch(5)
    assert list(s) == [[2, 4], [0, 8], [3]]
    one = paddle.io.DistributedBatchSampler(_Len(4), 3)         # one process by default
    assert list(one) == [[0, 1, 2], [3]]
